"""The executor interface: run chunks of planned units somewhere, hand their rows back to the driver.

An executor only computes rows. The driver (`runner.run_experiment`) alone
writes them, so every executor gets the same crash safety: a chunk's rows
reach ``runs.jsonl`` after the chunk finishes, and a chunk that is lost (a
worker killed, the driver interrupted) is simply not written and is redone on
resume or, by Dask, on another worker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar

from ..plan import PlannedUnit

__all__ = ["Executor", "Chunk", "Task", "chunks", "CHUNK_RUNS"]

Chunk = list[PlannedUnit]
Task = Callable[[Chunk], list[dict[str, Any]]]

# Runs per chunk. Fixed, not derived from the number of workers, so that how a sweep is cut (and so
# what each chunk recomputes, such as its references) is the same with any executor.
CHUNK_RUNS = 256


def chunks(units: Iterable[PlannedUnit], size: int = CHUNK_RUNS) -> Iterator[Chunk]:
    """Group units into chunks of about `size` runs; a larger unit is cut into pieces of `size` runs.

    A piece of a unit builds that unit's instances again; for the synthetic
    families that is far cheaper than its runs.
    """
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    chunk: Chunk = []
    held = 0
    for pu in units:
        todo = tuple(range(len(pu.run_ids))) if pu.todo is None else pu.todo
        if len(todo) > size:
            if chunk:
                yield chunk
                chunk, held = [], 0
            for start in range(0, len(todo), size):
                yield [PlannedUnit(pu.unit, pu.instances, pu.run_ids, pu.unavailable, todo[start:start + size])]
            continue
        if held + len(todo) > size and chunk:
            yield chunk
            chunk, held = [], 0
        chunk.append(pu)
        held += len(todo)
    if chunk:
        yield chunk


class Executor:
    """Base class: `map` runs a task on chunks and yields each chunk's rows as soon as it finishes.

    Subclasses declare `name` and implement `map`; an executor is a context
    manager that releases its workers on exit.

    Args:
        workers: Parallel workers (processes or Dask workers); ignored by serial.
        chunk_runs: Runs per chunk (see `chunks`).
    """

    name: ClassVar[str] = ""

    def __init__(self, workers: int = 1, chunk_runs: int = CHUNK_RUNS) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        if isinstance(chunk_runs, bool) or not isinstance(chunk_runs, int) or chunk_runs < 1:
            raise ValueError(f"chunk_runs must be an int >= 1, got {chunk_runs!r}")
        self.workers = workers
        self.chunk_runs = chunk_runs

    def map(self, task: Task, work: Iterable[Chunk]) -> Iterator[list[dict[str, Any]]]:
        """Run `task` on every chunk of `work`, yielding results in completion order.

        At most a bounded number of chunks is in flight, so a million-run sweep
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
