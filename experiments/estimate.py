"""Before a large sweep: how many runs, per source and strategy, and about how long they will take.

The estimate comes from a short calibration: one pending run of each
(source, strategy) pair is timed in this process (instance building and the
reference included, so it errs on the long side), within a few seconds; the
pairs not reached get the mean of those that were.
"""

from __future__ import annotations

import statistics
import time

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from .config import ExperimentConfig
from .plan import PlannedUnit, counts

__all__ = ["Estimate", "calibrate", "count_table"]


@dataclass(frozen=True)
class Estimate:
    """Seconds per run of each (source, strategy) pair that was timed.

    Attributes:
        per_run: (source, strategy) -> seconds of one run.
        sampled: Runs timed.
        calibration_seconds: Wall time the calibration took.
    """

    per_run: Mapping[tuple[str, str], float]
    sampled: int
    calibration_seconds: float

    def seconds(self, runs: Mapping[tuple[str, str], int], workers: int) -> float | None:
        """Estimated wall time of `runs` on `workers` parallel workers (None without any sample)."""
        if not self.per_run:
            return None
        fallback = sum(self.per_run.values()) / len(self.per_run)
        total = sum(n * self.per_run.get(pair, fallback) for pair, n in runs.items())
        return total / max(1, workers)


def calibrate(config: ExperimentConfig, pending: Sequence[PlannedUnit], seconds: float = 3.0,
              per_pair: int = 5) -> Estimate:
    """Time up to `per_pair` pending runs of each (source, strategy) pair, for at most about `seconds`.

    One untimed run first pays the one-off costs (imports, caches); each pair's
    estimate is the median of its timed runs.
    """
    from .measure import run_unit

    start = time.perf_counter()
    samples: dict[tuple[str, str], list[tuple[PlannedUnit, int]]] = {}
    for pu in pending:
        n = len(pu.unit.cells)
        for pos in range(len(pu.run_ids)) if pu.todo is None else pu.todo:
            got = samples.setdefault((pu.unit.source, pu.unit.cells[pos % n].strategy), [])
            if len(got) < per_pair + 1:
                got.append((pu, pos))
    if not samples:
        return Estimate({}, 0, 0.0)
    pu, pos = next(iter(samples.values()))[0]
    run_unit(config, replace(pu, todo=(pos,)), {})  # warm-up, not timed
    times: dict[tuple[str, str], list[float]] = {pair: [] for pair in samples}
    for k in range(1, per_pair + 1):
        for pair, runs in samples.items():
            if k >= len(runs) and times[pair] or time.perf_counter() - start > seconds and times[pair]:
                continue
            pu, pos = runs[min(k, len(runs) - 1)]
            t0 = time.perf_counter()
            run_unit(config, replace(pu, todo=(pos,)), {})
            times[pair].append(time.perf_counter() - t0)
    per_run = {pair: statistics.median(t) for pair, t in times.items() if t}
    return Estimate(per_run, sum(map(len, times.values())), time.perf_counter() - start)


def count_table(planned: Sequence[PlannedUnit], pending: Sequence[PlannedUnit]) -> list[tuple[str, str, int, int]]:
    """(source, strategy, runs planned, runs to do) per pair, in config order."""
    total, todo = counts(planned), counts(pending)
    return [(src, strat, n, todo.get((src, strat), 0)) for (src, strat), n in total.items()]


