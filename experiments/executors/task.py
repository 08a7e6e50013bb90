"""What an executor runs: the rows of a batch, whole or run by run with events a watchdog can follow."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..planning.runs import PlannedUnit, Run

__all__ = ["BatchTask", "single_runs"]


def single_runs(pu: PlannedUnit) -> Iterator[tuple[PlannedUnit, Run]]:
    """Each planned run of `pu` as a unit of that one run (same unit, same instances)."""
    todo = tuple(range(len(pu.run_ids))) if pu.todo is None else pu.todo
    for pos, run in zip(todo, pu.runs()):
        yield PlannedUnit(pu.unit, pu.instances, pu.run_ids, pu.unavailable, (pos,)), run


class BatchTask:
    """The runs of an experiment's batches (picklable: it travels to worker processes).

    Calling it returns a batch's rows; `events` yields them run by run, each run announced before it
    starts, so a watchdog knows which run a worker is in when it hangs or dies.

    Args:
        config: The experiment.
        provenance: Fields added to every row.
    """

    def __init__(self, config: Any, provenance: Mapping[str, Any]) -> None:
        self.config = config
        self.provenance = dict(provenance)

    def __call__(self, batch: Sequence[PlannedUnit]) -> list[dict[str, Any]]:
        from ..measure import run_batch

        return run_batch(self.config, self.provenance, list(batch))

    def events(self, batch: Sequence[PlannedUnit]) -> Iterator[tuple[str, Any]]:
        """``("source", run ids)`` before a unit's instances are built, ``("run", run id)`` before a
        run, ``("row", row)`` after it (the same rows as calling the task, in the same order)."""
        from ..measure import unit_instances, unit_rows

        for pu in batch:
            yield "source", tuple(run.run_id for run in pu.runs())
            by_key, unavailable = unit_instances(pu)
            refs: dict[str, dict] = {}  # the reference optima, shared by the runs of an instance
            for single, run in single_runs(pu):
                yield "run", run.run_id
                yield "row", unit_rows(self.config, single, by_key, unavailable, refs, self.provenance)[0]

    def failed_row(self, run: Run, reason: str) -> dict[str, Any]:
        """The ``error`` row of a run whose worker died or was stopped (made by the driver)."""
        from ..planning.codes import cell_code
        from ..schema import Status, make_row

        return make_row(self.config, run, Status.ERROR, reason, code=cell_code(run.cell, run.unit.source, self.config),
                        provenance=self.provenance)

    @staticmethod
    def component(run: Run) -> str:
        """The components a run executes, for messages."""
        cell = run.cell
        return f"strategy {cell.strategy!r} (order {cell.order!r}, source {run.unit.source!r})"
