"""Local worker processes under a watchdog: a run that hangs, exits or kills its worker costs only itself.

Each worker runs one batch at a time and reports every run before it starts and its row when it ends
(`BatchTask.events`). The driver waits on the workers' pipes and process sentinels at once, so it sees
a worker die (``sys.exit``, ``os._exit``, a segfault, the OOM killer) the moment it happens, and it
kills a worker whose current run has been going longer than the per-run limit. Either way the run
that was going gets an ``error`` row naming its components and the cause (written, so a resume does
not repeat the crash), the rows the batch had finished are kept, the batch's other runs go to a fresh
worker, and the sweep goes on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from packbench.algorithms.strategies.isolate import die_with_parent

from ..planning.runs import PlannedUnit, Run
from .base import BATCH_RUNS, Batch, Executor, Task

__all__ = ["Processes", "RUN_TIMEOUT"]

# Seconds of wall time one run (its repeats and its instance's reference included) may take before
# its worker is killed. Generous: built-in solvers stop themselves long before; this catches hangs.
RUN_TIMEOUT = 600.0
# A worker that dies outside any run (while starting, between runs) this many times in a row means
# the workers cannot run at all: stop instead of respawning forever.
MAX_STRAY_DEATHS = 3
# Seconds between hand-overs of a running batch's finished rows to the driver (which writes them).
FLUSH_SECONDS = 1.0


def _context() -> Any:
    # fork where there is one: a fresh worker (after a kill) starts in milliseconds with the harness
    # already imported; what it must not keep of the driver is closed in `_worker`.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _drop_driver_locks() -> None:
    """Close the result directory's lock in a forked worker: a worker outliving a killed driver would
    otherwise go on holding it (a ``flock`` lives while any descriptor of it is open)."""
    from ..lock import LOCK_FILE

    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return
    for entry in list(fds.iterdir()):
        try:
            if Path(os.readlink(entry)).name == LOCK_FILE:
                os.close(int(entry.name))
        except (OSError, ValueError):
            continue


def _worker(conn: Any, task: Task) -> None:
    # The driver handles Ctrl-C (it kills the workers); a worker that caught it would die mid-row.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()
    _drop_driver_locks()
    events = getattr(task, "events", None)
    while True:
        try:
            batch = conn.recv()
        except EOFError:
            return
        if batch is None:
            return
        if events is None:  # a plain task: watched as a whole
            conn.send(("source", tuple(run.run_id for pu in batch for run in pu.runs())))
            for row in task(batch):
                conn.send(("row", row))
        else:
            for event in events(batch):
                conn.send(event)
        conn.send(("done", None))


def _cause(exitcode: int | None) -> str:
    if exitcode is None:
        return "its worker process stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"its worker process was killed by {name}"
    return f"its worker process exited with code {exitcode} (sys.exit, os._exit or a crash)"


class _Slot:
    """One worker process and the batch it is running."""

    def __init__(self, ctx: Any, task: Task) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, task), name="packbench worker")
        self.proc.start()
        child.close()
        self.batch: Batch | None = None
        self.runs: dict[str, Run] = {}
        self.written: set[str] = set()
        self.current: tuple[str, tuple[str, ...]] | None = None
        self.since = time.monotonic()
        self.rows: list[dict[str, Any]] = []
        self.flushed = self.since

    def give(self, batch: Batch) -> None:
        self.batch, self.current, self.since, self.written, self.rows = batch, None, time.monotonic(), set(), []
        self.flushed = self.since
        self.runs = {run.run_id: run for pu in batch for run in pu.runs()}
        self.conn.send(batch)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()

    def rest(self, failed: set[str]) -> Batch:
        """The batch's runs neither written nor failed, as a batch."""
        keep = self.written | failed
        rest = []
        assert self.batch is not None
        for pu in self.batch:
            todo = tuple(range(len(pu.run_ids))) if pu.todo is None else pu.todo
            left = tuple(pos for pos in todo if pu.run_ids[pos] not in keep)
            if left:
                rest.append(PlannedUnit(pu.unit, pu.instances, pu.run_ids, pu.unavailable, left))
        return rest


class Processes(Executor):
    """`workers` local worker processes under a watchdog, each running one batch at a time.

    Args:
        workers: Worker processes.
        batch_runs: Runs per batch.
        run_timeout: Seconds of wall time one run may take before its worker is killed and the run
            recorded as an ``error`` row (the limit is wall time, so the row says so).
    """

    name = "processes"

    def __init__(self, workers: int = 1, batch_runs: int = BATCH_RUNS, run_timeout: float = RUN_TIMEOUT) -> None:
        super().__init__(workers, batch_runs)
        if isinstance(run_timeout, bool) or not isinstance(run_timeout, (int, float)) or not run_timeout > 0:
            raise ValueError(f"run_timeout must be a number of seconds > 0, got {run_timeout!r}")
        self.run_timeout = float(run_timeout)
        self._slots: list[_Slot] = []

    def describe(self) -> str:
        return f"{super().describe()}, {self.run_timeout:g} s per run"

    def map(self, task: Task, work: Iterable[Batch]) -> Iterator[list[dict[str, Any]]]:
        ctx = _context()
        queue: deque[Batch] = deque()
        source = iter(work)
        stray = 0
        try:
            while True:
                for slot in self._slots:
                    if slot.batch is None:
                        batch = queue.popleft() if queue else next(source, None)
                        if batch is not None:
                            slot.give(batch)
                while len(self._slots) < self.workers and (queue or self._peek(source, queue)):
                    slot = _Slot(ctx, task)
                    self._slots.append(slot)
                    slot.give(queue.popleft())
                busy = [s for s in self._slots if s.batch is not None]
                if not busy:
                    return
                now = time.monotonic()
                timeout = max(0.0, min(s.since + self.run_timeout - now for s in busy))
                ready = set(wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout))
                for slot in busy:
                    if slot.conn in ready or slot.proc.sentinel in ready:
                        out = self._drain(slot, task, queue)
                    elif time.monotonic() - slot.since >= self.run_timeout:
                        out = self._fail(slot, task, queue, f"it ran over the per-run limit of "
                                         f"{self.run_timeout:g} s (wall time) and its worker was killed")
                    else:
                        continue
                    if out is None:
                        continue
                    rows, died_outside_a_run = out
                    stray = stray + 1 if died_outside_a_run else 0
                    if stray >= MAX_STRAY_DEATHS:
                        raise RuntimeError(f"worker processes died {stray} times in a row outside any run "
                                           f"({_cause(slot.proc.exitcode)}); they cannot run this experiment")
                    if rows:
                        yield rows
        finally:
            # Interrupted or done: a worker left is stopped (its batch's finished rows were handed back).
            self.close()

    @staticmethod
    def _peek(source: Iterator[Batch], queue: deque[Batch]) -> bool:
        batch = next(source, None)
        if batch is None:
            return False
        queue.append(batch)
        return True

    def _drain(self, slot: _Slot, task: Task, queue: deque[Batch]) -> tuple[list[dict[str, Any]], bool] | None:
        """Read what a worker sent; the batch's rows when it finished, or its failure when it died."""
        while True:
            try:
                if not slot.conn.poll():
                    break
                event, value = slot.conn.recv()
            except (EOFError, OSError):
                slot.proc.join()
                return self._fail(slot, task, queue, _cause(slot.proc.exitcode))
            if event == "row":
                slot.rows.append(value)
                slot.written.add(value["run_id"])
            elif event in ("run", "source"):
                slot.current = (event, (value,) if event == "run" else value)
                slot.since = time.monotonic()
            elif event == "done":
                rows, slot.batch, slot.rows, slot.current = slot.rows, None, [], None
                return rows, False
        if not slot.proc.is_alive():
            slot.proc.join()
            return self._fail(slot, task, queue, _cause(slot.proc.exitcode))
        if slot.rows and time.monotonic() - slot.flushed >= FLUSH_SECONDS:
            # A long batch hands its finished rows over as it goes: a killed driver loses seconds, not a batch.
            rows, slot.rows, slot.flushed = slot.rows, [], time.monotonic()
            return rows, False
        return None

    def _fail(self, slot: _Slot, task: Task, queue: deque[Batch], cause: str) -> tuple[list[dict[str, Any]], bool]:
        """Kill `slot`'s worker; error rows for what it was running; the rest of its batch queued again."""
        slot.kill()
        self._slots.remove(slot)
        rows = slot.rows
        failed: set[str] = set()
        if slot.current is not None:
            event, ids = slot.current
            failed = {rid for rid in ids if rid not in slot.written}
            for rid in sorted(failed, key=list(slot.runs).index):
                run = slot.runs[rid]
                what = (task.component(run) if hasattr(task, "component") else f"run {rid}")
                if event == "source":
                    what = f"source {run.unit.source!r} (building its instances for seed {run.unit.seed})"
                rows.append(task.failed_row(run, f"{what}: {cause}") if hasattr(task, "failed_row")
                            else {"run_id": rid, "status": "error", "reason": cause})
        rest = slot.rest(failed)
        if rest:
            queue.appendleft(rest)
        return rows, slot.current is None

    def close(self) -> None:
        for slot in self._slots:
            if slot.batch is None and slot.proc.is_alive():
                try:
                    slot.conn.send(None)
                except OSError:
                    pass
        for slot in self._slots:
            if slot.batch is None:
                slot.proc.join(5.0)
            slot.kill()
        self._slots = []
