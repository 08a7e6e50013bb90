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

from dataclasses import dataclass, field
from typing import Any

from .stats import Paired

__all__ = ["CheckRow", "judge_quality", "judge_speed", "format_check", "HIGHER_IS_BETTER",
           "OK", "SLOWER", "FASTER", "UNSURE", "WORSE", "IMPROVED", "EQUIVALENT", "CHANGED", "STALE",
           "NEW", "ERROR", "NOT_TIMED", "FAILING"]

OK = "ok"
SLOWER = "slower"
FASTER = "faster"
UNSURE = "unsure"
NOT_TIMED = "not timed"
WORSE = "worse"
IMPROVED = "improved"
EQUIVALENT = "equivalent"
CHANGED = "changed"
STALE = "stale"
NEW = "new"
ERROR = "error"
NONDETERMINISTIC = "nondeterministic"
FAILING = frozenset({SLOWER, WORSE, CHANGED, ERROR, NONDETERMINISTIC})

# Quality figures where a larger value is a better result; every other figure is neutral.
HIGHER_IS_BETTER = ("score", "best", "recall", "precision", "optimal")


@dataclass(frozen=True)
class CheckRow:
    """One case of the check.

    Attributes:
        name: Case name.
        speed: Speed status (OK, SLOWER, FASTER, UNSURE, NOT_TIMED, ERROR).
        quality: Quality status (OK, WORSE, IMPROVED, EQUIVALENT, CHANGED, STALE, NEW, ERROR, ...).
        paired: The paired timing summary (None when not timed).
        notes: Why, naming the figures.
    """

    name: str
    speed: str
    quality: str
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
        elif key in HIGHER_IS_BETTER:
            (worse if _rank(key, b) < _rank(key, a) else better).append(change)
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
        return OK, []
    if ref is not None and current == ref:
        if baseline is None:
            return OK, ["not in the baseline"]
        return STALE, ["same as REF, differs from the baseline: run --update-baseline"]
    other = ref if ref is not None else baseline
    if other is None:
        return NEW, ["not in REF nor in the baseline"]
    against = "REF" if ref is not None else "the baseline"
    worse, better, neutral = _classify(other, current)
    if worse:
        return WORSE, [f"vs {against}: " + "; ".join(worse + better + neutral)]
    if better:
        return IMPROVED, [f"vs {against}: " + "; ".join(better + neutral) + " (run --update-baseline to record)"]
    directed = any(k in HIGHER_IS_BETTER for k in set(other) | set(current))
    if directed:
        return EQUIVALENT, [f"vs {against}: " + "; ".join(neutral) + " (same scores)"]
    return CHANGED, [f"vs {against}: " + "; ".join(neutral) + " (if deliberate: --update-baseline)"]


def judge_speed(p: Paired, tolerance: float, floor: float) -> tuple[str, str]:
    """Speed status of one case from its pairs, and the sentence that explains it."""
    fig = (f"{p.ratio:.2f}x [{p.low:.2f}, {p.high:.2f}] over {p.n} pairs, "
           f"{p.current * 1e3:.2f} ms vs {p.reference * 1e3:.2f} ms")
    if p.low > tolerance and p.diff > floor:
        return SLOWER, f"slower: {fig} (tolerance {tolerance:g}x, floor {floor * 1e3:g} ms)"
    if p.high < 1.0 / tolerance and -p.diff > floor:
        return FASTER, f"faster: {fig}"
    if p.ratio > tolerance and p.diff > floor:
        return UNSURE, f"maybe slower, interval reaches below {tolerance:g}x: {fig}"
    return OK, fig


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
