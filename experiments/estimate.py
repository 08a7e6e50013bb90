"""Before a large sweep: how many runs, per source and strategy, and about how long they will take.

The estimate comes from a short calibration, within a few seconds. Each
sampled unit's instances are built once (timed: a worker builds them once per
unit, which for a corpus means reading and indexing it), then one pending run
of each (source, strategy) pair is timed on them, the runs of an instance
sharing its reference optimum as they do in a sweep. The total is the build
time of every pending unit plus the time of every pending run; sources and
pairs not reached get the mean of those that were.
"""

from __future__ import annotations

import heapq
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .config import ExperimentConfig
from .plan import PlannedUnit, counts

__all__ = ["Estimate", "calibrate", "count_table"]


def _mean(values: Mapping[Any, float]) -> float:
    return sum(values.values()) / len(values) if values else 0.0


@dataclass(frozen=True)
class Estimate:
    """Seconds per run of each (source, strategy) pair, and per unit build of each source, that were timed.

    Attributes:
        per_run: (source, strategy) -> seconds of one run.
        per_build: source -> seconds to build one unit's instances.
        sampled: Runs timed.
        calibration_seconds: Wall time the calibration took.
    """

    per_run: Mapping[tuple[str, str], float]
    per_build: Mapping[str, float]
    sampled: int
    calibration_seconds: float

    def seconds(self, pending: Sequence[PlannedUnit], workers: int) -> float | None:
        """Estimated wall time of the `pending` runs on `workers` parallel workers (None without any sample).

        A unit runs on one worker, so the units are dealt longest first to the least loaded
        worker and the estimate is the most loaded one's time.
        """
        if not self.per_run:
            return None
        run_fallback, build_fallback = _mean(self.per_run), _mean(self.per_build)
        unit_seconds = sorted((self.per_build.get(pu.unit.source, build_fallback)
                               + sum(n * self.per_run.get(pair, run_fallback) for pair, n in counts([pu]).items())
                               for pu in pending if len(pu)), reverse=True)
        loads = [0.0] * max(1, workers)
        for sec in unit_seconds:
            heapq.heappush(loads, heapq.heappop(loads) + sec)
        return max(loads)


def calibrate(config: ExperimentConfig, pending: Sequence[PlannedUnit], seconds: float = 3.0,
              per_pair: int = 5) -> Estimate:
    """Time up to `per_pair` pending runs of each (source, strategy) pair, for at most about `seconds`.

    One untimed run first pays the one-off costs (imports, caches); each pair's
    estimate is the median of its timed runs, each source's build the median of its timed builds.
    """
    from .measure import unit_instances, unit_rows

    start = time.perf_counter()
    samples: dict[tuple[str, str], list[tuple[PlannedUnit, int]]] = {}
    for pu in pending:
        n = len(pu.unit.cells)
        for pos in range(len(pu.run_ids)) if pu.todo is None else pu.todo:
            got = samples.setdefault((pu.unit.source, pu.unit.cells[pos % n].strategy), [])
            if len(got) < per_pair + 1:
                got.append((pu, pos))
    if not samples:
        return Estimate({}, {}, 0, 0.0)
    pu, pos = next(iter(samples.values()))[0]
    warm = replace(pu, todo=(pos,))
    unit_rows(config, warm, *unit_instances(warm), {}, {})  # warm-up, not timed
    built: dict[int, tuple[dict, str | None, dict]] = {}  # by id of the planned unit: built once each
    builds: dict[str, list[float]] = {}

    def timed_run(pu: PlannedUnit, pos: int) -> float:
        if id(pu) not in built:
            t0 = time.perf_counter()
            by_key, unavailable = unit_instances(pu)
            builds.setdefault(pu.unit.source, []).append(time.perf_counter() - t0)
            built[id(pu)] = (by_key, unavailable, {})
        by_key, unavailable, refs = built[id(pu)]
        t0 = time.perf_counter()
        unit_rows(config, replace(pu, todo=(pos,)), by_key, unavailable, refs, {})
        return time.perf_counter() - t0

    times: dict[tuple[str, str], list[float]] = {pair: [] for pair in samples}
    for k in range(1, per_pair + 1):
        for pair, runs in samples.items():
            if k >= len(runs) and times[pair] or time.perf_counter() - start > seconds and times[pair]:
                continue
            times[pair].append(timed_run(*runs[min(k, len(runs) - 1)]))
    per_run = {pair: statistics.median(t) for pair, t in times.items() if t}
    per_build = {source: statistics.median(t) for source, t in builds.items()}
    return Estimate(per_run, per_build, sum(map(len, times.values())), time.perf_counter() - start)


def count_table(planned: Sequence[PlannedUnit], pending: Sequence[PlannedUnit]) -> list[tuple[str, str, int, int]]:
    """(source, strategy, runs planned, runs to do) per pair, in config order."""
    total, todo = counts(planned), counts(pending)
    return [(src, strat, n, todo.get((src, strat), 0)) for (src, strat), n in total.items()]


