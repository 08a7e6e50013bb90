"""Seed 000's default: the better of density greedy and "best single item, then greedy fill"."""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from ..bounds import dantzig_bound_arrays
from ..items import Problem, Selection
from .base import Strategy
from .greedy import _INT64_SAFE, _VECTOR_MIN, DensityOrder, bounded_selection, density_order, fill_density, \
    greedy_fill

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
        arrays = problem.arrays() if len(cands) >= _VECTOR_MIN and 0 <= room <= _INT64_SAFE else None
        if arrays is not None:
            return self._select_arrays(problem, *arrays)
        tokens = list(map(attrgetter("tokens"), cands))
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

    def _select_arrays(self, problem: Problem, scores: np.ndarray, tokens: np.ndarray) -> Selection:
        """The same choice from the problem's arrays of scores and tokens (many candidates)."""
        cands, room = problem.candidates, problem.room
        fit = tokens <= room
        dorder = DensityOrder(cands, scores, tokens, room)
        order = dorder.head[fit[dorder.head]]
        best = fill_density(tokens, dorder, order, room, fit=fit)
        # Plain left-to-right sums of the same floats, as the seed compares them.
        score = sum(scores[best].tolist())
        if fit.any():
            # The best single item: highest score, then fewest tokens, then smallest id.
            fitting = np.where(fit, scores, -np.inf)
            top = np.flatnonzero(fitting == fitting.max())
            if len(top) > 1:
                top = top[tokens[top] == tokens[top].min()]
            single = min(top.tolist(), key=lambda k: cands[k].id)
            alt = fill_density(tokens, dorder, order, room, start=[single], fit=fit)
            alt_score = sum(scores[alt].tolist())
            if alt_score > score:
                best, score = alt, alt_score
        return bounded_selection(problem, best, dantzig_bound_arrays(scores, tokens, room, dorder.head_by_index),
                                 score)
