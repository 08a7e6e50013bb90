"""Result files: an append-only ``runs.jsonl`` that survives crashes, and atomic whole-file writes.

Rows are appended one batch per write call to a file opened in append mode,
then flushed and fsynced, so a finished row is on disk before the next one
starts. A process killed mid-write can leave at most a partial last line;
`RunStore.load` drops such lines (and any other line that is not a JSON
object with a ``run_id``), rewrites the file atomically without them (unless
called with ``repair=False``, as the read-only report does), and returns each
run id once. Other outputs are written whole via a temporary
file in the same directory and ``os.replace``, so readers see the old or the
new file, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["RunStore", "write_atomic", "RUNS_FILE"]

RUNS_FILE = "runs.jsonl"


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # some platforms cannot open directories; the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write `data` to `path` atomically (temp file in the same directory, fsync, os.replace).

    Args:
        path: Destination; its directory is created if missing.
        data: Text (written as UTF-8) or bytes.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide results from other users
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _row_line(row: Mapping[str, Any]) -> bytes:
    return (json.dumps(row, sort_keys=False, allow_nan=False, separators=(",", ":")) + "\n").encode("utf-8")


class RunStore:
    """The rows of one experiment directory.

    Args:
        out_dir: The experiment's result directory (created on first write).
    """

    def __init__(self, out_dir: str | Path) -> None:
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / RUNS_FILE
        self.dropped_lines = 0

    def reset(self) -> None:
        """Delete all rows (``--force``)."""
        self.path.unlink(missing_ok=True)

    def load(self, repair: bool = True) -> list[dict[str, Any]]:
        """The stored rows, first occurrence of each run id, after repairing a crashed write.

        Args:
            repair: Rewrite the file without the dropped lines (what a resumed
                run needs); False leaves the file as it is (read-only commands).

        Returns:
            Rows in file order. `dropped_lines` counts lines that were dropped.
        """
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        rows, seen, good = [], set(), []
        lines = raw.split(b"\n")
        complete, tail = lines[:-1], lines[-1]  # tail is b"" when the file ends with a newline
        dropped = 1 if tail.strip() else 0
        for line in complete:
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                dropped += bool(line.strip())
                continue
            if not isinstance(row, dict) or not isinstance(row.get("run_id"), str) or row["run_id"] in seen:
                dropped += 1
                continue
            seen.add(row["run_id"])
            rows.append(row)
            good.append(line + b"\n")
        self.dropped_lines = dropped
        if dropped and repair:
            write_atomic(self.path, b"".join(good))
        return rows

    def rewrite(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Replace all rows atomically (used to drop rows that must be redone)."""
        write_atomic(self.path, b"".join(_row_line(r) for r in rows))

    def append(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Append rows durably (one write, flush and fsync per call).

        Returns:
            The number of rows written.
        """
        payload = b"".join(_row_line(r) for r in rows)
        if not payload:
            return 0
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        return payload.count(b"\n")
