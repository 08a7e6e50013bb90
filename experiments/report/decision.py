"""Which strategy to ship: the Pareto set over (quality, p95 latency) per source x budget, and a pick.

A *cell* is one source (all its parameter combinations), one budget and, when
the source was run at several dedupe thresholds, one threshold (score ratios
under different thresholds divide by different optima, so they are not
compared). Quality is the mean answer recall where the source has answer
labels, else the mean score ratio; latency is the 95th percentile over the
cell's runs of each run's median wall time. Only strategies whose every run in
the cell was measured (``ok`` or ``timeout``) compete.

The pick: among the Pareto set, the fastest strategy whose quality is within
`TOLERANCE` of the best, where p95 latencies within `LATENCY_TIE` of the
fastest count as equal (then the higher quality, then the higher mean score
ratio wins); its reason names the quality, the latency, the worst score ratio
and what the best-quality strategy costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .frame import aggregate, budget_sort, measured

__all__ = ["TOLERANCE", "LATENCY_TIE", "Candidate", "Decision", "pareto_front", "decisions"]

TOLERANCE = 0.005  # quality within half a percentage point of the best counts as "as good"
LATENCY_TIE = 1.25  # p95 latencies within 25% of each other count as equal


@dataclass(frozen=True)
class Candidate:
    """One strategy's figures in a cell.

    Attributes:
        strategy: Short strategy label.
        quality: Mean answer recall or mean score ratio.
        p95_ms: 95th percentile of the per-run median runtimes, in ms.
        ratio_mean: Mean score ratio.
        ratio_worst: Worst score ratio.
        ratio_kind: ``exact`` or ``certified_lower_bound``.
        timeouts: Runs stopped at their time limit.
    """

    strategy: str
    quality: float
    p95_ms: float
    ratio_mean: float
    ratio_worst: float
    ratio_kind: str | None
    timeouts: int


@dataclass(frozen=True)
class Decision:
    """The answer for one cell.

    Attributes:
        source: Source name.
        budget: Budget key.
        near_dup: Dedupe threshold key, or None when the source used one setting.
        quality_name: ``"answer recall"`` or ``"score ratio"``.
        candidates: Every eligible strategy.
        front: The Pareto set, fastest first.
        pick: The recommended strategy.
        why: One sentence saying why.
        excluded: Strategies left out because some of their runs were skipped or failed.
    """

    source: str
    budget: str
    near_dup: str | None
    quality_name: str
    candidates: tuple[Candidate, ...]
    front: tuple[Candidate, ...]
    pick: Candidate | None
    why: str
    excluded: tuple[str, ...]


def _q(value: float) -> float:
    return round(float(value), 4)  # float noise (0.99999999 vs 1.0) is not a difference


def _key(c: Candidate) -> tuple[float, float]:
    """Quality, with the mean score ratio breaking ties of answer recall (a no-op when quality is the ratio)."""
    return (_q(c.quality), _q(c.ratio_mean))


def pareto_front(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates no other one beats on both quality (higher) and p95 latency (lower), fastest first.

    Quality compares as (quality, mean score ratio), so among strategies with
    equal answer recall the one with the higher score ratio is not dominated
    by a faster one with a lower ratio.
    """
    front = []
    for c in candidates:
        dominated = any(_key(o) >= _key(c) and o.p95_ms <= c.p95_ms and (_key(o) > _key(c) or o.p95_ms < c.p95_ms)
                        for o in candidates)
        if not dominated:
            front.append(c)
    return sorted(front, key=lambda c: (c.p95_ms, tuple(-k for k in _key(c)), c.strategy))


def _ms(value: float) -> str:
    return f"{value:.2g} ms" if value < 10 else f"{value:,.0f} ms"


def _why(pick: Candidate, best: Candidate, quality_name: str) -> str:
    exact = "" if pick.ratio_kind == "exact" else " (certified lower bound)"
    ratio = "" if quality_name == "score ratio" else f", mean score ratio {pick.ratio_mean:.3f}"
    text = (f"mean {quality_name} {pick.quality:.3f}{ratio} at p95 {_ms(pick.p95_ms)}; "
            f"worst score ratio {pick.ratio_worst:.3f}{exact}")
    if best.strategy != pick.strategy:
        gap = best.quality - pick.quality
        text += (f"; best {best.strategy} {best.quality:.3f} costs {_ms(best.p95_ms)}"
                 + (f" for +{gap:.3f}" if gap >= 0.0005 else ""))
    if pick.timeouts:
        text += f"; {pick.timeouts} run(s) stopped at the time limit"
    return text


def _decide(source: str, budget: str, near_dup: str | None, part) -> Decision:
    has_recall = "answer_recall_mean" in part and part["answer_recall_mean"].notna().any()
    quality_col, quality_name = (("answer_recall_mean", "answer recall") if has_recall
                                 else ("ratio_mean", "score ratio"))
    # A strategy that went over the budget (a peer's own overflow) is never recommended: it wins by cheating.
    within = part["budget_violations"].fillna(0) == 0 if "budget_violations" in part else True
    eligible = part[(part["ok"] + part["timeout"] == part["runs"]) & part[quality_col].notna()
                    & part["runtime_p95_ms"].notna() & within]
    excluded = tuple(sorted(set(part["strategy"]) - set(eligible["strategy"])))
    cands = tuple(Candidate(str(r.strategy), float(getattr(r, quality_col)), float(r.runtime_p95_ms),
                            float(r.ratio_mean), float(r.ratio_worst), r.ratio_kind, int(r.timeout))
                  for r in eligible.itertuples(index=False))
    front = tuple(pareto_front(cands))
    if not front:
        return Decision(source, budget, near_dup, quality_name, cands, front, None, "no strategy measured every run",
                        excluded)
    best = max(front, key=lambda c: (_key(c), -c.p95_ms))
    good = [c for c in front if c.quality >= best.quality - TOLERANCE]
    fastest = min(c.p95_ms for c in good)
    # Latencies within LATENCY_TIE of the fastest are noise on a shared machine: quality, then ratio, decide.
    pick = max((c for c in good if c.p95_ms <= fastest * LATENCY_TIE), key=lambda c: (_key(c), -c.p95_ms))
    return Decision(source, budget, near_dup, quality_name, cands, front, pick, _why(pick, best, quality_name),
                    excluded)


def decisions(df) -> list[Decision]:
    """One `Decision` per source x budget (x dedupe threshold where it varies), in source and budget order.

    Args:
        df: A report `frame` (all rows; statuses are counted).
    """
    if df.empty or measured(df).empty:
        return []
    swept = df.groupby("source")["near_dup_key"].nunique()
    df = df.assign(_nd=[k if swept[s] > 1 else "" for s, k in zip(df["source"], df["near_dup_key"])])
    table = aggregate(df, ["source", "budget_key", "_nd", "choice"]).rename(columns={"choice": "strategy"})
    out = []
    for (source, budget, nd), part in table.groupby(["source", "budget_key", "_nd"], sort=False):
        out.append(_decide(str(source), str(budget), nd or None, part))
    return sorted(out, key=lambda d: (d.source, budget_sort(d.budget), _threshold_key(d.near_dup)))


def _threshold_key(key: str | None) -> tuple[int, float]:
    return (1, 0.0) if key in (None, "off") else (0, float(key))
