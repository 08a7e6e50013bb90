"""Dask distributed: a `LocalCluster` sized to this machine, or an existing cluster at a scheduler address.

Workers need packbench installed (the same version as the driver). Dask is an
extra: ``pip install 'packbench[dask]'``. Batches are submitted with a bounded
number in flight; a batch whose worker dies is rescheduled by Dask on another
worker (its rows were never written, so none is lost or duplicated).

A lost cluster ends the run with `ClusterLost` (exit 2, one line) instead of a
wait without end: a scheduler that does not complete the handshake within
`CONNECT_TIMEOUT` seconds (an address that accepts TCP and never answers), a
scheduler that goes away mid-run, or a cluster left without any worker for
`LOST_AFTER` seconds. The rows written before stay; rerunning resumes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import CancelledError
from typing import Any

from .base import BATCH_RUNS, Batch, Executor, Task

__all__ = ["DaskExecutor", "import_distributed", "ClusterLost", "CONNECT_TIMEOUT", "LOST_AFTER"]

# Seconds to connect to a scheduler (TCP and Dask's handshake) before giving up.
CONNECT_TIMEOUT = 20.0
# Seconds a cluster may have no worker at all (and so make no progress) before the run gives up.
LOST_AFTER = 60.0
# How often the driver looks at the cluster while no batch finishes.
_POLL = 1.0


class ClusterLost(ConnectionError):
    """The Dask cluster cannot go on: no scheduler, or no worker for too long (rows written stay)."""


def import_distributed() -> Any:
    """The `distributed` module, or an ImportError naming the extra to install."""
    try:
        import distributed
    except ImportError as exc:
        raise ImportError("the Dask executor needs Dask distributed: pip install 'packbench[dask]'") from exc
    return distributed


class DaskExecutor(Executor):
    """Run batches on a Dask cluster.

    Args:
        workers: Worker processes of the local cluster (ignored with `scheduler`).
        scheduler: Address of a running scheduler, e.g. ``tcp://10.0.0.5:8786``; None starts a
            `distributed.LocalCluster` with `workers` single-threaded worker processes.
        inflight: Batches in flight at once (default: twice the cluster's worker threads).
        batch_runs: Runs per batch.

    Raises:
        ImportError: Dask distributed is not installed (the message names the extra).
    """

    name = "dask"

    def __init__(self, workers: int = 1, scheduler: str | None = None, inflight: int | None = None,
                 batch_runs: int = BATCH_RUNS) -> None:
        super().__init__(workers, batch_runs)
        self.scheduler = scheduler
        self._inflight = inflight
        self._cluster = None
        self._client = None
        self.connect_timeout = CONNECT_TIMEOUT
        self.lost_after = LOST_AFTER
        self._no_workers_since: float | None = None
        import_distributed()

    @property
    def client(self) -> Any:
        """The connected `distributed.Client` (the cluster is started on first use).

        Raises:
            ClusterLost: The scheduler did not answer within `CONNECT_TIMEOUT` seconds.
        """
        if self._client is None:
            distributed = import_distributed()
            if self.scheduler is None:
                self._cluster = distributed.LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                                         processes=True, dashboard_address=None)
                self._client = distributed.Client(self._cluster)
            else:
                self._client = self._connect(distributed)
        return self._client

    def _connect(self, distributed: Any) -> Any:
        """A Client of `scheduler`, or `ClusterLost` after `connect_timeout` seconds.

        In a thread: the Client's own timeout does not cover a peer that accepts TCP and never
        completes Dask's handshake, where the constructor waits without end.
        """
        box: dict[str, Any] = {}

        def connect() -> None:
            try:
                box["client"] = distributed.Client(self.scheduler, timeout=self.connect_timeout)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                box["error"] = exc

        thread = threading.Thread(target=connect, name="packbench dask connect", daemon=True)
        thread.start()
        thread.join(self.connect_timeout + 1.0)
        if "client" in box:
            return box["client"]
        why = "no answer" if thread.is_alive() else f"{type(box['error']).__name__}: {box['error']}"
        first = why.strip().splitlines()[0] if why.strip() else why
        raise ClusterLost(f"Dask scheduler {self.scheduler} did not answer within {self.connect_timeout:g} s "
                          f"({first})")

    def describe(self) -> str:
        where = self.scheduler or "LocalCluster"
        return f"dask ({where}, {self.workers if self.scheduler is None else 'cluster'} workers)"

    def map(self, task: Task, work: Iterable[Batch]) -> Iterator[list[dict[str, Any]]]:
        distributed = import_distributed()
        client = self.client
        try:
            threads = sum(client.nthreads().values()) or self.workers
        except (OSError, TimeoutError) as exc:
            raise self._lost(f"the scheduler does not answer ({type(exc).__name__}: {exc})") from None
        limit = self._inflight or 2 * threads
        queue = iter(work)
        pending: set[Any] = set()
        try:
            for batch in queue:
                # pure=False: two batches with equal arguments are still two tasks.
                pending.add(client.submit(task, batch, pure=False))
                if len(pending) >= limit:
                    break
            idle_since = time.monotonic()
            while pending:
                try:
                    done = distributed.wait(list(pending), timeout=_POLL, return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    done = set()
                if not done:
                    self._check_cluster(client, idle_since)
                    continue
                idle_since = time.monotonic()
                for fut in done:
                    pending.discard(fut)
                    rows = self._result(fut, distributed)
                    fut.release()
                    yield rows
                    for batch in queue:
                        pending.add(client.submit(task, batch, pure=False))
                        break
        except BaseException:
            for fut in pending:
                try:
                    fut.cancel()
                except Exception:  # noqa: BLE001 - a cluster that is gone cannot cancel; nothing to keep
                    pass
            raise

    def _lost(self, why: str) -> ClusterLost:
        where = self.scheduler or "the local cluster"
        return ClusterLost(f"Dask cluster at {where} lost: {why}; the rows written so far stay, rerun to resume")

    def _result(self, fut: Any, distributed: Any) -> list[dict[str, Any]]:
        try:
            return fut.result()
        except CancelledError:  # the scheduler went away: the client cancels its futures
            raise self._lost("the connection to the scheduler was lost") from None
        except OSError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise self._lost(f"{type(exc).__name__}: {first}".rstrip(": ")) from None
        except distributed.KilledWorker as exc:
            raise self._lost(f"a batch killed every worker that ran it ({exc}); a plug-in that exits or "
                             f"crashes its process is contained by --executor processes") from None

    def _check_cluster(self, client: Any, idle_since: float) -> None:
        """Raise `ClusterLost` when the scheduler is gone, or no worker has been there for `lost_after` s."""
        try:
            workers = client.scheduler_info().get("workers", {})
        except (OSError, TimeoutError) as exc:
            raise self._lost(f"the scheduler does not answer ({type(exc).__name__})") from None
        if client.status in ("closed", "closing"):
            raise self._lost("the connection to the scheduler closed")
        if workers:
            self._no_workers_since = None
            return
        since = self._no_workers_since or time.monotonic()
        self._no_workers_since = since
        if time.monotonic() - max(since, idle_since) >= self.lost_after:
            raise self._lost(f"no worker for {self.lost_after:g} s")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
