"""Certified upper bounds for the additive (knapsack) part of a packing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .items import Item

__all__ = ["dantzig_bound", "fitting_positive"]


def fitting_positive(candidates: Sequence[Item], room: int) -> list[int]:
    """Indices of candidates that could be chosen at all: positive score, fit alone."""
    return [k for k, it in enumerate(candidates) if it.score > 0 and it.tokens <= room]


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
    order = np.argsort(-scores / tokens, kind="stable")
    cum = np.cumsum(tokens[order])
    whole = int(np.searchsorted(cum, room, side="right"))
    bound = float(scores[order[:whole]].sum())
    if whole < len(order):
        used = int(cum[whole - 1]) if whole else 0
        split = order[whole]
        # The fraction first: score * room could overflow where the bound itself is finite.
        bound += float(scores[split]) * ((room - used) / float(tokens[split]))
    return bound
