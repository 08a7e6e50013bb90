"""What `packbench run` says while it works: notes, progress, and the paths it prints.

On a terminal progress is a tqdm bar; otherwise (CI logs, ``nohup``) a plain
line every `interval` seconds says how many runs are done, the rate and the
time left, so a long run is never silent.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import IO, Any

__all__ = ["Console", "display_path", "duration"]


def display_path(path: str | Path) -> str:
    """`path` relative to the working directory when it is inside it, else absolute (never just its name)."""
    p = Path(path).resolve()
    try:
        rel = p.relative_to(Path.cwd().resolve())
    except ValueError:
        return p.as_posix()
    return rel.as_posix() if rel.parts else "."


def duration(seconds: float) -> str:
    """A rough human duration: ``"45 s"``, ``"12 min"``, ``"3.5 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class _Bar:
    def __init__(self, console: Console, total: int, desc: str) -> None:
        self.console, self.total, self.desc = console, total, desc
        self.done = 0
        self.start = self.last = time.monotonic()
        self._tqdm = None
        if console.progress and console.tty:
            from tqdm import tqdm
            self._tqdm = tqdm(total=total, unit="run", desc=desc, file=console.stream)

    def update(self, n: int) -> None:
        self.done += n
        if self._tqdm is not None:
            self._tqdm.update(n)
            return
        now = time.monotonic()
        if self.console.progress and now - self.last >= self.console.interval:
            self.last = now
            rate = self.done / max(now - self.start, 1e-9)
            left = (self.total - self.done) / rate if rate > 0 else float("inf")
            pct = 100.0 * self.done / self.total if self.total else 100.0
            self.console.note(f"{self.desc}: {self.done:,}/{self.total:,} runs ({pct:.1f}%), {rate:,.1f} runs/s, "
                              f"about {duration(left)} left")

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()

    def __enter__(self) -> _Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Console:
    """Where `packbench run` writes its notes and progress.

    Args:
        stream: Output (default: stderr).
        progress: Show progress at all.
        interval: Seconds between plain progress lines when `stream` is not a terminal
            (default: ``PACKBENCH_PROGRESS_INTERVAL`` or 10).
        prefix: Start of every note.
    """

    def __init__(self, stream: IO[str] | None = None, progress: bool = True, interval: float | None = None,
                 prefix: str = "packbench run") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.progress = progress
        if interval is None:
            interval = float(os.environ.get("PACKBENCH_PROGRESS_INTERVAL", "10"))
        self.interval = interval
        self.prefix = prefix
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())

    def note(self, message: str) -> None:
        """One line, always shown (progress or not)."""
        print(f"{self.prefix}: {message}", file=self.stream, flush=True)

    def bar(self, total: int, desc: str) -> Any:
        """A progress context with ``update(n)``."""
        return _Bar(self, total, desc)


