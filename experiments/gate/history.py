"""The gate's history store: one JSON line per gate run (commit, date, machine, every cell's figures).

`packbench gate --history DIR` appends to ``DIR/history.jsonl``; `packbench
report --history DIR` draws each cell's speed and quality over commits
(`report.plots.history`), like asv's published graphs. Lines are appended
whole (one write each), so a crash mid-write loses at most that line, and a
damaged line is skipped and counted when read.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["HISTORY_FILE", "append_record", "load_history", "provenance", "draw_history"]

HISTORY_FILE = "history.jsonl"


def _git(workdir: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(workdir), *args], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def provenance(workdir: Path) -> dict[str, Any]:
    """Commit (and whether the tree has uncommitted changes), UTC date and machine of a gate run."""
    commit = _git(workdir, "rev-parse", "HEAD")
    status = _git(workdir, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status) if status is not None else None,
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "machine": {"node": platform.node(), "system": platform.system(), "machine": platform.machine(),
                        "cpus": os.cpu_count(), "python": platform.python_version()}}


def append_record(directory: Path, record: dict[str, Any]) -> Path:
    """Append one gate result to ``directory/history.jsonl`` (created when missing); returns the file."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / HISTORY_FILE
    line = (json.dumps(record, default=str, allow_nan=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def load_history(directory: Path) -> tuple[list[dict[str, Any]], int]:
    """(records in the order appended, lines that could not be read).

    Raises:
        FileNotFoundError: No history file in `directory`.
    """
    path = Path(directory) / HISTORY_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no {HISTORY_FILE} in {directory}: write one with 'packbench gate --history DIR'")
    records, bad = [], 0
    with open(path, "rb") as fh:
        for line in fh:
            try:
                rec = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                bad += bool(line.strip())
                continue
            if isinstance(rec, dict) and isinstance(rec.get("cells"), dict):
                records.append(rec)
            else:
                bad += 1
    return records, bad


def draw_history(directory: Path, report_dir: Path | None = None) -> int:
    """`packbench report --history DIR`: the history's PNG graphs and ``history.html``, written into DIR.

    Args:
        directory: The history store.
        report_dir: A results directory whose ``report.html`` gets the history section too.

    Returns:
        Exit code 0.

    Raises:
        FileNotFoundError: No history file in `directory`, or no ``report.html`` in `report_dir`.
    """
    import sys

    from packbench.experiments.report.html_history import history_page, history_section, with_history
    from packbench.experiments.report.plots.history import write_history_plots
    from packbench.experiments.storage import write_atomic

    records, bad = load_history(directory)
    if bad:
        print(f"packbench report: warning: skipped {bad} unreadable line(s) of {Path(directory) / HISTORY_FILE}",
              file=sys.stderr)
    written = write_history_plots(records, Path(directory))
    written.append(Path(directory) / "history.html")
    write_atomic(written[-1], history_page(records, bad))
    if report_dir is not None:
        page = Path(report_dir) / "report.html"
        if not page.is_file():
            raise FileNotFoundError(f"no report.html in {report_dir} to add the gate history to")
        write_atomic(page, with_history(page.read_text(encoding="utf-8"), history_section(records, bad)))
        written.append(page)
    print(f"packbench report: {len(records)} gate run(s) -> {', '.join(str(p) for p in written)}", file=sys.stderr)
    return 0
