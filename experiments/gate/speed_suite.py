"""Benchmark cases built from an experiment config, for `packbench gate --against REF`.

Loaded by the paired benchmark's worker (``--suite-file``) on each side, so
the imports below resolve to that side's tree. The config path comes from the
``PACKBENCH_GATE_CONFIG`` environment variable and the stage timed from
``PACKBENCH_GATE_STAGE`` (see `STAGES`). One case per (source, budget,
strategy) cell, on the cell's first instance, with the cell's strategy, order,
dedupe and parameters: the stage alone, called as `pack` calls it
(`algorithms.pack.stage_calls`), so a fast strategy's change is not hidden
by dedupe and `pack`'s own work.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

CONFIG_ENV = "PACKBENCH_GATE_CONFIG"
STAGE_ENV = "PACKBENCH_GATE_STAGE"
# --stage value -> what is timed. "select" is the strategy's own code (a plain function alone).
STAGES = {"select": "the strategy's select, a plain function alone",
          "order": "the order's arrange", "fill": "the config's fill's apply (the gate refuses a config without one)",
          "dedupe": "the dedupe method on the cell's candidates", "pack": "the whole pack call"}


@dataclass(frozen=True)
class CellCase:
    """A timed cell (the fields the paired worker reads)."""

    name: str
    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    quality: Callable[[Any], dict]
    quick: bool = True
    reference: bool = False


def _no_figures(_result: Any) -> dict:
    return {}  # the speed check judges time only; quality is the gate's cells


def _call(state: Callable[[], Any]) -> Any:
    return state()


def _stage_call(stage: str, items: Any, budget: int, cell: Any, dedupe: str, fill: str | None) -> Callable[[], Any]:
    from packbench.algorithms import pack

    params = {**cell.strategy_params, **cell.order_params}
    # The config's fill, as `packbench run` passes it (`measure.py`); omitted when unset, so a side
    # whose packbench predates fills still times its other stages.
    extra = {} if fill is None else {"fill": fill}
    if stage == "pack":
        return lambda: pack(items, budget, cell.near_dup, strategy=cell.strategy, order=cell.order,
                            dedupe=dedupe, **extra, **params)
    try:
        from packbench.algorithms.pack import stage_calls
    except ImportError:
        raise RuntimeError(f"this side's packbench times no single stage (no stage_calls): use --stage pack") from None
    calls = stage_calls(items, budget, cell.near_dup, strategy=cell.strategy, order=cell.order, dedupe=dedupe,
                        **extra, **params)
    if stage not in calls:
        why = " (the config sets no `fill`)" if stage == "fill" and fill is None else ""
        raise RuntimeError(f"the cell runs no {stage} stage{why}")
    return calls[stage]


def build_suite(quick: bool) -> list[CellCase]:
    """One case per cell of the config named by ``PACKBENCH_GATE_CONFIG`` (`quick` is ignored)."""
    from packbench.experiments.config import load_config, source_registry
    from packbench.experiments.measure import budget_tokens
    from packbench.experiments.planning import plan

    config = load_config(os.environ[CONFIG_ENV])
    stage = os.environ.get(STAGE_ENV, "select")
    cases: dict[str, CellCase] = {}
    instances: dict[tuple, dict] = {}
    for pu in plan(config):
        if pu.unavailable is not None:
            continue
        for run in pu.runs():
            cell = run.cell
            name = f"{pu.unit.source} / {cell.budget} / {cell.strategy_label}"
            if name in cases:
                continue
            unit_key = (pu.unit.source, repr(pu.unit.source_params), pu.unit.seed)

            def setup(unit=pu.unit, unit_key=unit_key, instance=run.instance, cell=cell):
                if unit_key not in instances:
                    source = source_registry().lookup(unit.source)(**unit.source_params)
                    instances[unit_key] = {inst.key: inst for inst in source.instances(unit.seed)}
                inst = instances[unit_key][instance]
                return _stage_call(stage, inst.items, budget_tokens(cell.budget, inst), cell, config.dedupe,
                                   config.fill)

            cases[name] = CellCase(name, setup, _call, _no_figures)
    return list(cases.values())
