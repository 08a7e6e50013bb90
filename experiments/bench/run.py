"""Run the suite: time every case, collect quality figures, build the results document."""

from __future__ import annotations

import platform
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .suite import BenchCase
from .timing import median_seconds, peak_memory

__all__ = ["run_suite", "format_results", "MEMORY_CASES"]

# Cases whose peak traced memory is reported (run once more under tracemalloc, untimed).
MEMORY_CASES = ("dp/exact_dp_1000x32768",)


def run_suite(cases: Sequence[BenchCase], mode: str, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Time `cases` in this process and return the results document.

    Absolute seconds on this machine: for the table. Speed regressions are
    judged by `abtest`'s paired runs, never by comparing these with another
    machine's figures.

    Args:
        cases: What to run.
        mode: "quick" or "full" (recorded in the document).
        progress: Called with a line per case (name, position, median).

    Returns:
        ``{"version", "mode", "python", "numpy", "platform", "cases": {name: {...}}}``
        where each case has seconds (median), repeats, timings, quality, pair, quick.
    """
    results: dict[str, Any] = {}
    for pos, case in enumerate(cases, 1):
        state = case.setup()
        seconds, result, times = median_seconds(lambda: case.run(state), case.repeats)
        entry = {"seconds": seconds, "repeats": case.repeats, "timings": [round(t, 6) for t in times],
                 "quality": case.quality(result), "pair": case.pair, "quick": case.quick}
        if case.name in MEMORY_CASES:
            entry["peak_bytes"] = peak_memory(lambda: case.run(state))[0]
        results[case.name] = entry
        if progress:
            progress(f"[{pos}/{len(cases)}] {case.name}: {seconds:.4f} s")
    return {"version": 2, "mode": mode,
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": sys.platform, "cases": results}


def format_results(doc: dict[str, Any]) -> str:
    """Table of medians, with the speedup over the paired case where there is one."""
    cases = doc["cases"]
    out = [f"mode {doc['mode']}; seconds on this machine, medians in one process",
           f"{'case':44} {'median s':>10} {'speedup':>9}  quality"]
    for name, c in cases.items():
        pair = cases.get(c.get("pair") or "")
        speedup = f"{pair['seconds'] / c['seconds']:8.0f}x" if pair and c["seconds"] > 0 else f"{'':9}"
        quality = ", ".join(f"{k}={v}" for k, v in c["quality"].items() if k not in ("ids", "dropped", "indices"))
        if "peak_bytes" in c:
            quality += f", peak_mem={c['peak_bytes'] / 2**20:.1f} MiB"
        out.append(f"{name:44} {c['seconds']:10.4f} {speedup}  {quality}")
    return "\n".join(out)
