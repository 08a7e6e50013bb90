"""Density greedy: the production baseline with no constant guarantee."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..bounds import dantzig_bound, dantzig_bound_arrays
from ..items import Item, Problem, Selection
from .base import Strategy
from .density import DensityOrder, _order_by_keys, _vector_fill, density_order_arrays, density_orders, fill_arrays, \
    fill_density

__all__ = ["Greedy", "DensityOrder", "density_order", "density_order_arrays", "density_orders", "fill_density",
           "greedy_fill", "fill_arrays", "bounded_selection"]

# Below this many candidates the plain Python loops are faster than numpy's per-call overhead.
_VECTOR_MIN = 256
# Token counts and rooms up to this fit int64 arithmetic with room to spare (the validator's total cap).
_INT64_SAFE = 2**62


def _python_density_order(candidates: Sequence[Item]) -> list[int]:
    return sorted(range(len(candidates)),
                  key=lambda k: (-candidates[k].score / candidates[k].tokens, -candidates[k].score,
                                 candidates[k].id))


def density_order(candidates: Sequence[Item]) -> list[int]:
    """Candidate indices by score/tokens descending, ties by score descending, then id."""
    n = len(candidates)
    if n < _VECTOR_MIN:
        return _python_density_order(candidates)
    # The densities are Python's own divisions, so the keys are the same floats as the reference's.
    neg_density = np.fromiter((-it.score / it.tokens for it in candidates), dtype=np.float64, count=n)
    neg_score = np.fromiter((-it.score for it in candidates), dtype=np.float64, count=n)
    return _order_by_keys(candidates, neg_density, neg_score)[0].tolist()


def _python_fill(candidates: Sequence[Item], room: int, chosen: list[int], taken: set[int], used: int,
                 order: Iterable[int]) -> list[int]:
    for k in order:
        if k not in taken and used + candidates[k].tokens <= room:
            chosen.append(k)
            taken.add(k)
            used += candidates[k].tokens
    return chosen


def greedy_fill(candidates: Sequence[Item], room: int, start: Iterable[int] = (),
                order: Sequence[int] | None = None) -> list[int]:
    """Take `start`, then every candidate in density order that still fits.

    Args:
        candidates: The candidates.
        room: Token budget.
        start: Indices taken first (must fit together).
        order: A precomputed `density_order`, to share it between calls.

    Returns:
        Chosen indices: `start` first, then the greedy additions in the order taken.
    """
    chosen = list(start)
    taken = set(chosen)
    used = sum(candidates[k].tokens for k in chosen)
    seq = density_order(candidates) if order is None else order
    n = len(candidates)
    if len(seq) < _VECTOR_MIN or not 0 <= room <= _INT64_SAFE:
        return _python_fill(candidates, room, chosen, taken, used, seq)
    idx = np.asarray(seq, dtype=np.int64)
    if idx.ndim != 1 or idx.min() < 0 or idx.max() >= n or np.bincount(idx, minlength=n).max() > 1:
        return _python_fill(candidates, room, chosen, taken, used, seq)  # repeats or odd indices: the loop
    all_tok = [it.tokens for it in candidates]
    if sum(all_tok) > _INT64_SAFE:
        return _python_fill(candidates, room, chosen, taken, used, seq)
    tok = np.array(all_tok, dtype=np.int64)[idx]
    skip = np.isin(idx, np.fromiter(taken, dtype=np.int64, count=len(taken)))
    return chosen + _vector_fill(tok, idx, skip, room - used)


def bounded_selection(problem: Problem, chosen: Sequence[int], bound: float | None = None,
                      score: float | None = None) -> Selection:
    """A heuristic's Selection with the Dantzig bound, optimal=True when it meets the bound.

    Args:
        problem: The problem.
        chosen: The chosen candidate indices.
        bound: `dantzig_bound` of the problem when the caller has it already.
        score: The chosen scores' left-to-right sum, when the caller has it already.
    """
    if bound is None:
        bound = dantzig_bound(problem.candidates, problem.room)
    if score is None:
        score = sum(problem.candidates[k].score for k in chosen)
    # Rounding in the bound's float sums must not make a proven optimum look unproven; relative, so
    # that tiny scores (1e-56) are not all "within rounding" of their bound.
    optimal = True if score >= bound - 1e-9 * abs(bound) else None
    return Selection(tuple(chosen), optimal=optimal, upper_bound=max(bound, score))


class Greedy(Strategy):
    """Density greedy: by score/tokens descending, skip what does not fit, go on.

    No constant approximation guarantee: with budget W, items (score 2, 1 token)
    and (W, W), it takes the small item and scores 2 against an optimum of W.
    """

    name = "greedy"

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        arrays = problem.arrays() if len(cands) >= _VECTOR_MIN and 0 <= room <= _INT64_SAFE else None
        if arrays is None:
            return bounded_selection(problem, greedy_fill(cands, room))
        scores, tokens = arrays
        order = DensityOrder(cands, scores, tokens, room)
        return bounded_selection(problem, fill_density(tokens, order, order.head, room),
                                 dantzig_bound_arrays(scores, tokens, room, order.head_by_index))
