"""Density greedy: the production baseline with no constant guarantee."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..bounds import dantzig_bound
from ..items import Item, Problem, Selection
from .base import Strategy

__all__ = ["Greedy", "density_order", "greedy_fill", "bounded_selection"]


def density_order(candidates: Sequence[Item]) -> list[int]:
    """Candidate indices by score/tokens descending, ties by score descending, then id."""
    return sorted(range(len(candidates)),
                  key=lambda k: (-candidates[k].score / candidates[k].tokens, -candidates[k].score,
                                 candidates[k].id))


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
    for k in density_order(candidates) if order is None else order:
        if k not in taken and used + candidates[k].tokens <= room:
            chosen.append(k)
            taken.add(k)
            used += candidates[k].tokens
    return chosen


def bounded_selection(problem: Problem, chosen: Sequence[int]) -> Selection:
    """A heuristic's Selection with the Dantzig bound, optimal=True when it meets the bound."""
    bound = dantzig_bound(problem.candidates, problem.room)
    score = sum(problem.candidates[k].score for k in chosen)
    # Rounding in the bound's float sums must not make a proven optimum look unproven.
    optimal = True if score >= bound - 1e-9 * max(1.0, abs(bound)) else None
    return Selection(tuple(chosen), optimal=optimal, upper_bound=max(bound, score))


class Greedy(Strategy):
    """Density greedy: by score/tokens descending, skip what does not fit, go on.

    No constant approximation guarantee: with budget W, items (score 2, 1 token)
    and (W, W), it takes the small item and scores 2 against an optimum of W.
    """

    name = "greedy"

    def select(self, problem: Problem) -> Selection:
        return bounded_selection(problem, greedy_fill(problem.candidates, problem.room))
