"""Benchmark cases built from an experiment config, for `packbench gate --against REF`.

Loaded by the paired benchmark's worker (``--suite-file``) on each side, so
the imports below resolve to that side's tree. The config path comes from the
``PACKBENCH_GATE_CONFIG`` environment variable. One case per (source, budget,
strategy) cell: `pack` on the cell's first instance, with the cell's
strategy, order, dedupe and parameters.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

CONFIG_ENV = "PACKBENCH_GATE_CONFIG"


@dataclass(frozen=True)
class CellCase:
    """A timed cell (the fields the paired worker reads)."""

    name: str
    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    quality: Callable[[Any], dict]
    quick: bool = True
    reference: bool = False


def _quality(packing: Any) -> dict:
    return {"score": round(float(packing.score), 9), "ids": list(packing.ids)}


def build_suite(quick: bool) -> list[CellCase]:
    """One case per cell of the config named by ``PACKBENCH_GATE_CONFIG`` (`quick` is ignored)."""
    from packbench.algorithms import pack
    from packbench.experiments.config import load_config, source_registry
    from packbench.experiments.measure import budget_tokens
    from packbench.experiments.plan import plan

    config = load_config(os.environ[CONFIG_ENV])
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
                return inst.items, budget_tokens(cell.budget, inst)

            def run_cell(state, cell=cell):
                items, budget = state
                return pack(items, budget, cell.near_dup, strategy=cell.strategy, order=cell.order,
                            dedupe=config.dedupe, **{**cell.strategy_params, **cell.order_params})

            cases[name] = CellCase(name, setup, run_cell, _quality)
    return list(cases.values())
