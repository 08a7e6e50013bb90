"""Medians of repeated timings, the same-run reference computation, and peak memory."""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from .reference import pure_python_dp

__all__ = ["median_seconds", "reference_seconds", "peak_memory"]


def median_seconds(fn: Callable[[], Any], repeats: int) -> tuple[float, Any, list[float]]:
    """Run `fn` `repeats` times; (median seconds, last result, all timings)."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result, times


def _reference_work() -> float:
    # A mix of interpreted loops and numpy work, like the library's own hot paths.
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 2**40, 400_000)
    np.sort(arr)
    return pure_python_dp(list(range(1, 41)), [float(k % 7 + 1) for k in range(40)], 1500)


def reference_seconds(repeats: int = 7) -> float:
    """Median time of a fixed reference computation; speed checks divide by it."""
    return median_seconds(_reference_work, repeats)[0]


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
