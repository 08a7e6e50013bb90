"""Plan once: a config becomes units of planned runs (unit, instance key, cell, run id), computed once.

The executors and the runner work from these objects only; nothing later rebuilds a unit's instances to
find its keys or recomputes a run id.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from ..config.layers import source_registry
from .cells import Cell, Unit, expand
from .ids import RunIds
from .sizes import MAX_RUNS, check_size, plan_size
from .sources import instance_keys

if TYPE_CHECKING:
    from ..config import ExperimentConfig

__all__ = ["Run", "PlannedUnit", "plan", "counts"]


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


def plan(config: ExperimentConfig, bound: int = MAX_RUNS) -> list[PlannedUnit]:
    """Every unit of `config` with all its runs, in config order.

    Raises:
        ValueError: More than `bound` runs (counted first, before anything is built; see `check_size`).
    """
    sources: dict[Any, Any] = {}  # built while counting, reused here
    check_size(plan_size(config, sources), bound)
    registry = source_registry()
    units = expand(config)
    ids = RunIds(config)
    planned = []
    for unit in units:
        templates = ids.templates(unit)
        keys, unavailable = instance_keys(unit, sources, registry)
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
