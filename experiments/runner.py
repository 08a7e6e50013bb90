"""Run an experiment: plan the runs, execute the pending ones (serially or in processes), record rows.

Every run is one `pack` call pattern on one instance: `repeats` timed calls,
the first result measured. A strategy that raises ValueError (a refusal such as
exact_dp's memory cap, or pinned items over the budget) gives a ``skipped`` row,
any other exception an ``error`` row, both with the reason; a packing whose
info says the search was ``stopped`` gives a ``timeout`` row with its metrics.
The reference optimum for the score ratio is computed once per instance x
budget x near_dup and shared by the runs of that instance.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from packbench.algorithms import pack

from .config import ExperimentConfig, source_registry
from .grid import Cell, Unit, expand, label, run_id, run_params
from .instances import Instance
from .metrics import (Reference, answer_recall, budget_utilisation, certified_bound, duplicate_leakage,
                      positional_utility, score_ratio)

__all__ = ["PlannedUnit", "plan", "run_unit", "execute", "run_experiment", "TIMING_COLUMNS", "budget_tokens",
           "UNAVAILABLE"]

UNAVAILABLE = "unavailable"

# Columns that differ between otherwise identical runs (wall time, when they ran).
TIMING_COLUMNS = ("seconds_median", "seconds_p95", "started_at")


class _Skipped(Exception):
    """A run that cannot be done as configured (the strategy or the budget refused); not a bug."""


@dataclass(frozen=True)
class PlannedUnit:
    """A unit with the run ids of its instances that still have to run."""

    unit: Unit
    run_ids: frozenset[str]


def _unit_runs(config: ExperimentConfig, unit: Unit, instances: Iterable[Instance]):
    for inst in instances:
        for cell in unit.cells:
            yield inst, cell, run_id(run_params(config, unit, inst.key, cell))


def _instances(unit: Unit) -> tuple[list[Instance], str | None]:
    """The unit's instances, or one placeholder and the reason when the source cannot build them.

    A corpus whose data file is missing must not stop the other sources: its
    runs become ``skipped`` rows of a placeholder instance ``UNAVAILABLE``.
    """
    try:
        return list(source_registry().lookup(unit.source)(**unit.source_params).instances(unit.seed)), None
    except (OSError, ValueError, ImportError, RuntimeError) as exc:
        return [Instance(UNAVAILABLE, ())], f"source {unit.source!r} unavailable: {type(exc).__name__}: {exc}"


def plan(config: ExperimentConfig) -> list[tuple[Unit, list[str]]]:
    """Every unit of `config` with the run ids of all its runs (instances are built to list their keys)."""
    return [(unit, [rid for _, _, rid in _unit_runs(config, unit, _instances(unit)[0])]) for unit in expand(config)]


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


def _base_row(config: ExperimentConfig, unit: Unit, inst: Instance, cell: Cell, rid: str) -> dict[str, Any]:
    row: dict[str, Any] = {"experiment": config.name, "run_id": rid, "source": unit.source,
                           "source_kind": source_registry().lookup(unit.source).kind}
    row.update({f"p_{k}": v for k, v in unit.source_resolved.items()})
    row.update({"seed": unit.seed, "instance": inst.key, "strategy": cell.strategy,
                "strategy_label": label(cell.strategy, cell.strategy_params)})
    row.update({f"sp_{k}": v for k, v in cell.strategy_resolved.items()})
    row.update({"order": cell.order, "order_label": label(cell.order, cell.order_params)})
    row.update({f"op_{k}": v for k, v in cell.order_resolved.items()})
    row.update({"budget_spec": cell.budget, "budget": None, "near_dup": cell.near_dup,
                "dedupe": config.dedupe, "status": "ok", "reason": None})
    return row


def _measure(config: ExperimentConfig, inst: Instance, cell: Cell, budget: int, row: dict[str, Any],
             refs: dict[tuple[int, float | None], Reference]) -> None:
    params = {**cell.strategy_params, **cell.order_params}
    seconds = []
    packing = None
    for _ in range(config.repeats):
        start = time.perf_counter()
        try:
            result = pack(inst.items, budget, cell.near_dup, strategy=cell.strategy, order=cell.order,
                          dedupe=config.dedupe, **params)
        except ValueError as exc:  # a refusal (memory cap, pinned over budget), not a bug
            raise _Skipped(str(exc)) from None
        seconds.append(time.perf_counter() - start)
        if packing is None:
            packing = result
    chosen = [it for it in packing if not it.pinned]
    score = math.fsum(it.score for it in chosen)
    key = (budget, cell.near_dup)
    if key not in refs:
        refs[key] = _reference(config, inst, budget, cell.near_dup)
    ref = refs[key]
    pinned_score = packing.score - score
    own_bound = None if packing.upper_bound is None else packing.upper_bound - pinned_score
    if packing.optimal is True and not ref.exact:
        ref = Reference(score, True, f"{cell.strategy}_optimal")
    elif not ref.exact and own_bound is not None and own_bound < ref.value:
        ref = Reference(max(own_bound, score), False, f"{cell.strategy}_bound")
    ratio, kind = score_ratio(score, ref)
    utility, order_eff = positional_utility(chosen, config.curve)
    row.update({
        "status": "timeout" if "stopped" in packing.info else "ok",
        "reason": f"stopped: {packing.info['stopped']}" if "stopped" in packing.info else None,
        "n_candidates": sum(1 for it in inst.items if not it.pinned),
        "n_pinned": sum(1 for it in inst.items if it.pinned),
        "n_after_dedupe": sum(1 for it in inst.items if not it.pinned) - len(packing.dropped),
        "n_chosen": len(chosen), "score": score, "pinned_score": pinned_score,
        "tokens": packing.tokens, "utilisation": budget_utilisation(packing.tokens, budget),
        "optimal": packing.optimal, "upper_bound": own_bound,
        "reference": ref.value, "reference_source": ref.source, "score_ratio": ratio, "ratio_kind": kind,
        **duplicate_leakage(chosen, inst.groups),
        "utility": utility, "order_efficiency": order_eff,
        "answer_recall": answer_recall([it.id for it in chosen], inst.answers),
        "seconds_median": statistics.median(seconds), "seconds_p95": float(np.percentile(seconds, 95)),
        "chosen_ids": [it.id for it in chosen],
    })


def run_unit(config: ExperimentConfig, unit: Unit, pending: frozenset[str],
             provenance: dict[str, Any]) -> list[dict[str, Any]]:
    """Run the pending runs of one unit and return their rows (never raises for a failing run)."""
    rows = []
    instances, unavailable = _instances(unit)
    for inst in instances:
        refs: dict[tuple[int, float | None], Reference] = {}
        for cell in unit.cells:
            rid = run_id(run_params(config, unit, inst.key, cell))
            if rid not in pending:
                continue
            row = _base_row(config, unit, inst, cell, rid)
            if unavailable:
                row.update(status="skipped", reason=unavailable)
                rows.append({**row, **provenance})
                continue
            try:
                try:
                    row["budget"] = budget = budget_tokens(cell.budget, inst)
                except ValueError as exc:
                    raise _Skipped(str(exc)) from None
                _measure(config, inst, cell, budget, row, refs)
            except _Skipped as exc:
                row.update(status="skipped", reason=str(exc))
            except Exception as exc:  # noqa: BLE001 - one failing run must not stop the experiment
                row.update(status="error", reason=f"{type(exc).__name__}: {exc}")
            row.update(provenance)
            rows.append(row)
    return rows


def execute(config: ExperimentConfig, units: list[PlannedUnit], provenance: dict[str, Any],
            on_rows: Callable[[list[dict[str, Any]]], None], workers: int = 1, progress: bool = True) -> None:
    """Run `units`, handing each unit's rows to `on_rows` as soon as the unit finishes.

    Args:
        config: The experiment.
        units: Units with their pending run ids.
        provenance: Fields added to every row.
        on_rows: Called in this process with each finished unit's rows (e.g. to append them).
        workers: Processes; 1 runs in this process.
        progress: Show a tqdm bar on stderr (only when stderr is a terminal).
    """
    from tqdm import tqdm

    total = sum(len(u.run_ids) for u in units)
    bar = tqdm(total=total, unit="run", desc=config.name, file=sys.stderr,
               disable=not (progress and sys.stderr.isatty()))
    try:
        if workers <= 1:
            for pu in units:
                rows = run_unit(config, pu.unit, pu.run_ids, provenance)
                on_rows(rows)
                bar.update(len(rows))
            return
        pool = ProcessPoolExecutor(max_workers=workers)
        try:
            futures = [pool.submit(run_unit, config, pu.unit, pu.run_ids, provenance) for pu in units]
            for fut in as_completed(futures):
                rows = fut.result()
                on_rows(rows)
                bar.update(len(rows))
        except BaseException:
            # Interrupted or a worker died: keep what is written, do not wait for queued units.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    finally:
        bar.close()


def run_experiment(config: ExperimentConfig, out_dir: str | Path, *, workers: int = 1, force: bool = False,
                   progress: bool = True, config_path: str | Path | None = None) -> dict[str, Any]:
    """Run (or resume) `config` into `out_dir` and write the manifest, summary and plots.

    Rows already in ``runs.jsonl`` are kept and their runs skipped; a partial
    last line left by a crash is dropped and that run redone.

    Args:
        config: The experiment.
        out_dir: Result directory (``results/<name>`` by convention).
        workers: Processes (1: serial).
        force: Delete the existing rows and start over.
        progress: Show a progress bar on a terminal.
        config_path: The config file, recorded relative to the repository.

    Returns:
        The manifest.

    Raises:
        ValueError: `out_dir` holds rows of runs that are not in this config
            (use ``force`` or another directory).
    """
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
    wanted = {rid for _, ids in planned for rid in ids}
    rows = store.load()
    # Placeholder rows of a source that was unavailable are redone once it is back.
    kept = [r for r in rows if r["run_id"] in wanted or r.get("instance") != UNAVAILABLE]
    if len(kept) < len(rows):
        store.rewrite(kept)
    done = {row["run_id"] for row in kept}
    stale = done - wanted
    if stale:
        raise ValueError(f"{relative_to_repo(store.path)} holds {len(stale)} rows of runs that are not in "
                         f"config {config.name!r}; pass --force to start over or --out for another directory")
    pending = [PlannedUnit(unit, frozenset(set(ids) - done)) for unit, ids in planned if set(ids) - done]
    prov = current_provenance()
    manifest = {
        "experiment": config.name, "config_path": None if config_path is None else relative_to_repo(config_path),
        "config": config.model_dump(mode="json"), "reference": config.reference_name,
        "seeds": list(config.seeds), "runs_total": len(wanted), "runs_resumed": len(done),
        "runs_dropped_partial_lines": store.dropped_lines, "workers": workers, "provenance": prov,
        "data": data_notes(config),
        "status": "running",
    }
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    execute(config, pending, prov, store.append, workers=workers, progress=progress)
    rows = store.load()
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    manifest.update(status="complete", status_counts=dict(sorted(counts.items())),
                    finished_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    write_report(out, rows, plots=config.plot_names)
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return manifest
