"""The "ship this" block: per source domain and latency budget, the one strategy to ship.

For a latency budget L (a class of `latency.LATENCY_CLASSES`, reference CPU ms per call) a
strategy *fits* a cell when its class is at most L, or when it is not surely
slower (`decision.slower`) than a strategy of the cell that is: near a class
bound the paired comparison decides, not the bound. A strategy is a candidate
for L in a domain when it fits every decided cell of the domain; in each cell
the candidates (only they) are ranked on quality as in `decision.rank`. The pick
is the candidate that is best or tied-best in the most cells, then the one with
the smallest worst-case regret (the best mean of the cell's first quality
metric at any latency, minus its own: what the latency budget costs), then the
simplest.
"""

from __future__ import annotations

from dataclasses import dataclass

from .decision import Decision, higher, metric_name, rank, simplicity, slower
from .latency import LATENCY_CLASSES
from .frame import budget_text

__all__ = ["ShipLine", "ship_lines", "cell_text", "best_order", "ship_settings"]


@dataclass(frozen=True)
class ShipLine:
    """The answer for one domain and latency budget.

    Attributes:
        domain: Source domain.
        latency: Latency class index (the budget).
        strategy: The strategy to ship, or None when nothing fits every cell.
        cells: Decided cells of the domain.
        held: Cells where it is best or tied-best.
        regret: Worst-case regret, as (value, metric name, cell text), or None.
        losses: Text of the cells where it is not best or tied-best.
        undecided: Text of the domain's cells that could not be decided.
    """

    domain: str
    latency: int
    strategy: str | None
    cells: int
    held: int
    regret: tuple[float, str, str] | None
    losses: tuple[str, ...]
    undecided: tuple[str, ...]


def cell_text(d: Decision) -> str:
    """``source, budget[, dedupe]`` for readers."""
    nd = "" if d.near_dup is None else ", no dedupe" if d.near_dup == "off" else f", dedupe {d.near_dup}"
    return f"{d.source} {budget_text(d.budget)}{nd}"


def _fits(c, cands, level: int) -> bool:
    return c.latency <= level or any(o.latency <= level and not slower(c, o) for o in cands)


def _line(domain: str, level: int, cells: list[Decision], undecided: tuple[str, ...]) -> ShipLine:
    fits = [{c.strategy: c for c in d.candidates if _fits(c, d.candidates, level)} for d in cells]
    names = set.intersection(*(set(f) for f in fits)) if fits else set()
    # Each cell compares only the strategies that fit the budget in every cell of the domain: one that fits
    # here but not elsewhere cannot be shipped, so it does not decide who holds this cell.
    ranked = [(d, rank([f[s] for s in sorted(names)], d.metrics)[2] if names else []) for d, f in zip(cells, fits)]
    scores: dict[str, list] = {}
    for name in names:
        held, worst, losses = 0, None, []
        for d, best in ranked:
            col = d.metrics[0]
            sign = 1.0 if higher(col) else -1.0
            top = max(sign * c.mean(col) for c in d.candidates)  # the best at any latency: the budget's cost
            mine = next(c for c in d.candidates if c.strategy == name)
            regret = round(top - sign * mine.mean(col), 6)
            if any(c.strategy == name for c in best):
                held += 1
            else:
                losses.append(cell_text(d))
            if worst is None or regret > worst[0]:
                worst = (regret, metric_name(col), cell_text(d))
        scores[name] = [held, worst, losses]
    if not scores:
        return ShipLine(domain, level, None, len(cells), 0, None, (), undecided)
    pick = min(scores, key=lambda s: (-scores[s][0], scores[s][1][0], simplicity(s)))
    held, worst, losses = scores[pick]
    return ShipLine(domain, level, pick, len(cells), held, worst, tuple(losses), undecided)


def ship_lines(cells: list[Decision]) -> list[ShipLine]:
    """One `ShipLine` per domain (sorted) and latency budget (fastest first)."""
    out = []
    for domain in sorted({d.domain for d in cells}):
        mine = [d for d in cells if d.domain == domain]
        decided = [d for d in mine if d.pick is not None]
        undecided = tuple(cell_text(d) for d in mine if d.pick is None)
        for level in range(len(LATENCY_CLASSES) + 1):
            out.append(_line(domain, level, decided, undecided))
    return out


def best_order(df, strategy: str, sources: set[str]) -> str | None:
    """The order with the best mean order efficiency for `strategy` on `sources`, where orders were swept.

    Means within 0.001 of the best count as equal; then ``original`` first, then by name.
    """
    part = df[(df["choice"] == strategy) & df["source"].isin(sources) & df["order_efficiency"].notna()]
    if part.empty or part["order_choice"].nunique() < 2:
        return None
    part = part.sort_values("run_id", kind="stable")  # the same sums whatever order the workers wrote
    means = part.groupby("order_choice")["order_efficiency"].mean().round(9)
    top = means.max()
    good = sorted((o for o, v in means.items() if v >= top - 0.001), key=lambda o: (o != "original", o))
    return str(good[0])


def ship_settings(df, line: ShipLine, cells) -> tuple[str, str]:
    """(dedupe settings, order) of a line's strategy on its domain's sources, as the block shows them."""
    sources = {d.source for d in cells if d.domain == line.domain}
    rows = df[(df["choice"] == line.strategy) & df["source"].isin(sources)]
    dedupe = ", ".join(sorted(rows["near_dup_key"].unique(), key=lambda k: (k == "off", k)))
    order = best_order(df, line.strategy, sources) or ", ".join(sorted(rows["order_choice"].unique()))
    return dedupe, order
