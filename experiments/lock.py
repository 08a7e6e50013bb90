"""One `packbench run` per result directory: an exclusive lock file that a killed run cannot leave stuck.

The lock is ``.packbench.lock`` in the result directory, held with an
exclusive ``flock`` for the whole run and holding the owner's pid, host and
start time. The kernel releases a ``flock`` when its process dies (``kill -9``
included), so the next run takes a dead run's lock over and says whose it was.
Where ``flock`` is missing (Windows), the file is created exclusively and a
lock whose pid is no longer alive on this host is stale and taken over; a
lock from another host is never taken over (remove the file if that run is
gone).

The lock file is opened without following symbolic links (``O_NOFOLLOW``) and
must be a regular file: a link planted at the lock path of a shared results
folder would otherwise make the run overwrite the file it points to.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any

__all__ = ["RunLock", "OutputLocked", "LockPathRefused", "LOCK_FILE"]

LOCK_FILE = ".packbench.lock"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None


class OutputLocked(OSError):
    """Another live `packbench run` holds the result directory."""


class LockPathRefused(OSError):
    """The lock path is a symbolic link or not a regular file: it is never opened for writing."""


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
        took_over: When a stale lock was taken over, whose it was: "a run that is gone (pid ...)",
            or why a live pid no longer held it; else None.
    """

    def __init__(self, out_dir: str | Path) -> None:
        self.path = Path(out_dir) / LOCK_FILE
        self.took_over: str | None = None
        self._fd: int | None = None

    def _owner(self, fd: int | None = None) -> dict[str, Any]:
        try:
            if fd is None:
                if self.path.is_symlink():
                    return {}
                text = self.path.read_bytes()
            else:
                text = os.pread(fd, 1 << 16, 0)
            data = json.loads(text.decode("utf-8") or "{}")
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _refuse(self, why: str) -> LockPathRefused:
        return LockPathRefused(f"{self.path.as_posix()}: {why}; a lock path is never followed or overwritten "
                               f"(remove it if you did not put it there, and check who can write to "
                               f"{self.path.parent.as_posix()})")

    def _open(self, flags: int) -> int:
        """The lock file opened with `flags`, refusing a symbolic link or anything but a regular file."""
        if self.path.is_symlink():
            raise self._refuse(f"it is a symbolic link (to {os.readlink(self.path)!r})")
        try:
            fd = os.open(self.path, flags | _NOFOLLOW, 0o644)
        except OSError as exc:
            if self.path.is_symlink():  # planted between the check and the open: O_NOFOLLOW refused it
                raise self._refuse("it is a symbolic link") from None
            if isinstance(exc, IsADirectoryError):
                raise self._refuse("it is not a regular file") from None
            raise
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise self._refuse("it is not a regular file")
        return fd

    def _takeover(self, previous: dict[str, Any]) -> str:
        """What the previous owner of a lock taken over was (it no longer held the lock)."""
        pid, host = previous.get("pid"), previous.get("host")
        if host == socket.gethostname() and isinstance(pid, int) and pid != os.getpid() and _pid_alive(pid):
            return (f"{_describe(previous)}: that pid is alive but no longer holds the lock (the run ended "
                    f"without removing the file and its pid was reused, or it runs elsewhere)")
        if host != socket.gethostname():
            return f"{_describe(previous)}: a run on another host that no longer holds the lock"
        return f"a run that is gone ({_describe(previous)})"

    def _busy(self, owner: dict[str, Any]) -> OutputLocked:
        return OutputLocked(f"{self.path.parent.as_posix()} is in use by another packbench run "
                            f"({_describe(owner)}); wait for it to finish or pass another --out")

    def acquire(self) -> RunLock:
        """Take the lock.

        Raises:
            OutputLocked: A live run holds it (the message names its pid and host).
            LockPathRefused: The lock path is a symbolic link or not a regular file.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if fcntl is not None:
            while True:
                fd = self._open(os.O_RDWR | os.O_CREAT)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    owner = self._owner(fd)
                    os.close(fd)
                    raise self._busy(owner) from None
                try:  # the owner may have released (and removed) the file between our open and flock
                    if os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                        break
                except FileNotFoundError:
                    pass
                os.close(fd)
            previous = self._owner(fd)
        else:  # pragma: no cover - Windows
            previous = {}
            while True:
                try:
                    fd = self._open(os.O_RDWR | os.O_CREAT | os.O_EXCL)
                    break
                except FileExistsError:
                    previous = self._owner()
                    if previous.get("host") != me["host"] or _pid_alive(int(previous.get("pid", 0))):
                        raise self._busy(previous) from None
                    self.path.unlink(missing_ok=True)
        if previous.get("pid") is not None:
            self.took_over = self._takeover(previous)
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
