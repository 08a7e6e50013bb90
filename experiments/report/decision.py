"""Which strategy to ship, per cell: quality with paired intervals, then latency classes, then simplicity.

A *cell* is one source, one budget and, where the source swept it, one dedupe
threshold. Its instances are the source's parameter combinations x seeds x
instances; a strategy competes when it is meant for the source's domain
(`Strategy.DOMAINS` vs `Source.DOMAIN`), every one of its runs was measured,
it stayed within the budget and it ran on every instance of the cell.

The rule (docs/decisions.md), using only quality columns and CPU-time classes:

1. Fewer than `MIN_INSTANCES` instances: no pick ("not enough instances").
2. For each declared quality metric (`QUALITY`, in order; those the cell
   measured): the best mean wins; a strategy is *tied for best* when the 95%
   paired bootstrap interval of its per-instance difference to the best
   reaches within `DELTA` of zero. Only the tied go on to the next metric, so a
   saturated metric (every strategy at recall 1) hands over to the next.
3. Among the strategies left: the lowest latency class (`latency.LATENCY_CLASSES`,
   CPU time per call in reference ms; a strategy is in a class unless surely
   above its bound), where a strategy is slower only when its class is higher
   *and* the paired interval of its CPU-time ratio lies above `PAIR_MARGIN`.
4. Then the first in the declared simplicity order (`SIMPLICITY`).

No timing figure enters the text: only classes, so the decision reads the
same on a busy machine.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..metrics import ALL_METRICS, Better
from .domains import source_domain, strategy_domains
from .frame import budget_sort, measured, reference_ms
from .latency import LATENCY_CLASSES, LATENCY_MARGIN, PAIR_MARGIN, class_text, latency_class, surely_slower
from .stats import Interval, paired_interval

__all__ = ["QUALITY", "DELTA", "MIN_INSTANCES", "LATENCY_CLASSES", "LATENCY_MARGIN", "PAIR_MARGIN", "SIMPLICITY", "Candidate",
           "Decision", "decisions", "latency_class", "class_text", "rank", "simplicity", "slower", "metric_name",
           "higher"]

# Declared quality metrics, in the order the decision falls back through them: (column, name, declared metric).
# The direction is the declared metric's (`metrics.ALL_METRICS[...].better`); utility_share is utility over the
# best strategy's utility on the instance, so it goes the way utility goes.
QUALITY = (("answer_recall", "answer recall", "answer_recall"), ("score_ratio", "score ratio", "score_ratio"),
           ("leak_tokens", "duplicate share", "leak_tokens"), ("utility_share", "position-weighted utility", "utility"))
DELTA = 0.001  # a mean difference this small is no difference (every quality metric lies in [0, 1])
MIN_INSTANCES = 5
SIMPLICITY = ("prefix", "greedy", "greedy_best_single", "recency", "fptas", "exact_dp", "exact", "bnb", "cpsat",
              "mmr", "submodular")


def simplicity(strategy: str) -> tuple[int, str]:
    """Sort key of the declared simplicity order (packbench's own first, then by name)."""
    base = strategy.partition("(")[0]
    return (SIMPLICITY.index(base) if base in SIMPLICITY else len(SIMPLICITY), strategy)


@dataclass(frozen=True)
class Candidate:
    """One strategy in a cell, with its per-instance values (aligned to `Decision.instances`).

    Attributes:
        strategy: Strategy label (parameters that vary included).
        name: Registered strategy name.
        values: Quality metric column -> per-instance values.
        cpu_ms: Per-instance CPU ms per call (least of the repeats; median over orders).
        latency: Latency class index of the median of `cpu_ms`.
        ratio_kind: ``exact`` or ``certified_lower_bound``.
        timeouts: Runs stopped at their limit.
    """

    strategy: str
    name: str
    values: Mapping[str, tuple[float, ...]]
    cpu_ms: tuple[float, ...]
    latency: int
    ratio_kind: str | None
    timeouts: int

    def mean(self, metric: str) -> float:
        return float(np.round(np.mean(self.values[metric]), 12))


@dataclass(frozen=True)
class Decision:
    """The answer for one cell.

    Attributes:
        source: Source name.
        budget: Budget key.
        near_dup: Dedupe threshold key, or None when the source used one setting.
        domain: The source's domain.
        instances: The cell's instance keys, sorted.
        metrics: The quality metrics that applied, in order (column names).
        candidates: The competing strategies, in simplicity order.
        stages: Per metric: (column, best strategy, strategies tied for best).
        versus: (strategy, column) -> interval of its difference to that stage's best.
        pick: The recommended strategy, or None.
        why: One sentence saying why (no timing figure).
        excluded: (strategy, reason) for in-domain strategies that could not compete.
        out_of_domain: (strategy, reason) for strategies not meant for this source.
    """

    source: str
    budget: str
    near_dup: str | None
    domain: str
    instances: tuple[str, ...]
    metrics: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    stages: tuple[tuple[str, str, tuple[str, ...]], ...]
    versus: Mapping[tuple[str, str], Interval]
    pick: Candidate | None
    why: str
    excluded: tuple[tuple[str, str], ...]
    out_of_domain: tuple[tuple[str, str], ...]

    @property
    def n(self) -> int:
        return len(self.instances)

    @property
    def tied(self) -> tuple[str, ...]:
        """Strategies tied for best on the first quality metric."""
        return self.stages[0][2] if self.stages else ()

    @property
    def quality_name(self) -> str:
        return metric_name(self.metrics[0]) if self.metrics else "quality"


def metric_name(column: str) -> str:
    return next(name for col, name, _ in QUALITY if col == column)


def higher(column: str) -> bool:
    """Whether a larger value of quality column `column` is better, as its declared metric says."""
    declared = next(metric for col, _, metric in QUALITY if col == column)
    better = ALL_METRICS[declared].better
    if better is None:
        raise ValueError(f"quality metric {column!r} ({declared}) declares no direction (Metric.better)")
    return better is Better.HIGHER


def rank(cands, metrics) -> tuple[list[tuple[str, str, tuple[str, ...]]], dict, list]:
    """The quality stages of step 2: (stages, intervals versus each stage's best, the strategies left)."""
    left = sorted(cands, key=lambda c: simplicity(c.strategy))
    stages, versus = [], {}
    for col in metrics:
        sign = 1.0 if higher(col) else -1.0
        best = min(left, key=lambda c: (-sign * c.mean(col), simplicity(c.strategy)))
        keep = []
        for c in left:
            iv = _paired(c.values[col], best.values[col])
            versus[(c.strategy, col)] = iv
            if c is best or sign * (iv.high if sign > 0 else iv.low) >= -DELTA:
                keep.append(c)
        stages.append((col, best.strategy, tuple(c.strategy for c in keep)))
        left = keep
        if len(left) == 1:
            break
    return stages, versus, left


def slower(a: Candidate, b: Candidate) -> bool:
    """Step 3's relation: `a` is in a higher latency class than `b` and surely `PAIR_MARGIN` x slower."""
    return a.latency > b.latency and surely_slower(a.cpu_ms, b.cpu_ms)


# The ship block ranks each cell again per latency budget: the same pairs, so their intervals are kept.
@functools.lru_cache(maxsize=1 << 16)
def _paired(a: tuple[float, ...], b: tuple[float, ...]) -> Interval:
    return paired_interval(a, b)


def _fmt(iv: Interval) -> str:
    return f"{iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]"


def _why(stages, versus, left, pick, n) -> str:
    col, best, tied = stages[0]
    name, sign = metric_name(col), (1.0 if higher(col) else -1.0)
    if len(tied) == 1:
        others = sorted(((s, iv) for (s, c), iv in versus.items() if c == col and s != best),
                        key=lambda sv: (-sign * sv[1].mean, simplicity(sv[0])))
        return f"best {name} (n={n})" + (f"; next {others[0][0]} {_fmt(others[0][1])}" if others else "")
    text = f"{len(tied)} tied for best {name} (n={n})"
    for col2, best2, tied2 in stages[1:]:
        text += (f"; of those, {len(tied2)} tied on {metric_name(col2)}" if len(tied2) > 1
                 else f"; of those, {best2} best on {metric_name(col2)}")
    if len(left) > 1:
        # Latency is named only where it overrode the declared order: where the pick is the simplest anyway,
        # whether the others were also surely slower hangs on timing noise and would change the text alone.
        simplest = min(left, key=lambda c: simplicity(c.strategy))
        text += ("; then the fastest latency class" if simplest is not pick
                 else "; then the simplest of those not slower (declared order)")
    return text


def _instance_frame(df):
    """Measured rows -> one row per cell x strategy x instance: quality columns and CPU ms."""
    ok = measured(df)
    ok = ok.assign(_cpu=reference_ms(ok), _inst=ok["source_label"].astype(str) + "|" + ok["seed"].astype(str) + "|"
                   + ok["instance"].astype(str))
    cols = {c: "mean" for c, _, _ in QUALITY if c in ok and c != "utility_share"}
    cols.update(utility="mean", _cpu="median")
    keys = ["source", "budget_key", "_nd", "choice", "strategy", "_inst"]
    # Sorted first: the same rows in any order (workers append as they finish) give the same sums.
    ok = ok.sort_values(keys + ["order_choice"], kind="stable")
    return ok.groupby(keys, sort=True)[list(cols)].agg(cols).reset_index()


def _decide(source, budget, nd, rows, inst) -> Decision:
    domain = source_domain(source)
    universe = tuple(sorted(inst["_inst"].unique()))
    out_dom, excluded, cands = [], [], []
    names = dict(zip(rows["choice"], rows["strategy"]))
    for choice in sorted(names, key=simplicity):
        doms = strategy_domains(names[choice])
        if domain not in doms:
            out_dom.append((choice, f"meant for {', '.join(sorted(doms))}"))
            continue
        mine = rows[rows["choice"] == choice]
        bad = int((~mine["status"].isin(["ok", "timeout"])).sum())
        over = int(mine["budget_violation"].fillna(False).astype(bool).sum()) if "budget_violation" in mine else 0
        part = inst[inst["choice"] == choice].set_index("_inst").reindex(universe)
        if bad:
            excluded.append((choice, f"{bad} of {len(mine)} runs skipped or failed"))
        elif over:
            excluded.append((choice, f"over the budget in {over} runs"))
        elif part["_cpu"].isna().any():
            excluded.append((choice, f"ran on {int(part['_cpu'].notna().sum())} of {len(universe)} instances"))
        else:
            cands.append((choice, part, mine))
    metrics = [c for c, _, _ in QUALITY if cands and all(
        (c == "utility_share" and p["utility"].notna().all()) or (c in p and p[c].notna().all())
        for _, p, _ in cands)]
    best_utility = np.max([p["utility"].to_numpy(dtype=float) for _, p, _ in cands], axis=0) if \
        "utility_share" in metrics else None
    built = []
    for choice, p, mine in cands:
        values = {c: tuple(np.round(p[c].to_numpy(dtype=float), 12)) for c in metrics if c != "utility_share"}
        if best_utility is not None:
            u = p["utility"].to_numpy(dtype=float)
            values["utility_share"] = tuple(np.round(np.where(best_utility > 0, u / np.where(
                best_utility > 0, best_utility, 1.0), 1.0), 12))
        cpu = tuple(float(x) for x in p["_cpu"])
        kinds = set(mine["ratio_kind"].dropna())
        built.append(Candidate(choice, names[choice], values, cpu, latency_class(cpu),
                               None if not kinds else "exact" if kinds == {"exact"} else "certified_lower_bound",
                               int((mine["status"] == "timeout").sum())))
    common = dict(source=source, budget=budget, near_dup=nd, domain=domain, instances=universe,
                  metrics=tuple(metrics), candidates=tuple(built), excluded=tuple(excluded),
                  out_of_domain=tuple(out_dom))
    if not built or not metrics:
        return Decision(**common, stages=(), versus={}, pick=None, why="no strategy for this source measured every "
                        "run" if not built else "no quality metric was measured")
    if len(universe) < MIN_INSTANCES:
        return Decision(**common, stages=(), versus={}, pick=None,
                        why=f"not enough instances to decide (n={len(universe)}; at least {MIN_INSTANCES} needed)")
    stages, versus, left = rank(built, metrics)
    fastest = [c for c in left if not any(slower(c, o) for o in left)]
    pick = min(fastest, key=lambda c: simplicity(c.strategy))
    return Decision(**common, stages=tuple(stages), versus=versus, pick=pick,
                    why=_why(stages, versus, left, pick, len(universe)))


def decisions(df) -> list[Decision]:
    """One `Decision` per source x budget (x dedupe threshold where it varies), in source and budget order.

    Args:
        df: A report `frame` (all rows; statuses are counted).
    """
    if df.empty or measured(df).empty:
        return []
    swept = df.groupby("source")["near_dup_key"].nunique()
    df = df.assign(_nd=[k if swept[s] > 1 else "" for s, k in zip(df["source"], df["near_dup_key"])])
    inst = _instance_frame(df)
    out = []
    by_cell = dict(list(inst.groupby(["source", "budget_key", "_nd"], sort=True)))
    for (source, budget, nd), rows in df.groupby(["source", "budget_key", "_nd"], sort=True):
        part = by_cell.get((source, budget, nd))
        if part is None:
            part = inst.iloc[:0]
        out.append(_decide(str(source), str(budget), nd or None, rows, part))
    return sorted(out, key=lambda d: (d.source, budget_sort(d.budget), _threshold_key(d.near_dup)))


def _threshold_key(key: str | None) -> tuple[int, float]:
    return (1, 0.0) if key in (None, "off") else (0, float(key))
