"""The reference workload: a fixed piece of work timed beside every measured call, so latency has a unit.

A busy neighbour on the same core, a slower CPU or a throttled clock stretches
a process's CPU time by a factor that is much the same for every piece of
Python code it runs in that moment. Each measured run therefore also times
`reference_workload` (dict counting, a keyed sort, set algebra, string
joining and a small numpy argsort: the mix of a `pack` call on small inputs)
right before each of its timed calls, in the same worker, and stores the
least of those times as ``cpu_reference_s``. The report divides a run's CPU
time by it and multiplies by `REFERENCE_MS`, which states latency in
*reference ms*: milliseconds on a machine where the workload costs exactly
`REFERENCE_MS` (this project's 2-vCPU machine, idle). The factor the load or
the CPU model puts on both cancels; what is left moves far less than raw CPU
time (docs/decisions.md gives the figures).
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["REFERENCE_MS", "reference_workload", "time_reference", "reference_speed"]

# Declared, not measured at run time: the unit's definition (the least CPU time of the workload on the
# project's idle 2-vCPU machine, Python 3.12, rounded). Changing it rescales every latency class.
REFERENCE_MS = 0.2

_WORDS = tuple(f"w{(i * 7919) % 1009}" for i in range(480))
_KEYS = np.random.default_rng(0).random(256)


def reference_workload() -> int:
    """Do the fixed reference work once; returns a checksum so none of it can be skipped."""
    counts: dict[str, int] = {}
    for word in _WORDS:
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    common = set(ranked[:120]) & set(_WORDS[::3])
    order = np.argsort(-_KEYS, kind="stable")
    return len(common) + int(order[0]) + len(" ".join(ranked).split())


def time_reference() -> float:
    """Process CPU seconds of one `reference_workload` call."""
    start = time.process_time()
    reference_workload()
    return time.process_time() - start


def reference_speed(calls: int = 25) -> dict[str, float]:
    """What the manifest records about the unit: `REFERENCE_MS` and the workload's least CPU ms here, now.

    Args:
        calls: How many times to time the workload (the least is kept).
    """
    return {"reference_ms": REFERENCE_MS,
            "reference_cpu_ms": round(min(time_reference() for _ in range(calls)) * 1e3, 4)}
