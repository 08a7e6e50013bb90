"""Sizes first: a config's runs counted without building a unit, a cell or a run id.

Seed ranges stay ranges, so `packbench run --dry-run` answers at once for 10^9 runs, and `plan` refuses
a config of more than `MAX_RUNS` runs with its count before building anything.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config.layers import source_registry
from .cells import Unit, resolved
from .sources import instance_keys

if TYPE_CHECKING:
    from ..config import ExperimentConfig

__all__ = ["PlanSize", "plan_size", "check_size", "MAX_RUNS"]

# Planned runs are held in memory (a run id and a position each) and written one row each: above this a
# config is refused with its count, before anything is built. One million runs plan in seconds.
MAX_RUNS = 10_000_000


@dataclass(frozen=True)
class PlanSize:
    """How many runs a config plans, counted without planning them.

    Attributes:
        runs: Runs in all.
        pairs: Runs per (source, strategy), in config order.
        units: Units in all (source combinations x seeds).
        counted_on: The seed whose instances were counted for each source combination (every seed of a
            combination is taken to yield as many; the families' do).
    """

    runs: int
    pairs: dict[tuple[str, str], int]
    units: int
    counted_on: int


def _grid_size(params: dict[str, list[Any]]) -> int:
    return math.prod(len(values) for values in params.values())


def plan_size(config: ExperimentConfig, sources: dict[Any, Any] | None = None) -> PlanSize:
    """The number of runs of `config`, per (source, strategy), in time independent of the number of seeds.

    Each source combination is built once and its instances counted on the first seed (a source that
    cannot be built counts one placeholder instance, as `plan` does).

    Args:
        config: The experiment.
        sources: Sources built so far (see `sources.instance_keys`); `plan` passes its own to reuse them.
    """
    registry, sources = source_registry(), {} if sources is None else sources
    seeds, first = len(config.seeds), config.seeds[0]
    points = {strategy.name: _grid_size(strategy.params) for strategy in config.strategies}
    pairs: Counter[tuple[str, str]] = Counter()
    units = 0
    for source in config.sources:
        cells = {name: n * sum(_grid_size(o.params) for o in source.orders or config.orders)
                 * len(source.budgets or config.budgets) * len(source.near_dup or config.near_dup)
                 for name, n in points.items() if name not in source.skip_strategies}
        source_kind = registry.lookup(source.name).kind
        for params in source.grid():
            unit = Unit(source.name, params, first, (), resolved("source", source.name, params), source_kind)
            n_instances = len(instance_keys(unit, sources, registry, remember=True)[0])
            units += seeds
            for name, n_cells in cells.items():
                pairs[source.name, name] += seeds * n_instances * n_cells
    return PlanSize(sum(pairs.values()), dict(pairs), units, first)


def check_size(size: PlanSize, bound: int = MAX_RUNS) -> None:
    """Refuse a plan of more than `bound` runs.

    Raises:
        ValueError: Above the bound; the message gives the count and the bound.
    """
    if size.runs > bound:
        raise ValueError(f"{size.runs:,} runs planned ({size.units:,} units), above the bound of {bound:,} runs "
                         f"one experiment may plan; split the config (fewer seeds, budgets or grid points) "
                         f"into experiments under the bound")
