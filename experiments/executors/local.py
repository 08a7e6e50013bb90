"""Executors on this machine: serial (in the driver's process) and watched local processes (`watched`).

Serial runs every run in the driver's own process: nothing stops a run that hangs or ends the
process, so configs that import outside components run in watched processes by default (see
`commands.run`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .base import BATCH_RUNS, Batch, Executor, Task
from .watched import Processes

__all__ = ["Serial", "Processes"]


class Serial(Executor):
    """Runs every batch in this process, in order (the reference for every other executor).

    Each unit of a batch is handed back on its own, so an interrupted serial
    run loses at most the unit it was in.
    """

    name = "serial"

    def __init__(self, workers: int = 1, batch_runs: int = BATCH_RUNS) -> None:
        super().__init__(1, batch_runs)

    def map(self, task: Task, work: Iterable[Batch]) -> Iterator[list[dict[str, Any]]]:
        for batch in work:
            for pu in batch:
                yield task([pu])
