"""Dask distributed: a `LocalCluster` sized to this machine, or an existing cluster at a scheduler address.

Workers need packbench installed (the same version as the driver). Dask is an
extra: ``pip install 'packbench[dask]'``. Chunks are submitted with a bounded
number in flight; a chunk whose worker dies is rescheduled by Dask on another
worker (its rows were never written, so none is lost or duplicated).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from .base import CHUNK_RUNS, Chunk, Executor, Task

__all__ = ["DaskExecutor", "import_distributed"]


def import_distributed() -> Any:
    """The `distributed` module, or an ImportError naming the extra to install."""
    try:
        import distributed
    except ImportError as exc:
        raise ImportError("the Dask executor needs Dask distributed: pip install 'packbench[dask]'") from exc
    return distributed


class DaskExecutor(Executor):
    """Run chunks on a Dask cluster.

    Args:
        workers: Worker processes of the local cluster (ignored with `scheduler`).
        scheduler: Address of a running scheduler, e.g. ``tcp://10.0.0.5:8786``; None starts a
            `distributed.LocalCluster` with `workers` single-threaded worker processes.
        inflight: Chunks in flight at once (default: twice the cluster's worker threads).
        chunk_runs: Runs per chunk.

    Raises:
        ImportError: Dask distributed is not installed (the message names the extra).
    """

    name = "dask"

    def __init__(self, workers: int = 1, scheduler: str | None = None, inflight: int | None = None,
                 chunk_runs: int = CHUNK_RUNS) -> None:
        super().__init__(workers, chunk_runs)
        self.scheduler = scheduler
        self._inflight = inflight
        self._cluster = None
        self._client = None
        import_distributed()

    @property
    def client(self) -> Any:
        """The connected `distributed.Client` (the cluster is started on first use)."""
        if self._client is None:
            distributed = import_distributed()
            if self.scheduler is None:
                self._cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                                         processes=True, dashboard_address=None)
                self._client = distributed.Client(self._cluster)
            else:
                self._client = distributed.Client(self.scheduler)
        return self._client

    def describe(self) -> str:
        where = self.scheduler or "LocalCluster"
        return f"dask ({where}, {self.workers if self.scheduler is None else 'cluster'} workers)"

    def map(self, task: Task, work: Iterable[Chunk]) -> Iterator[list[dict[str, Any]]]:
        distributed = import_distributed()
        client = self.client
        threads = sum(client.nthreads().values()) or self.workers
        limit = self._inflight or 2 * threads
        queue = iter(work)
        pending = distributed.as_completed()
        n = 0
        try:
            for chunk in queue:
                # pure=False: two chunks with equal arguments are still two tasks.
                pending.add(client.submit(task, chunk, pure=False))
                n += 1
                if n >= limit:
                    break
            for fut in pending:
                rows = fut.result()
                fut.release()
                yield rows
                for chunk in queue:
                    pending.add(client.submit(task, chunk, pure=False))
                    break
        except BaseException:
            for fut in list(pending.futures):
                fut.cancel()
            raise

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
