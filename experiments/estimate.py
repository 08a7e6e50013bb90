"""Before a large sweep: how many runs, per source and strategy, and about how long they will take.

The estimate comes from a short calibration: one pending run of each
(source, strategy) pair is timed in this process (instance building and the
reference included, so it errs on the long side), within a few seconds; the
pairs not reached get the mean of those that were.
"""

from __future__ import annotations

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


def calibrate(config: ExperimentConfig, pending: Sequence[PlannedUnit], seconds: float = 3.0) -> Estimate:
    """Time one pending run of each (source, strategy) pair, for at most about `seconds`."""
    from .measure import run_unit

    start = time.perf_counter()
    firsts: dict[tuple[str, str], tuple[PlannedUnit, int]] = {}
    for pu in pending:
        n = len(pu.unit.cells)
        for pos in range(len(pu.run_ids)) if pu.todo is None else pu.todo:
            firsts.setdefault((pu.unit.source, pu.unit.cells[pos % n].strategy), (pu, pos))
    per_run = {}
    for pair, (pu, pos) in firsts.items():
        if per_run and time.perf_counter() - start > seconds:
            break
        t0 = time.perf_counter()
        run_unit(config, replace(pu, todo=(pos,)), {})
        per_run[pair] = time.perf_counter() - t0
    return Estimate(per_run, len(per_run), time.perf_counter() - start)


def count_table(planned: Sequence[PlannedUnit], pending: Sequence[PlannedUnit]) -> list[tuple[str, str, int, int]]:
    """(source, strategy, runs planned, runs to do) per pair, in config order."""
    total, todo = counts(planned), counts(pending)
    return [(src, strat, n, todo.get((src, strat), 0)) for (src, strat), n in total.items()]


