"""Measure planned runs: what a worker does with a batch of units (the driver is `runner`).

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

import math
import time
from collections.abc import Mapping
from typing import Any

from packbench.algorithms import STRATEGIES, pack
from packbench.algorithms.strategies.base import Refused

from .calibration import time_reference
from .config import ExperimentConfig, source_registry
from .instances import Instance
from .metrics import Measured, Optimum, certified_bound
from .planning.codes import cell_code
from .planning.runs import PlannedUnit, Run
from .planning.sources import SOURCE_UNAVAILABLE, unavailable_reason
from .schema import Status, make_row

__all__ = ["run_unit", "unit_instances", "unit_rows", "run_batch", "budget_tokens", "STAGE_COLUMNS",
           "REFERENCE_COLUMN"]

# Row column -> `Packing.stages` key: median CPU seconds of each stage over the run's repeated calls
# (None where the stage did not run, e.g. no fill, or the run was not measured).
STAGE_COLUMNS = {"cpu_dedupe_s": "dedupe", "cpu_select_s": "select", "cpu_order_s": "order",
                 "cpu_fill_s": "fill", "cpu_pack_s": "pack"}
# The least CPU seconds of the reference workload timed before each of the run's calls (`calibration`).
REFERENCE_COLUMN = "cpu_reference_s"


def _stage_medians(packings: list[Any]) -> dict[str, float | None]:
    """The `STAGE_COLUMNS` of a run from its repeated calls' `Packing.stages`."""
    out: dict[str, float | None] = {}
    for column, stage in STAGE_COLUMNS.items():
        values = sorted(p.stages[stage] for p in packings if stage in p.stages)
        out[column] = values[len(values) // 2] if values else None
    return out


def _with_stages(row: dict[str, Any], stages: Mapping[str, float | None] | None = None) -> dict[str, Any]:
    row.update(stages or dict.fromkeys((*STAGE_COLUMNS, REFERENCE_COLUMN)))
    return row


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


def _reference(config: ExperimentConfig, inst: Instance, budget: int, near_dup: float | None) -> Optimum:
    """The reference optimum (or a certified bound when the reference cannot prove one)."""
    name = config.reference_name
    pinned_score = math.fsum(it.score for it in inst.items if it.pinned)
    try:
        ref = pack(inst.items, budget, near_dup, strategy=name, dedupe=config.dedupe, **config.reference_params)
    except (ValueError, RuntimeError, MemoryError):
        return Optimum(certified_bound(inst.items, budget, near_dup, config.dedupe), False, "dantzig_bound")
    if ref.optimal is True:
        return Optimum(ref.score - pinned_score, True, name)
    bound = certified_bound(inst.items, budget, near_dup, config.dedupe)
    if ref.upper_bound is not None:
        bound = min(bound, ref.upper_bound - pinned_score)
    return Optimum(bound, False, f"{name}_bound")


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
             refs: dict[tuple[int, float | None], Optimum]) -> tuple[Measured, dict[str, float | None]]:
    cell = run.cell
    params = {**cell.strategy_params, **cell.order_params}
    seconds, cpu, packings, reference = [], [], [], []
    packing = None
    warm_up = getattr(STRATEGIES.get(cell.strategy), "warm_up", None)
    if warm_up is not None:
        warm_up()  # compiled kernels load (or compile) here, not inside the timed calls
    for _ in range(config.repeats):
        # CPU time beside wall time: a busy machine stretches the wall clock, not the process's CPU time,
        # so the report's latency classes (and the decision they feed) rest on CPU time, in units of the
        # reference workload timed here, interleaved, in this worker: the factor load puts on both cancels.
        reference.append(time_reference())
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            result = pack(inst.items, budget, cell.near_dup, strategy=cell.strategy, order=cell.order,
                          dedupe=config.dedupe, fill=config.fill, **params)
        except Refused as exc:
            raise _Skipped(str(exc)) from None
        cpu.append(time.process_time() - start_cpu)
        seconds.append(time.perf_counter() - start)
        packings.append(result)
        if packing is None:
            packing = result
    score = math.fsum(it.score for it in packing if not it.pinned)
    key = (budget, cell.near_dup)
    if key not in refs:
        refs[key] = _reference(config, inst, budget, cell.near_dup)
    ref = refs[key]
    own_bound = None if packing.upper_bound is None else packing.upper_bound - (packing.score - score)
    if packing.optimal is True and not ref.proven:
        ref = Optimum(score, True, f"{cell.strategy}_optimal")
    elif not ref.proven and own_bound is not None and own_bound < ref.value:
        ref = Optimum(max(own_bound, score), False, f"{cell.strategy}_bound")
    return Measured(packing, sum(1 for it in inst.items if not it.pinned), budget, ref, tuple(seconds),
                    inst.groups, inst.answers, config.curve, cpu_seconds=tuple(cpu)), \
        {**_stage_medians(packings), REFERENCE_COLUMN: min(reference)}


def _row(config: ExperimentConfig, run: Run, inst: Instance, refs: dict, provenance: Mapping[str, Any],
         code: str | None) -> dict[str, Any]:
    budget = None
    try:
        budget = _budget(run, inst)
        measured, stages = _measure(config, run, inst, budget, refs)
    except _Skipped as exc:
        return _with_stages(make_row(config, run, Status.SKIPPED, str(exc), budget=budget, code=code,
                                     provenance=provenance))
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failing run (sys.exit too) must not stop the sweep
        return _with_stages(make_row(config, run, Status.ERROR, f"{type(exc).__name__}: {exc}", budget=budget,
                                     code=code, provenance=provenance))
    stopped = measured.packing.info.get("stopped")
    status, reason = (Status.OK, None) if stopped is None else (Status.TIMEOUT, f"stopped: {stopped}")
    return _with_stages(make_row(config, run, status, reason, budget=budget, measured=measured, code=code,
                                 provenance=provenance), stages)


def unit_instances(pu: PlannedUnit) -> tuple[dict[str, Instance], str | None]:
    """The instances of a unit's source by key, or why the source is unavailable (then no instances)."""
    if pu.unavailable is not None:
        return {}, pu.unavailable
    try:
        return {inst.key: inst for inst in source_registry().lookup(pu.unit.source)(**pu.unit.source_params)
                .instances(pu.unit.seed)}, None
    except SOURCE_UNAVAILABLE as exc:
        return {}, unavailable_reason(pu.unit.source, exc)


def unit_rows(config: ExperimentConfig, pu: PlannedUnit, by_key: Mapping[str, Instance], unavailable: str | None,
              refs: dict[str, dict], provenance: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a unit's planned runs on instances already built (`unit_instances`).

    `refs` holds the reference optima per instance key; runs of one instance share them.
    """
    rows = []
    codes: dict[int, str] = {}  # per cell: looking the components up per row would cost more than some runs
    for run in pu.runs():
        if id(run.cell) not in codes:
            codes[id(run.cell)] = cell_code(run.cell, pu.unit.source, config)
        code = codes[id(run.cell)]
        if unavailable is not None:
            rows.append(_with_stages(make_row(config, run, Status.SKIPPED, unavailable, code=code,
                                              provenance=provenance)))
        elif run.instance not in by_key:
            rows.append(_with_stages(make_row(
                config, run, Status.ERROR, f"source {pu.unit.source!r} did not yield instance {run.instance!r} "
                f"this time (instances must be deterministic)", code=code, provenance=provenance)))
        else:
            rows.append(_row(config, run, by_key[run.instance], refs.setdefault(run.instance, {}), provenance,
                             code))
    return rows


def run_unit(config: ExperimentConfig, pu: PlannedUnit, provenance: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Run the planned runs of one unit and return their rows (never raises for a failing run).

    Args:
        config: The experiment.
        pu: The unit and the runs to do.
        provenance: Fields added to every row.

    Returns:
        One row per planned run, in plan order, each with the fingerprint of the code that ran it
        (computed here, on the worker).
    """
    by_key, unavailable = unit_instances(pu)
    return unit_rows(config, pu, by_key, unavailable, {}, provenance)


def run_batch(config: ExperimentConfig, provenance: Mapping[str, Any],
              batch: list[PlannedUnit]) -> list[dict[str, Any]]:
    """The rows of every unit of a batch (what an executor runs on a worker)."""
    return [row for pu in batch for row in run_unit(config, pu, provenance)]

