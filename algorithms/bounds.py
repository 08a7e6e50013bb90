"""Certified upper bounds for the additive (knapsack) part of a packing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .items import Item, Problem

__all__ = ["candidate_arrays", "dantzig_bound", "dantzig_bound_arrays", "fitting_positive", "problem_arrays"]


def fitting_positive(candidates: Sequence[Item], room: int) -> list[int]:
    """Indices of candidates that could be chosen at all: positive score, fit alone."""
    return [k for k, it in enumerate(candidates) if it.score > 0 and it.tokens <= room]


def candidate_arrays(candidates: Sequence[Item], room: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every candidate's tokens (int64) and score (float64), and the `fitting_positive` indices, in numpy.

    One pass over the items per field instead of one per use: the fixed cost of an exact solver
    on 10,000 items was mostly such passes.

    Args:
        candidates: The candidates.
        room: Token budget for them.

    Returns:
        (tokens, scores, indices of the candidates with a positive score that fit alone, increasing).
    """
    n = len(candidates)
    scores = np.fromiter((it.score for it in candidates), dtype=np.float64, count=n)
    try:
        tokens = np.fromiter((it.tokens for it in candidates), dtype=np.int64, count=n)
    except OverflowError:  # a token count past int64 can never fit: clip it above the room
        tokens = np.array([min(it.tokens, room + 1) for it in candidates], dtype=np.int64)
    return tokens, scores, np.flatnonzero((scores > 0) & (tokens <= room))


def problem_arrays(problem: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`candidate_arrays` of the problem's candidates, from `Problem.arrays` where it holds them.

    `pack` fills those arrays in its one C pass over the items, and a problem keeps them between
    calls: reading two fields of 10,000 items in Python costs about 3 ms, more than a whole
    search on an easy core. They are None only where the tokens add up past 2**62; then the
    items are read here, clipping what cannot fit.

    Args:
        problem: The problem.

    Returns:
        As `candidate_arrays` (the two arrays may be the problem's read-only ones).
    """
    arrays = problem.arrays()
    if arrays is None:
        return candidate_arrays(problem.candidates, problem.room)
    scores, tokens = arrays
    return tokens, scores, np.flatnonzero((scores > 0) & (tokens <= problem.room))


def dantzig_bound(candidates: Sequence[Item], room: int) -> float:
    """Dantzig's LP-relaxation bound on the best total score within `room` tokens.

    Sort by score/tokens and take whole items until the next one does not fit,
    then the fitting fraction of that one. This is the optimum of the LP
    relaxation, so optimum <= bound. When every candidate fits alone the bound
    is at most (whole items taken) + (the split item's score) <= 2 * optimum,
    because both parts are feasible packings.

    Args:
        candidates: The candidates (pinned items excluded).
        room: Token budget for them.

    Returns:
        The bound (0.0 when nothing can be chosen).
    """
    keep = fitting_positive(candidates, room)
    if not keep:
        return 0.0
    scores = np.array([candidates[k].score for k in keep], dtype=float)
    tokens = np.array([candidates[k].tokens for k in keep], dtype=np.int64)
    return _bound(scores, tokens, np.argsort(-scores / tokens, kind="stable"), room)


def dantzig_bound_arrays(scores: np.ndarray, tokens: np.ndarray, room: int, order: np.ndarray | None = None) -> float:
    """`dantzig_bound` from every candidate's score (float64) and tokens (int64): the same float.

    Args:
        scores: Score per candidate.
        tokens: Tokens per candidate.
        room: Token budget for them.
        order: Candidate indices by score/tokens descending, equal ratios by index (what a
            stable sort gives), when the caller has them: all, or the first of that order down to
            some ratio (every candidate at or above it). The bound then sorts nothing, unless a
            part too short to overflow the room was given.

    Returns:
        The bound (0.0 when nothing can be chosen).
    """
    keep = (scores > 0) & (tokens <= room)
    if not keep.any():
        return 0.0
    if order is not None:
        head = order[keep[order]]
        if len(order) == len(scores) or int(tokens[head].sum()) > room:
            return _bound(scores, tokens, head, room)
    scores, tokens = scores[keep], tokens[keep]
    return _bound(scores, tokens, np.argsort(-scores / tokens, kind="stable"), room)


def _bound(scores: np.ndarray, tokens: np.ndarray, order: np.ndarray, room: int) -> float:
    """The bound over the candidates in `order` (all with a positive score, each fitting alone), best ratio first."""
    cum = np.cumsum(tokens[order])
    whole = int(np.searchsorted(cum, room, side="right"))
    bound = float(scores[order[:whole]].sum())
    if whole < len(order):
        used = int(cum[whole - 1]) if whole else 0
        split = order[whole]
        # The fraction first: score * room could overflow where the bound itself is finite.
        bound += float(scores[split]) * ((room - used) / float(tokens[split]))
    return bound
