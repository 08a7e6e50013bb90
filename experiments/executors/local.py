"""Executors on this machine: serial (in the driver's process) and a pool of local processes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from .base import CHUNK_RUNS, Chunk, Executor, Task

__all__ = ["Serial", "Processes"]


class Serial(Executor):
    """Runs every chunk in this process, in order (the reference for every other executor).

    Each unit of a chunk is handed back on its own, so an interrupted serial
    run loses at most the unit it was in.
    """

    name = "serial"

    def __init__(self, workers: int = 1, chunk_runs: int = CHUNK_RUNS) -> None:
        super().__init__(1, chunk_runs)

    def map(self, task: Task, work: Iterable[Chunk]) -> Iterator[list[dict[str, Any]]]:
        for chunk in work:
            for pu in chunk:
                yield task([pu])


class Processes(Executor):
    """A pool of `workers` local processes, with at most twice that many chunks in flight."""

    name = "processes"

    def __init__(self, workers: int = 1, chunk_runs: int = CHUNK_RUNS) -> None:
        super().__init__(workers, chunk_runs)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, task: Task, work: Iterable[Chunk]) -> Iterator[list[dict[str, Any]]]:
        self._pool = self._pool or ProcessPoolExecutor(max_workers=self.workers)
        queue = iter(work)
        inflight: set[Future] = set()
        try:
            while True:
                for chunk in queue:
                    inflight.add(self._pool.submit(task, chunk))
                    if len(inflight) >= 2 * self.workers:
                        break
                if not inflight:
                    return
                done, inflight = wait(inflight, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        except BaseException:
            # Interrupted or a worker died: keep what is written, do not wait for queued chunks.
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
