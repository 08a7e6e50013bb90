"""Verdicts of ``bench --check``: speed from paired timings, quality from side-by-side figures.

Speed. A case is ``slower`` (fails) only when the whole confidence interval
of its median per-pair ratio (current / REF) lies above `tolerance` *and*
the median per-pair difference exceeds `floor` seconds; ``faster`` when the
interval lies below 1 / tolerance (reported, passes); ``unsure`` when the
median is above the tolerance but the interval is not (passes, says so).

Quality. Every case reduces its result to exact figures (scores, optimality,
digests of chosen ids). They are compared with REF's figures from the same
run and with the committed baseline:

- equal to the baseline: ``ok`` (a deliberate change was accepted with
  ``--update-baseline`` in this change, or nothing changed);
- equal to REF's but not the baseline's: ``stale`` (the change landed before
  REF; passes, asks for ``--update-baseline``);
- otherwise judged against REF (or the baseline when there is no REF):
  ``worse`` if a figure where higher is better (score, best, recall,
  precision, optimal) fell or an error appeared (fails); ``improved`` if one
  rose and none fell (passes); ``equivalent`` if only neutral figures (ids,
  counts) changed while the case's directed figures stayed equal (passes:
  another optimum, the same quality); ``changed`` if the case has no directed
  figure at all and a neutral one changed (fails until the baseline is
  updated: there is nothing to tell better from worse).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from packbench.experiments.gate.status import FAILING, Quality, Speed
from packbench.experiments.metrics import Better

from .stats import Paired

__all__ = ["CheckRow", "judge_quality", "judge_speed", "detectable", "format_check", "QUALITY_FIGURES"]

# The directed quality figures of the bench's cases (each case's own result: a score, the best
# score found, retrieval recall and precision, proven optimality); every other figure is neutral.
QUALITY_FIGURES: Mapping[str, Better] = MappingProxyType({
    "score": Better.HIGHER, "best": Better.HIGHER, "recall": Better.HIGHER, "precision": Better.HIGHER,
    "optimal": Better.HIGHER})


@dataclass(frozen=True)
class CheckRow:
    """One case of the check.

    Attributes:
        name: Case name.
        speed: A `Speed` status.
        quality: A `Quality` status.
        paired: The paired timing summary (None when not timed).
        notes: Why, naming the figures.
    """

    name: str
    speed: Speed
    quality: Quality
    paired: Paired | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> bool:
        """True for a regression of speed or quality."""
        return self.speed in FAILING or self.quality in FAILING


def _rank(key: str, value: Any) -> float:
    if key == "optimal":
        return 1.0 if value is True else 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return float("-inf")
    return float(value)


def _classify(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    worse, better, neutral = [], [], []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        change = f"{key}: {a!r} -> {b!r}"
        if key == "error":
            (worse if b is not None and a is None else better if a is not None and b is None else neutral).append(change)
        elif key in QUALITY_FIGURES:
            fell = _rank(key, b) < _rank(key, a)
            (worse if fell == (QUALITY_FIGURES[key] is Better.HIGHER) else better).append(change)
        else:
            neutral.append(change)
    return worse, better, neutral


def judge_quality(current: dict[str, Any], ref: dict[str, Any] | None,
                  baseline: dict[str, Any] | None) -> tuple[str, list[str]]:
    """Quality status of one case and the figures behind it (see the module docstring).

    Args:
        current: This tree's figures.
        ref: REF's figures from the same run (None: no REF, or the case is new since REF).
        baseline: The committed baseline's figures (None: not recorded).

    Returns:
        (status, notes).
    """
    if baseline is not None and current == baseline:
        return Quality.OK, []
    if baseline is not None and set(baseline) != set(current) and "error" not in current:
        # A figure only one side has would read as gained or lost quality: the record is not this case's.
        only_base, only_case = sorted(set(baseline) - set(current)), sorted(set(current) - set(baseline))
        return Quality.CHANGED, [f"the baseline's figures are not this case's (baseline only: "
                                 f"{', '.join(only_base) or 'none'}; case only: {', '.join(only_case) or 'none'}): "
                                 f"record them with --update-baseline"]
    if ref is not None and current == ref:
        if baseline is None:
            return Quality.OK, ["not in the baseline"]
        return Quality.STALE, ["same as REF, differs from the baseline: run --update-baseline"]
    other = ref if ref is not None else baseline
    if other is None:
        return Quality.NEW, ["not in REF nor in the baseline"]
    against = "REF" if ref is not None else "the baseline"
    worse, better, neutral = _classify(other, current)
    if worse:
        return Quality.WORSE, [f"vs {against}: " + "; ".join(worse + better + neutral)]
    if better:
        return Quality.IMPROVED, [f"vs {against}: " + "; ".join(better + neutral) + " (run --update-baseline to record)"]
    directed = any(k in QUALITY_FIGURES for k in set(other) | set(current))
    if directed:
        return Quality.EQUIVALENT, [f"vs {against}: " + "; ".join(neutral) + " (same scores)"]
    return Quality.CHANGED, [f"vs {against}: " + "; ".join(neutral) + " (if deliberate: --update-baseline)"]


def judge_speed(p: Paired, tolerance: float, floor: float, *, real_at_median: bool = False) -> tuple[Speed, str]:
    """Speed status of one case from its pairs, and the sentence that explains it.

    Args:
        p: The pairs' summary.
        tolerance: Slowdown factor that fails.
        floor: Seconds (per call) of slowdown below which nothing fails.
        real_at_median: The user gate's rule: slower when the median ratio is over `tolerance`
            and the whole interval over 1 (the slowdown is real at the interval's confidence).
            False (the bench's rule): the whole interval must lie over `tolerance`.
    """
    fig = (f"{p.ratio:.2f}x [{p.low:.2f}, {p.high:.2f}] over {p.n} pairs, "
           f"{_ms(p.current)} vs {_ms(p.reference)} per call")
    over = p.ratio > tolerance and p.diff > floor
    if over and (p.low > 1.0 if real_at_median else p.low > tolerance):
        return Speed.SLOWER, f"slower: {fig} (tolerance {tolerance:g}x, floor {_ms(floor)})"
    if p.high < 1.0 / tolerance and -p.diff > floor:
        return Speed.FASTER, f"faster: {fig}"
    if over:
        bound = "1" if real_at_median else f"{tolerance:g}x"
        return Speed.UNSURE, f"maybe slower, interval reaches below {bound}: {fig}"
    return Speed.OK, fig


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.4f} ms" if abs(ms) < 0.1 else f"{ms:.2f} ms"


def detectable(p: Paired, tolerance: float, floor: float, *, real_at_median: bool = False) -> float:
    """The smallest slowdown factor `judge_speed` would flag at the noise of these pairs.

    The pairs' spread below their median (median / interval's low end) is the factor a slowdown
    must exceed to lift the whole interval over 1 (over `tolerance` with the bench's rule); the
    floor adds its own bound at this case's time per call.
    """
    spread = p.ratio / p.low if p.low > 0 else float("inf")
    noise = spread if real_at_median else spread * tolerance
    at_floor = 1.0 + floor / p.reference if p.reference > 0 else float("inf")
    return max(tolerance, noise, at_floor)


def format_check(rows: list[CheckRow], header: str = "") -> str:
    """The check as a fixed-width table, regressions marked with ``!!``."""
    out = [header] if header else []
    out.append(f"{'case':40} {'speed':9} {'cur/ref':>8} {'interval':>15} {'cur ms':>9} {'ref ms':>9}  quality")
    for r in rows:
        p = r.paired
        nums = (f"{p.ratio:8.2f} {f'[{p.low:.2f}, {p.high:.2f}]':>15} {p.current * 1e3:9.2f} {p.reference * 1e3:9.2f}"
                if p else f"{'-':>8} {'-':>15} {'-':>9} {'-':>9}")
        mark = "!! " if r.failed else "   "
        out.append(f"{mark}{r.name:37} {r.speed:9} {nums}  {r.quality}")
        for note in r.notes:
            out.append(f"      {note}")
    failed = [r.name for r in rows if r.failed]
    out.append(f"{len(failed)} regression(s): {', '.join(failed)}" if failed else "no regressions")
    return "\n".join(out)
