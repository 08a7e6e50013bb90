"""Plan once: a config becomes units of planned runs (unit, instance key, cell, run id), computed once.

The executors and the runner work from these objects only; nothing later
rebuilds a unit's instances to find its keys or recomputes a run id. A source
that can name its instances without building them (`Source.instance_keys`)
is never built to plan; the others are built once here. A source that cannot
be built (a corpus whose data file is missing) plans one placeholder
instance, `UNAVAILABLE`, whose runs become ``skipped`` rows with the reason
(as do the runs of a source that names its keys but fails to build); resume
redoes such rows, so they fill in once the data is there.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .config import ExperimentConfig, source_registry
from .grid import Cell, RunIds, Unit, expand

__all__ = ["Run", "PlannedUnit", "plan", "UNAVAILABLE", "counts", "unavailable_reason", "is_unavailable"]

UNAVAILABLE = "unavailable"
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


def _keys(unit: Unit, sources: dict[tuple[str, int], Any], registry: Any) -> tuple[tuple[str, ...], str | None]:
    try:
        # Units of one parameter combination (one per seed) share their params: build the source once.
        cache_key = (unit.source, id(unit.source_params))
        if cache_key not in sources:
            sources[cache_key] = (unit.source_params, registry.lookup(unit.source)(**unit.source_params))
        source = sources[cache_key][1]
        keys = source.instance_keys(unit.seed)
        if keys is None:
            keys = [inst.key for inst in source.instances(unit.seed)]
        return tuple(keys), None
    except SOURCE_UNAVAILABLE as exc:
        return (UNAVAILABLE,), unavailable_reason(unit.source, exc)


def plan(config: ExperimentConfig) -> list[PlannedUnit]:
    """Every unit of `config` with all its runs, in config order."""
    ids = RunIds(config)
    registry = source_registry()
    sources: dict[tuple[str, int], Any] = {}
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
