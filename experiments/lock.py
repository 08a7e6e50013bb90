"""One `packbench run` per result directory: an exclusive lock file that a killed run cannot leave stuck.

The lock is ``.packbench.lock`` in the result directory, held with an
exclusive ``flock`` for the whole run and holding the owner's pid, host and
start time. The kernel releases a ``flock`` when its process dies (``kill -9``
included), so the next run takes a dead run's lock over and says whose it was.
Where ``flock`` is missing (Windows), the file is created exclusively and a
lock whose pid is no longer alive on this host is stale and taken over; a
lock from another host is never taken over (remove the file if that run is
gone).
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

__all__ = ["RunLock", "OutputLocked", "LOCK_FILE"]

LOCK_FILE = ".packbench.lock"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


class OutputLocked(OSError):
    """Another live `packbench run` holds the result directory."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def _describe(owner: dict[str, Any]) -> str:
    return f"pid {owner.get('pid')} on {owner.get('host')}, started {owner.get('started', '?')}"


class RunLock:
    """The lock of one result directory (a context manager).

    Args:
        out_dir: The result directory (created if missing).

    Attributes:
        took_over: The previous owner's description when a stale lock was taken over, else None.
    """

    def __init__(self, out_dir: str | Path) -> None:
        self.path = Path(out_dir) / LOCK_FILE
        self.took_over: str | None = None
        self._fd: int | None = None

    def _owner(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _busy(self, owner: dict[str, Any]) -> OutputLocked:
        return OutputLocked(f"{self.path.parent.as_posix()} is in use by another packbench run "
                            f"({_describe(owner)}); wait for it to finish or pass another --out")

    def acquire(self) -> RunLock:
        """Take the lock.

        Raises:
            OutputLocked: A live run holds it (the message names its pid and host).
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if fcntl is not None:
            while True:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    raise self._busy(self._owner()) from None
                try:  # the owner may have released (and removed) the file between our open and flock
                    if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                        break
                except FileNotFoundError:
                    pass
                os.close(fd)
            previous = self._owner()
        else:  # pragma: no cover - Windows
            previous = {}
            while True:
                try:
                    fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                    break
                except FileExistsError:
                    previous = self._owner()
                    if previous.get("host") != me["host"] or _pid_alive(int(previous.get("pid", 0))):
                        raise self._busy(previous) from None
                    self.path.unlink(missing_ok=True)
        if previous.get("pid") is not None:
            self.took_over = _describe(previous)
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps(me) + "\n").encode("utf-8"))
        os.fsync(fd)
        self._fd = fd
        return self

    def release(self) -> None:
        """Give the lock up (the file goes, so a finished directory holds no lock)."""
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._fd)  # closing releases the flock
        self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
