"""Executors on this machine: serial (in the driver's process) and watched local processes (`watched`).

Serial runs every run in the driver's own process: nothing stops a run that hangs or ends the
process, so configs that import outside components run in watched processes by default (see
`commands.run`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .base import CHUNK_RUNS, Chunk, Executor, Task
from .watched import Processes

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
