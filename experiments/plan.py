"""Plan once: a config becomes units of planned runs (unit, instance key, cell, run id), computed once.

The executors and the runner work from these objects only; nothing later
rebuilds a unit's instances to find its keys or recomputes a run id. A source
that can name its instances without building them (`Source.instance_keys`)
is never built to plan; the others are built once here. A source that cannot
be built (a corpus whose data file is missing) plans one placeholder
instance, `UNAVAILABLE`, whose runs become ``skipped`` rows with the reason
(as do the runs of a source that names its keys but fails to build); resume
redoes such rows, so they fill in once the data is there.

Sizes first: `plan_size` counts a config's runs without building a unit, a cell or a run id (seed ranges
stay ranges), so `packbench run --dry-run` answers at once for 10^9 runs, and `plan` refuses a config of
more than `MAX_RUNS` runs with its count before building anything.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .config import ExperimentConfig, source_registry
from .grid import Cell, RunIds, Unit, expand, resolved

__all__ = ["Run", "PlannedUnit", "plan", "UNAVAILABLE", "counts", "unavailable_reason", "is_unavailable",
           "PlanSize", "plan_size", "check_size", "MAX_RUNS"]

UNAVAILABLE = "unavailable"
# Planned runs are held in memory (a run id and a position each) and written one row each: above this a
# config is refused with its count, before anything is built. One million runs plan in seconds.
MAX_RUNS = 10_000_000
# What building a source raises when its data cannot be had (missing file, missing extra, bad download).
SOURCE_UNAVAILABLE = (OSError, ValueError, ImportError, RuntimeError)


def unavailable_reason(source: str, exc: BaseException) -> str:
    """The ``reason`` of a run skipped because its source could not be built."""
    return f"source {source!r} unavailable: {type(exc).__name__}: {exc}"


def is_unavailable(row: dict) -> bool:
    """Whether a stored row was skipped because its source was unavailable (resume redoes those)."""
    reason = row.get("reason") or ""
    return row.get("status") == "skipped" and (
        row.get("instance") == UNAVAILABLE or reason.startswith(f"source {row.get('source')!r} unavailable: "))


class Run(NamedTuple):
    """One planned run."""

    unit: Unit
    instance: str
    cell: Cell
    run_id: str


@dataclass(frozen=True)
class PlannedUnit:
    """A unit with its instance keys and the run id of every (instance, cell), row-major.

    Attributes:
        unit: The unit.
        instances: Instance keys in the order the source yields them.
        run_ids: ``run_ids[i * len(unit.cells) + c]`` is the run of instance i and cell c.
        unavailable: Why the source could not be built, or None.
        todo: Positions in `run_ids` still to run (None: all of them).
    """

    unit: Unit
    instances: tuple[str, ...]
    run_ids: tuple[str, ...]
    unavailable: str | None = None
    todo: tuple[int, ...] | None = None

    def __len__(self) -> int:
        return len(self.run_ids) if self.todo is None else len(self.todo)

    def runs(self) -> Iterator[Run]:
        """The runs to do, instance by instance."""
        n = len(self.unit.cells)
        for pos in range(len(self.run_ids)) if self.todo is None else self.todo:
            yield Run(self.unit, self.instances[pos // n], self.unit.cells[pos % n], self.run_ids[pos])

    def pending(self, done: set[str] | frozenset[str]) -> PlannedUnit | None:
        """This unit without the runs in `done` (None when nothing is left)."""
        todo = tuple(pos for pos, rid in enumerate(self.run_ids) if rid not in done)
        if not todo:
            return None
        return self if len(todo) == len(self.run_ids) else replace(self, todo=todo)


def _keys(unit: Unit, sources: dict[Any, Any], registry: Any,
          remember: bool = False) -> tuple[tuple[str, ...], str | None]:
    """The instance keys of `unit` (or the placeholder and the reason its source is unavailable).

    Units of one parameter combination (one per seed) share their params, so `sources` keeps the source
    built once per combination; with `remember` it also keeps the keys found (`plan_size` counts the
    first seed's, and `plan` then reuses them instead of naming those instances again).
    """
    combo = (unit.source, json.dumps(dict(unit.source_resolved), sort_keys=True))
    if (combo, unit.seed) in sources:
        return sources[combo, unit.seed]
    try:
        if combo not in sources:
            sources[combo] = registry.lookup(unit.source)(**unit.source_params)
        keys = sources[combo].instance_keys(unit.seed)
        if keys is None:
            keys = [inst.key for inst in sources[combo].instances(unit.seed)]
        found: tuple[tuple[str, ...], str | None] = (tuple(keys), None)
    except SOURCE_UNAVAILABLE as exc:
        found = ((UNAVAILABLE,), unavailable_reason(unit.source, exc))
    if remember:
        sources[combo, unit.seed] = found
    return found


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
    """
    registry, sources = source_registry(), {} if sources is None else sources
    seeds, first = len(config.seeds), config.seeds[0]
    pairs: Counter[tuple[str, str]] = Counter()
    units = 0
    for source in config.sources:
        cells_per_strategy = sum(_grid_size(o.params) for o in source.orders or config.orders) * \
            len(source.budgets or config.budgets) * len(source.near_dup or config.near_dup)
        source_kind = registry.lookup(source.name).kind
        for params in source.grid():
            unit = Unit(source.name, params, first, (), resolved("source", source.name, params), source_kind)
            n_instances = len(_keys(unit, sources, registry, remember=True)[0])
            units += seeds
            for strategy in config.strategies:
                if strategy.name not in source.skip_strategies:
                    pairs[source.name, strategy.name] += seeds * n_instances * _grid_size(strategy.params) * \
                        cells_per_strategy
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


def plan(config: ExperimentConfig, bound: int = MAX_RUNS) -> list[PlannedUnit]:
    """Every unit of `config` with all its runs, in config order.

    Raises:
        ValueError: More than `bound` runs (counted first, before anything is built; see `check_size`).
    """
    sources: dict[Any, Any] = {}
    check_size(plan_size(config, sources), bound)
    ids = RunIds(config)
    registry = source_registry()
    planned = []
    for unit in expand(config):
        keys, unavailable = _keys(unit, sources, registry)
        templates = ids.templates(unit)
        make = RunIds.make_encoded
        run_ids = tuple(make(t, key_json) for key_json in map(json.dumps, keys) for t in templates)
        planned.append(PlannedUnit(unit, keys, run_ids, unavailable))
    return planned


def counts(units: Iterable[PlannedUnit]) -> Counter[tuple[str, str]]:
    """Runs per (source, strategy) of `units` (their pending runs)."""
    out: Counter[tuple[str, str]] = Counter()
    for pu in units:
        n = len(pu.unit.cells)
        for pos in range(len(pu.run_ids)) if pu.todo is None else pu.todo:
            out[pu.unit.source, pu.unit.cells[pos % n].strategy] += 1
    return out
