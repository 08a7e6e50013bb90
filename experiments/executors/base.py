"""The executor interface: run batches of planned units somewhere, hand their rows back to the driver.

An executor only computes rows. The driver (`runner.run_experiment`) alone
writes them, so every executor gets the same crash safety: a batch's rows
reach ``runs.jsonl`` after the batch finishes, and a batch that is lost (a
worker killed, the driver interrupted) is simply not written and is redone on
resume or, by Dask, on another worker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

from ..planning.runs import PlannedUnit

__all__ = ["Executor", "Batch", "Task", "batches", "BATCH_RUNS"]

Batch = list[PlannedUnit]
Task = Callable[[Batch], list[dict[str, Any]]]

# Runs per batch. Fixed, not derived from the number of workers, so that how a sweep is cut (and so
# what each batch recomputes, such as its references) is the same with any executor.
BATCH_RUNS = 256


def batches(units: Iterable[PlannedUnit], size: int = BATCH_RUNS) -> Iterator[Batch]:
    """Group units into batches of about `size` runs; a larger unit is cut into pieces of `size` runs.

    A piece of a unit builds that unit's instances again; for the synthetic
    families that is far cheaper than its runs.
    """
    if size < 1:
        raise ValueError(f"batch size must be >= 1, got {size}")
    batch: Batch = []
    held = 0
    for pu in units:
        todo = tuple(range(len(pu.run_ids))) if pu.todo is None else pu.todo
        if len(todo) > size:
            if batch:
                yield batch
                batch, held = [], 0
            for start in range(0, len(todo), size):
                yield [PlannedUnit(pu.unit, pu.instances, pu.run_ids, pu.unavailable, todo[start:start + size])]
            continue
        if held + len(todo) > size and batch:
            yield batch
            batch, held = [], 0
        batch.append(pu)
        held += len(todo)
    if batch:
        yield batch


class Executor:
    """Base class: `map` runs a task on batches and yields each batch's rows as soon as it finishes.

    Subclasses declare `name` and implement `map`; an executor is a context
    manager that releases its workers on exit.

    Args:
        workers: Parallel workers (processes or Dask workers); ignored by serial.
        batch_runs: Runs per batch (see `batches`).
    """

    name: ClassVar[str] = ""

    def __init__(self, workers: int = 1, batch_runs: int = BATCH_RUNS) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        if isinstance(batch_runs, bool) or not isinstance(batch_runs, int) or batch_runs < 1:
            raise ValueError(f"batch_runs must be an int >= 1, got {batch_runs!r}")
        self.workers = workers
        self.batch_runs = batch_runs

    def map(self, task: Task, work: Iterable[Batch]) -> Iterator[list[dict[str, Any]]]:
        """Run `task` on every batch of `work`, yielding results in completion order.

        At most a bounded number of batches is in flight, so a million-run sweep
        is never submitted at once.
        """
        raise NotImplementedError

    def describe(self) -> str:
        """A short description for the console and the manifest."""
        return f"{self.name} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def close(self) -> None:
        """Release the workers."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
