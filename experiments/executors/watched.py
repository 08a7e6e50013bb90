"""Local worker processes under a watchdog: a run that hangs, exits or kills its worker costs only itself.

Each worker runs one chunk at a time and reports every run before it starts and its row when it ends
(`ChunkTask.events`). The driver waits on the workers' pipes and process sentinels at once, so it sees
a worker die (``sys.exit``, ``os._exit``, a segfault, the OOM killer) the moment it happens, and it
kills a worker whose current run has been going longer than the per-run limit. Either way the run
that was going gets an ``error`` row naming its components and the cause (written, so a resume does
not repeat the crash), the rows the chunk had finished are kept, the chunk's other runs go to a fresh
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

from ..plan import PlannedUnit, Run
from .base import CHUNK_RUNS, Chunk, Executor, Task

__all__ = ["Processes", "RUN_TIMEOUT"]

# Seconds of wall time one run (its repeats and its instance's reference included) may take before
# its worker is killed. Generous: built-in solvers stop themselves long before; this catches hangs.
RUN_TIMEOUT = 600.0
# A worker that dies outside any run (while starting, between runs) this many times in a row means
# the workers cannot run at all: stop instead of respawning forever.
MAX_STRAY_DEATHS = 3
# Seconds between hand-overs of a running chunk's finished rows to the driver (which writes them).
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
            chunk = conn.recv()
        except EOFError:
            return
        if chunk is None:
            return
        if events is None:  # a plain task: watched as a whole
            conn.send(("source", tuple(run.run_id for pu in chunk for run in pu.runs())))
            for row in task(chunk):
                conn.send(("row", row))
        else:
            for event in events(chunk):
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
    """One worker process and the chunk it is running."""

    def __init__(self, ctx: Any, task: Task) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, task), name="packbench worker")
        self.proc.start()
        child.close()
        self.chunk: Chunk | None = None
        self.runs: dict[str, Run] = {}
        self.written: set[str] = set()
        self.current: tuple[str, tuple[str, ...]] | None = None
        self.since = time.monotonic()
        self.rows: list[dict[str, Any]] = []
        self.flushed = self.since

    def give(self, chunk: Chunk) -> None:
        self.chunk, self.current, self.since, self.written, self.rows = chunk, None, time.monotonic(), set(), []
        self.flushed = self.since
        self.runs = {run.run_id: run for pu in chunk for run in pu.runs()}
        self.conn.send(chunk)

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()

    def rest(self, failed: set[str]) -> Chunk:
        """The chunk's runs neither written nor failed, as a chunk."""
        keep = self.written | failed
        rest = []
        assert self.chunk is not None
        for pu in self.chunk:
            todo = tuple(range(len(pu.run_ids))) if pu.todo is None else pu.todo
            left = tuple(pos for pos in todo if pu.run_ids[pos] not in keep)
            if left:
                rest.append(PlannedUnit(pu.unit, pu.instances, pu.run_ids, pu.unavailable, left))
        return rest


class Processes(Executor):
    """`workers` local worker processes under a watchdog, each running one chunk at a time.

    Args:
        workers: Worker processes.
        chunk_runs: Runs per chunk.
        run_timeout: Seconds of wall time one run may take before its worker is killed and the run
            recorded as an ``error`` row (the limit is wall time, so the row says so).
    """

    name = "processes"

    def __init__(self, workers: int = 1, chunk_runs: int = CHUNK_RUNS, run_timeout: float = RUN_TIMEOUT) -> None:
        super().__init__(workers, chunk_runs)
        if isinstance(run_timeout, bool) or not isinstance(run_timeout, (int, float)) or not run_timeout > 0:
            raise ValueError(f"run_timeout must be a number of seconds > 0, got {run_timeout!r}")
        self.run_timeout = float(run_timeout)
        self._slots: list[_Slot] = []

    def describe(self) -> str:
        return f"{super().describe()}, {self.run_timeout:g} s per run"

    def map(self, task: Task, work: Iterable[Chunk]) -> Iterator[list[dict[str, Any]]]:
        ctx = _context()
        queue: deque[Chunk] = deque()
        source = iter(work)
        stray = 0
        try:
            while True:
                for slot in self._slots:
                    if slot.chunk is None:
                        chunk = queue.popleft() if queue else next(source, None)
                        if chunk is not None:
                            slot.give(chunk)
                while len(self._slots) < self.workers and (queue or self._peek(source, queue)):
                    slot = _Slot(ctx, task)
                    self._slots.append(slot)
                    slot.give(queue.popleft())
                busy = [s for s in self._slots if s.chunk is not None]
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
            # Interrupted or done: a worker left is stopped (its chunk's finished rows were handed back).
            self.close()

    @staticmethod
    def _peek(source: Iterator[Chunk], queue: deque[Chunk]) -> bool:
        chunk = next(source, None)
        if chunk is None:
            return False
        queue.append(chunk)
        return True

    def _drain(self, slot: _Slot, task: Task, queue: deque[Chunk]) -> tuple[list[dict[str, Any]], bool] | None:
        """Read what a worker sent; the chunk's rows when it finished, or its failure when it died."""
        while True:
            try:
                if not slot.conn.poll():
                    break
                kind, value = slot.conn.recv()
            except (EOFError, OSError):
                slot.proc.join()
                return self._fail(slot, task, queue, _cause(slot.proc.exitcode))
            if kind == "row":
                slot.rows.append(value)
                slot.written.add(value["run_id"])
            elif kind in ("run", "source"):
                slot.current = (kind, (value,) if kind == "run" else value)
                slot.since = time.monotonic()
            elif kind == "done":
                rows, slot.chunk, slot.rows, slot.current = slot.rows, None, [], None
                return rows, False
        if not slot.proc.is_alive():
            slot.proc.join()
            return self._fail(slot, task, queue, _cause(slot.proc.exitcode))
        if slot.rows and time.monotonic() - slot.flushed >= FLUSH_SECONDS:
            # A long chunk hands its finished rows over as it goes: a killed driver loses seconds, not a chunk.
            rows, slot.rows, slot.flushed = slot.rows, [], time.monotonic()
            return rows, False
        return None

    def _fail(self, slot: _Slot, task: Task, queue: deque[Chunk], cause: str) -> tuple[list[dict[str, Any]], bool]:
        """Kill `slot`'s worker; error rows for what it was running; the rest of its chunk queued again."""
        slot.kill()
        self._slots.remove(slot)
        rows = slot.rows
        failed: set[str] = set()
        if slot.current is not None:
            kind, ids = slot.current
            failed = {rid for rid in ids if rid not in slot.written}
            for rid in sorted(failed, key=list(slot.runs).index):
                run = slot.runs[rid]
                what = (task.component(run) if hasattr(task, "component") else f"run {rid}")
                if kind == "source":
                    what = f"source {run.unit.source!r} (building its instances for seed {run.unit.seed})"
                rows.append(task.failed_row(run, f"{what}: {cause}") if hasattr(task, "failed_row")
                            else {"run_id": rid, "status": "error", "reason": cause})
        rest = slot.rest(failed)
        if rest:
            queue.appendleft(rest)
        return rows, slot.current is None

    def close(self) -> None:
        for slot in self._slots:
            if slot.chunk is None and slot.proc.is_alive():
                try:
                    slot.conn.send(None)
                except OSError:
                    pass
        for slot in self._slots:
            if slot.chunk is None:
                slot.proc.join(5.0)
            slot.kill()
        self._slots = []
