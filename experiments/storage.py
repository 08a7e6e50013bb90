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
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["RunStore", "write_atomic", "write_atomic_lines", "RUNS_FILE", "REPORT_EXCLUDED"]

RUNS_FILE = "runs.jsonl"
# Columns no report table reads: left out when a report loads many rows.
REPORT_EXCLUDED = ("chosen_ids", "code", "package_version", "git_commit", "git_dirty", "python", "numpy", "ortools",
                   "platform", "cpus", "started_at")


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
    write_atomic_lines(path, [data.encode("utf-8") if isinstance(data, str) else data])


def write_atomic_lines(path: str | Path, lines: Iterable[bytes]) -> None:
    """Like `write_atomic`, streaming `lines` (bytes, newline-terminated) so a large file is never held whole."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as fh:
            for line in lines:
                fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _row_line(row: Mapping[str, Any]) -> bytes:
    try:
        text = json.dumps(row, sort_keys=False, allow_nan=False, separators=(",", ":"))
    except ValueError:  # a NaN or infinity somewhere (a plug-in's figure): the row is an error, the run goes on
        text = json.dumps(_unstorable(row), sort_keys=False, allow_nan=False, separators=(",", ":"))
    return (text + "\n").encode("utf-8")


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, Mapping):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_non_finite(v) for v in value)
    return False


def _unstorable(row: Mapping[str, Any]) -> dict[str, Any]:
    """An ``error`` row in place of a row holding non-finite numbers (JSON has none), naming the columns."""
    from .metrics import ALL_METRICS
    from .schema import RESULT_COLUMNS, Status

    bad = [col for col, value in row.items() if _non_finite(value)]
    out = dict(row)
    for col in (*bad, *RESULT_COLUMNS, *ALL_METRICS):
        if col in out:
            out[col] = None
    shown = ", ".join(f"{col}={row[col]!r}" for col in bad[:5])
    out.update(status=str(Status.ERROR),
               reason=f"strategy {row.get('strategy')!r} (source {row.get('source')!r}) gave non-finite values, "
                      f"which a result row cannot hold: {shown}")
    return out


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

    def _scan(self) -> Iterator[tuple[bytes, dict[str, Any]]]:
        """(line, row) of every complete, valid line holding a new run id; counts the others in `dropped_lines`."""
        self.dropped_lines = 0
        if not self.path.exists():
            return
        seen: set[str] = set()
        with open(self.path, "rb") as fh:
            for line in fh:
                if not line.endswith(b"\n"):  # a partial last line: the write was cut
                    self.dropped_lines += bool(line.strip())
                    break
                try:
                    row = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    self.dropped_lines += bool(line.strip())
                    continue
                if not isinstance(row, dict) or not isinstance(row.get("run_id"), str) or row["run_id"] in seen:
                    self.dropped_lines += 1
                    continue
                seen.add(row["run_id"])
                yield line, row

    def _keep(self, keep: Callable[[dict[str, Any]], bool]) -> None:
        """Rewrite the file atomically with the good lines whose row passes `keep` (streamed)."""
        write_atomic_lines(self.path, (line for line, row in self._scan() if keep(row)))

    def load(self, repair: bool = True) -> list[dict[str, Any]]:
        """The stored rows, first occurrence of each run id, after repairing a crashed write.

        Args:
            repair: Rewrite the file without the dropped lines (what a resumed
                run needs); False leaves the file as it is (read-only commands).

        Returns:
            Rows in file order. `dropped_lines` counts lines that were dropped.
        """
        rows = [row for _, row in self._scan()]
        if self.dropped_lines and repair:
            dropped = self.dropped_lines
            self._keep(lambda row: True)
            self.dropped_lines = dropped
        return rows

    def index(self, fields: Sequence[str] = ("code",), repair: bool = True) -> dict[str, tuple[Any, ...]]:
        """Run id -> the values of `fields` of every stored row, streamed (a million rows fit in memory).

        Repairs a crashed write like `load`. Repeated values (statuses, code
        fingerprints) are shared, not copied.
        """
        shared: dict[Any, Any] = {}
        out = {}
        for _, row in self._scan():
            values = tuple(row.get(f) for f in fields)
            out[row["run_id"]] = shared.setdefault(values, values) if all(
                v is None or isinstance(v, (str, int, float)) for v in values) else values
        if self.dropped_lines and repair:
            dropped = self.dropped_lines
            self._keep(lambda row: True)
            self.dropped_lines = dropped
        return out

    def discard(self, run_ids: set[str] | frozenset[str]) -> int:
        """Remove the rows of `run_ids` (runs to redo), atomically; returns how many were removed."""
        if not run_ids:
            return 0
        removed = [0]

        def keep(row: dict[str, Any]) -> bool:
            drop = row["run_id"] in run_ids
            removed[0] += drop
            return not drop
        self._keep(keep)
        return removed[0]

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

