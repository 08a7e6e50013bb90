"""Medians of repeated timings and peak memory (in-process; the regression check pairs processes instead)."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

__all__ = ["median_seconds", "peak_memory"]


def median_seconds(fn: Callable[[], Any], repeats: int) -> tuple[float, Any, list[float]]:
    """Run `fn` `repeats` times; (median seconds, last result, all timings)."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result, times


def peak_memory(fn: Callable[[], Any]) -> tuple[int, Any]:
    """(peak bytes allocated while `fn` runs, as traced by tracemalloc, its result)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, result
