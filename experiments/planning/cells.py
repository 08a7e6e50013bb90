"""Cells and units: what one run does with an instance, and the instances it does it on.

A *unit* is one source (family or corpus) with one parameter combination and one seed: the instances
it yields are built once per unit. A *cell* is one strategy/order/budget/near_dup combination. A run is
(unit, instance, cell); `ids` gives it a stable id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config.layers import registry

if TYPE_CHECKING:
    from ..config import ExperimentConfig

__all__ = ["Cell", "Unit", "expand", "resolved", "label", "jsonable"]


@dataclass(frozen=True)
class Cell:
    """What a run does with an instance.

    Attributes:
        strategy: Strategy name.
        strategy_params: Its parameters (one grid point).
        order: Order name.
        order_params: Its parameters (one grid point).
        budget: Tokens (int), share of the instance's tokens (float) or "natural".
        near_dup: Dedupe threshold, or None for no dedupe.
        strategy_resolved: `strategy_params` with the defaults filled in (see `resolved`).
        order_resolved: `order_params` with the defaults filled in.
    """

    strategy: str
    strategy_params: Mapping[str, Any]
    order: str
    order_params: Mapping[str, Any]
    budget: int | float | str
    near_dup: float | None
    strategy_resolved: Mapping[str, Any]
    order_resolved: Mapping[str, Any]

    @property
    def strategy_label(self) -> str:
        return label(self.strategy, self.strategy_params)

    @property
    def order_label(self) -> str:
        return label(self.order, self.order_params)


@dataclass(frozen=True)
class Unit:
    """One source parameter combination and seed, with every cell to run on its instances.

    ``source_resolved`` holds `source_params` with the defaults filled in; ``source_kind`` is the
    source's layer, `Source.kind`: "family" (synthetic) or "corpus" (real data).
    """

    source: str
    source_params: Mapping[str, Any]
    seed: int
    cells: tuple[Cell, ...]
    source_resolved: Mapping[str, Any]
    source_kind: str = "family"


def expand(config: ExperimentConfig) -> list[Unit]:
    """The units of `config`, in config order (sources x their grid x seeds).

    A unit's cells are strategies x their grid x orders x their grid x budgets x near_dup, with the
    source's own budgets, near_dup and orders when it overrides the experiment's, and without its
    `skip_strategies`.
    """
    units = []
    for source in config.sources:
        orders = source.orders or config.orders
        cells = tuple(
            Cell(strategy.name, sp, order.name, op, budget, None if near_dup == "off" else near_dup,
                 resolved("strategy", strategy.name, sp), resolved("order", order.name, op))
            for strategy in config.strategies if strategy.name not in source.skip_strategies
            for sp in strategy.grid()
            for order in orders for op in order.grid()
            for budget in source.budgets or config.budgets for near_dup in source.near_dup or config.near_dup)
        # Building a source can be slow (a corpus checks its tokenizer), so resolve once per combination.
        source_kind = registry("source").lookup(source.name).kind
        for params in source.grid():
            full = resolved("source", source.name, params)
            units += [Unit(source.name, params, seed, cells, full, source_kind) for seed in config.seeds]
    return units


def jsonable(value: Any) -> Any:
    """`value` as JSON can hold it; anything else (e.g. a callable default) by its repr, so it still counts."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return repr(value)


def resolved(layer: str, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of a source, strategy or order with its defaults filled in, JSON-able.

    Run ids and rows use these, so changing a default in the code changes the ids of the runs it
    affects instead of silently reusing old rows.
    """
    return {k: jsonable(v) for k, v in sorted(registry(layer).lookup(name)(**params).params.items())}


def label(name: str, params: Mapping[str, Any]) -> str:
    """A readable name for a parameterised entry, e.g. ``cpsat(time_limit=0.5)``."""
    if not params:
        return name
    inner = ",".join(f"{k}={json.dumps(v) if isinstance(v, (list, tuple)) else v}" for k, v in sorted(params.items()))
    return f"{name}({inner})"
