"""The common production loop: best score first, stop at the first item that does not fit."""

from __future__ import annotations

from ..items import Problem, Selection
from .base import Strategy
from .greedy import bounded_selection

__all__ = ["Prefix"]


class Prefix(Strategy):
    """Add candidates by score descending (ties by id) until one does not fit, then stop.

    This is the loop most RAG code ships (seed 003). It has no guarantee: with
    budget 100, one item (score 10, 100 tokens) and ten (9, 10) it takes the
    first and scores 10 against an optimum of 90.
    """

    name = "prefix"

    def select(self, problem: Problem) -> Selection:
        cands = problem.candidates
        chosen, used = [], 0
        for k in sorted(range(len(cands)), key=lambda k: (-cands[k].score, cands[k].id)):
            if used + cands[k].tokens > problem.room:
                break
            chosen.append(k)
            used += cands[k].tokens
        return bounded_selection(problem, chosen)
