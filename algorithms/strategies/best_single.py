"""Seed 000's default: the better of density greedy and "best single item, then greedy fill"."""

from __future__ import annotations

from ..items import Problem, Selection
from .base import Strategy
from .greedy import bounded_selection, density_order, greedy_fill

__all__ = ["GreedyBestSingle"]


class GreedyBestSingle(Strategy):
    """Density greedy with the best-single-item fix.

    Runs density greedy, and greedy again after first taking the single
    highest-scoring fitting item (ties: fewer tokens, then id); keeps the second
    only if it scores strictly more. The result is at least the better of greedy
    and the best single item, so it is >= optimum / 2 (Vazirani, Approximation
    Algorithms, 2001, Ex. 8.2; the modified greedy of Ibarra and Kim 1975).
    """

    name = "greedy_best_single"

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        tokens = [it.tokens for it in cands]
        fits = [k for k in range(len(cands)) if tokens[k] <= room]
        order = [k for k in density_order(cands) if tokens[k] <= room]
        best = greedy_fill(cands, room, order=order)
        if fits:
            single = min(fits, key=lambda k: (-cands[k].score, cands[k].tokens, cands[k].id))
            alt = greedy_fill(cands, room, start=[single], order=order)
            # Plain left-to-right sums, as the seed compares them.
            if sum(cands[k].score for k in alt) > sum(cands[k].score for k in best):
                best = alt
        return bounded_selection(problem, best)
