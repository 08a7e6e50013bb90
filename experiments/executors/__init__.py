"""Where the runs of an experiment execute: serially, in local processes, or on a Dask cluster.

`make_executor(name, workers, scheduler)` builds one; every executor yields
rows to the driver, which alone writes them (see `base`).
"""

from __future__ import annotations

from .base import BATCH_RUNS, Batch, Executor, batches
from .local import Processes, Serial
from .task import BatchTask
from .watched import RUN_TIMEOUT

__all__ = ["Executor", "Serial", "Processes", "EXECUTORS", "make_executor", "batches", "Batch", "BATCH_RUNS",
           "BatchTask", "RUN_TIMEOUT"]

EXECUTORS = ("serial", "processes", "dask")


def make_executor(name: str, workers: int = 1, scheduler: str | None = None,
                  run_timeout: float = RUN_TIMEOUT) -> Executor:
    """The executor called `name`.

    Args:
        name: "serial", "processes" or "dask".
        workers: Worker processes (processes, Dask LocalCluster).
        scheduler: Dask scheduler address (only with "dask").
        run_timeout: Seconds of wall time a run may take in a watched worker ("processes") before the
            worker is killed and the run recorded as an ``error`` row.

    Raises:
        ValueError: Unknown name, workers < 1, or a scheduler for a local executor.
        ImportError: "dask" without Dask installed (the message names the extra).
    """
    if name not in EXECUTORS:
        raise ValueError(f"unknown executor {name!r}; valid: {', '.join(EXECUTORS)}")
    if scheduler is not None and name != "dask":
        raise ValueError(f"--scheduler is only for --executor dask, not {name!r}")
    if name == "dask":
        from .dask import DaskExecutor  # lazy: Dask is an extra
        return DaskExecutor(workers, scheduler)
    return Serial() if name == "serial" else Processes(workers, run_timeout=run_timeout)
