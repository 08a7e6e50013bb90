"""Before a large sweep: how many runs, per source and strategy, and about how long they will take.

The estimate comes from a short calibration, within a few seconds. A few
pending runs of each (source, strategy) pair, spread over its runs, are timed;
each unit they belong to is built once (timed apart: a worker builds a unit's
instances once, which for a corpus means reading and indexing it), and the
runs of an instance share its reference optimum as they do in a sweep. The
total is the build time of every pending unit plus the time of every pending
run; sources and pairs not reached get the mean of those that were.
"""

from __future__ import annotations

import heapq
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .config import ExperimentConfig
from .planning.runs import PlannedUnit, counts

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


def _spread(k: int) -> float:
    """The k-th fraction of 1/2, 1/4, 3/4, 1/8, 3/8, 5/8, 7/8, ...: any prefix covers [0, 1] evenly."""
    level = (k + 1).bit_length() - 1
    return (2 * (k + 1 - (1 << level)) + 1) / (2 << level)


def _samples(pending: Sequence[PlannedUnit], per_pair: int) -> dict[tuple[str, str], list[tuple[PlannedUnit, int]]]:
    """Per (source, strategy), up to `per_pair` of its pending runs spread over all of them, in `_spread` order.

    Spread, not the first ones: sweeps usually grow along the plan (larger instances, longer
    limits come later), so the first runs of a pair say little about its mean.
    """
    totals = counts(pending)
    wanted = {pair: {int(_spread(k) * n): k for k in range(min(per_pair, n))} for pair, n in totals.items()}
    seen: dict[tuple[str, str], int] = dict.fromkeys(totals, 0)
    found: dict[tuple[str, str], dict[int, tuple[PlannedUnit, int]]] = {pair: {} for pair in totals}
    for pu in pending:
        n = len(pu.unit.cells)
        for pos in range(len(pu.run_ids)) if pu.todo is None else pu.todo:
            pair = (pu.unit.source, pu.unit.cells[pos % n].strategy)
            k = wanted[pair].get(seen[pair])
            if k is not None:
                found[pair][k] = (pu, pos)
            seen[pair] += 1
    return {pair: [got[k] for k in sorted(got)] for pair, got in found.items() if got}


def calibrate(config: ExperimentConfig, pending: Sequence[PlannedUnit], seconds: float = 3.0,
              per_pair: int = 5) -> Estimate:
    """Time up to `per_pair` pending runs of each (source, strategy) pair, for at most about `seconds`.

    The runs timed are spread over each pair's runs (`_samples`), and a pair's
    estimate is their mean: a sweep's time is the sum of its runs, which a few
    long ones (large instances) dominate. One untimed run first pays the one-off
    costs (imports, caches); each source's build is the median of its timed builds.
    """
    from .measure import unit_instances, unit_rows

    start = time.perf_counter()
    samples = _samples(pending, per_pair)
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
    for k in range(per_pair):
        for pair, runs in samples.items():
            if k >= len(runs) or times[pair] and time.perf_counter() - start > seconds:
                continue
            times[pair].append(timed_run(*runs[k]))
    per_run = {pair: statistics.fmean(t) for pair, t in times.items() if t}
    per_build = {source: statistics.median(t) for source, t in builds.items()}
    return Estimate(per_run, per_build, sum(map(len, times.values())), time.perf_counter() - start)


def count_table(planned: Sequence[PlannedUnit], pending: Sequence[PlannedUnit]) -> list[tuple[str, str, int, int]]:
    """(source, strategy, runs planned, runs to do) per pair, in config order."""
    total, todo = counts(planned), counts(pending)
    return [(src, strat, n, todo.get((src, strat), 0)) for (src, strat), n in total.items()]


