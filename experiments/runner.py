"""Run an experiment: plan the runs once, execute the pending ones, record one row per run.

Every run is `repeats` timed `pack` calls on one instance; the first result is
measured. Only declared refusals become ``skipped`` rows: a strategy's
`Strategy.skip` reason (raised by `pack` as `Refused`), an unavailable source,
and the harness's own two (a "natural" budget on an instance without one, a
budget below the pinned tokens). Any other exception, ValueError included, is
an ``error`` row with the message; a packing whose info says the search was
``stopped`` gives a ``timeout`` row with its metrics. The reference optimum
for the score ratio is computed once per instance x budget x near_dup and
shared by the runs of that instance.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packbench.algorithms import pack
from packbench.algorithms.strategies.base import Refused

from .config import ExperimentConfig, source_registry

from .instances import Instance
from .metrics import Measured, Reference, certified_bound
from .plan import SOURCE_UNAVAILABLE, PlannedUnit, Run, is_unavailable, plan, unavailable_reason
from .schema import TIMING_COLUMNS, Status, make_row

if TYPE_CHECKING:
    from .executors import Executor

__all__ = ["run_unit", "run_chunk", "budget_tokens", "run_experiment", "TIMING_COLUMNS"]


class _Skipped(Exception):
    """A declared refusal: the run cannot be done as configured; not a bug."""


def budget_tokens(spec: int | float | str, instance: Instance) -> int:
    """The token budget of a budget spec on `instance`.

    Raises:
        ValueError: "natural" on an instance without ``meta["budget"]``.
    """
    if isinstance(spec, str):
        if "budget" not in instance.meta:
            raise ValueError(f"instance {instance.key!r} has no natural budget (meta['budget'])")
        return int(instance.meta["budget"])
    if isinstance(spec, float):
        return math.floor(spec * sum(it.tokens for it in instance.items))
    return int(spec)


def _reference(config: ExperimentConfig, inst: Instance, budget: int, near_dup: float | None) -> Reference:
    """The reference optimum (or a certified bound when the reference cannot prove one)."""
    name = config.reference_name
    pinned_score = math.fsum(it.score for it in inst.items if it.pinned)
    try:
        ref = pack(inst.items, budget, near_dup, strategy=name, dedupe=config.dedupe, **config.reference_params)
    except (ValueError, RuntimeError, MemoryError):
        return Reference(certified_bound(inst.items, budget, near_dup, config.dedupe), False, "dantzig_bound")
    if ref.optimal is True:
        return Reference(ref.score - pinned_score, True, name)
    bound = certified_bound(inst.items, budget, near_dup, config.dedupe)
    if ref.upper_bound is not None:
        bound = min(bound, ref.upper_bound - pinned_score)
    return Reference(bound, False, f"{name}_bound")


def _budget(run: Run, inst: Instance) -> int:
    try:
        budget = budget_tokens(run.cell.budget, inst)
    except ValueError as exc:
        raise _Skipped(str(exc)) from None
    pinned = [it for it in inst.items if it.pinned]
    need = sum(it.tokens for it in pinned)
    if need > budget:
        raise _Skipped(f"pinned items need {need} tokens, over the budget of {budget} "
                       f"(pinned: {', '.join(it.id for it in pinned)})")
    return budget


def _measure(config: ExperimentConfig, run: Run, inst: Instance, budget: int,
             refs: dict[tuple[int, float | None], Reference]) -> Measured:
    cell = run.cell
    params = {**cell.strategy_params, **cell.order_params}
    seconds = []
    packing = None
    for _ in range(config.repeats):
        start = time.perf_counter()
        try:
            result = pack(inst.items, budget, cell.near_dup, strategy=cell.strategy, order=cell.order,
                          dedupe=config.dedupe, **params)
        except Refused as exc:
            raise _Skipped(str(exc)) from None
        seconds.append(time.perf_counter() - start)
        if packing is None:
            packing = result
    score = math.fsum(it.score for it in packing if not it.pinned)
    key = (budget, cell.near_dup)
    if key not in refs:
        refs[key] = _reference(config, inst, budget, cell.near_dup)
    ref = refs[key]
    own_bound = None if packing.upper_bound is None else packing.upper_bound - (packing.score - score)
    if packing.optimal is True and not ref.exact:
        ref = Reference(score, True, f"{cell.strategy}_optimal")
    elif not ref.exact and own_bound is not None and own_bound < ref.value:
        ref = Reference(max(own_bound, score), False, f"{cell.strategy}_bound")
    return Measured(packing, sum(1 for it in inst.items if not it.pinned), budget, ref, tuple(seconds),
                    inst.groups, inst.answers, config.curve)


def _row(config: ExperimentConfig, run: Run, inst: Instance, refs: dict, provenance: Mapping[str, Any],
         code: str | None) -> dict[str, Any]:
    budget = None
    try:
        budget = _budget(run, inst)
        measured = _measure(config, run, inst, budget, refs)
    except _Skipped as exc:
        return make_row(config, run, Status.SKIPPED, str(exc), budget=budget, code=code, provenance=provenance)
    except Exception as exc:  # noqa: BLE001 - one failing run must not stop the experiment
        return make_row(config, run, Status.ERROR, f"{type(exc).__name__}: {exc}", budget=budget, code=code,
                        provenance=provenance)
    stopped = measured.packing.info.get("stopped")
    status, reason = (Status.OK, None) if stopped is None else (Status.TIMEOUT, f"stopped: {stopped}")
    return make_row(config, run, status, reason, budget=budget, measured=measured, code=code,
                    provenance=provenance)


def run_unit(config: ExperimentConfig, pu: PlannedUnit, provenance: Mapping[str, Any],
             codes: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Run the planned runs of one unit and return their rows (never raises for a failing run).

    Args:
        config: The experiment.
        pu: The unit and the runs to do.
        provenance: Fields added to every row.
        codes: Code fingerprint per strategy name (recorded in the ``code`` column).

    Returns:
        One row per planned run, in plan order.
    """
    codes = codes or {}
    unavailable = pu.unavailable
    by_key: dict[str, Instance] = {}
    if unavailable is None:
        try:
            by_key = {inst.key: inst for inst in source_registry()[pu.unit.source](**pu.unit.source_params)
                      .instances(pu.unit.seed)}
        except SOURCE_UNAVAILABLE as exc:
            unavailable = unavailable_reason(pu.unit.source, exc)
    rows = []
    refs: dict[str, dict[tuple[int, float | None], Reference]] = {}
    for run in pu.runs():
        code = codes.get(run.cell.strategy)
        if unavailable is not None:
            rows.append(make_row(config, run, Status.SKIPPED, unavailable, code=code, provenance=provenance))
        elif run.instance not in by_key:
            rows.append(make_row(config, run, Status.ERROR, f"source {pu.unit.source!r} did not yield instance "
                                 f"{run.instance!r} this time (instances must be deterministic)", code=code,
                                 provenance=provenance))
        else:
            rows.append(_row(config, run, by_key[run.instance], refs.setdefault(run.instance, {}), provenance,
                             code))
    return rows


def run_chunk(config: ExperimentConfig, provenance: Mapping[str, Any], codes: Mapping[str, str] | None,
              chunk: list[PlannedUnit]) -> list[dict[str, Any]]:
    """The rows of every unit of a chunk (what an executor runs on a worker)."""
    return [row for pu in chunk for row in run_unit(config, pu, provenance, codes)]


def run_experiment(config: ExperimentConfig, out_dir: str | Path, *, workers: int = 1,
                   executor: Executor | str | None = None, force: bool = False, progress: bool = True,
                   config_path: str | Path | None = None) -> dict[str, Any]:
    """Run (or resume) `config` into `out_dir` and write the manifest, summary and plots.

    Rows already in ``runs.jsonl`` are kept and their runs skipped; a partial
    last line left by a crash is dropped and that run redone.

    Args:
        config: The experiment.
        out_dir: Result directory (``results/<name>`` by convention).
        workers: Worker processes when `executor` is a name or None (1: serial).
        executor: An `Executor`, or "serial", "processes" or "dask"; None picks serial for one
            worker, else processes.
        force: Delete the existing rows and start over.
        progress: Show progress.
        config_path: The config file, recorded relative to the repository.

    Returns:
        The manifest.

    Raises:
        ValueError: `out_dir` holds rows of runs that are not in this config
            (use ``force`` or another directory).
    """
    from .executors import make_executor
    from .corpora import data_notes
    from .provenance import provenance as current_provenance
    from .provenance import relative_to_repo
    from .report import write_report
    from .storage import RunStore, write_atomic

    out = Path(out_dir)
    store = RunStore(out)
    if force:
        store.reset()
    planned = plan(config)
    wanted = {rid for pu in planned for rid in pu.run_ids}
    rows = store.load()
    # Rows of a source that was unavailable are redone (they fill in once the data is back).
    kept = [r for r in rows if not is_unavailable(r)]
    if len(kept) < len(rows):
        store.rewrite(kept)
    done = {row["run_id"] for row in kept}
    del rows, kept
    stale = done - wanted
    if stale:
        raise ValueError(f"{relative_to_repo(store.path)} holds {len(stale)} rows of runs that are not in "
                         f"config {config.name!r}; pass --force to start over or --out for another directory")
    pending = [p for p in (pu.pending(done) for pu in planned) if p is not None]
    if executor is None or isinstance(executor, str):
        executor = make_executor(executor or ("serial" if workers <= 1 else "processes"), workers)
    prov = current_provenance()
    manifest = {
        "experiment": config.name, "config_path": None if config_path is None else relative_to_repo(config_path),
        "config": config.model_dump(mode="json"), "reference": config.reference_name,
        "seeds": list(config.seeds), "runs_total": len(wanted), "runs_resumed": len(done),
        "runs_dropped_partial_lines": store.dropped_lines, "workers": executor.workers,
        "executor": executor.name, "provenance": prov, "data": data_notes(config), "status": "running",
    }
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    _execute(config, pending, executor, prov, store, progress)
    rows = store.load()
    counts = Counter(row["status"] for row in rows)
    manifest.update(status="complete", status_counts=dict(sorted(counts.items())),
                    finished_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    write_report(out, rows, plots=config.plot_names)
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return manifest


def _execute(config: ExperimentConfig, pending: list[PlannedUnit], executor: Executor,
             prov: Mapping[str, Any], store: Any, progress: bool) -> None:
    from tqdm import tqdm

    from .executors import chunks

    total = sum(len(pu) for pu in pending)
    bar = tqdm(total=total, unit="run", desc=config.name, file=sys.stderr,
               disable=not (progress and sys.stderr.isatty()))
    task = functools.partial(run_chunk, config, dict(prov), None)
    try:
        with executor:
            for rows in executor.map(task, chunks(pending)):
                store.append(rows)
                bar.update(len(rows))
    finally:
        bar.close()
