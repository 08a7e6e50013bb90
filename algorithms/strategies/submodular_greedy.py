"""The greedy loop of `submodular`: lazy (CELF) evaluation with batched refreshes.

It takes the objective `f` as `submodular.SubmodularObjective` offers it (``n``, ``state``,
``gains``, ``add``); kept apart so that the strategy's module stays about its objective.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["lazy_greedy"]


def lazy_greedy(f, tokens: Sequence[int], room: int, r: float, batch: int = 16) -> list[int]:
    """Cost-scaled greedy with lazy (CELF / Minoux 1978) evaluation, refreshed in batches.

    Each step takes the fitting candidate with the largest ``gain / tokens**r``
    among those with positive gain; candidates that no longer fit are set aside
    for good (room only shrinks). Stale gains are upper bounds by
    submodularity, so a candidate whose fresh ratio is still the largest bound
    is the true maximiser. Ties go to the lower position (the first of equal
    bounds, as `argmax`). When the top is stale, it and up to ``batch - 1``
    other stale bounds below it are refreshed in one vectorised call, twice as
    many each time the top is still stale within one step: extra refreshes are
    exact gains, so they change no choice. The bounds live in one array (an
    argmax per round, no Python-level heap), and every gain comes from
    `SubmodularObjective.gains`, so equal candidates get equal ratios.

    Args:
        f: A `submodular.SubmodularObjective` (``n``, ``state``, ``gains``, ``add``).
        tokens: Tokens per candidate; room: the budget.
        r: Cost exponent; batch: first refresh size (an int >= 1).

    Returns:
        The picks, in pick order.

    Raises:
        TypeError, ValueError: `batch` is not an int >= 1.
    """
    if isinstance(batch, bool) or not isinstance(batch, int):
        raise TypeError(f"lazy_greedy: batch must be an int >= 1, got {batch!r}")
    if batch < 1:
        raise ValueError(f"lazy_greedy: batch must be an int >= 1, got {batch!r}")
    if not f.n:
        return []
    sums, cover = f.state()
    tok = np.asarray(tokens, dtype=np.int64)
    cost = np.array([float(t) ** r for t in tokens])  # Python's pow, as the gains are divided by
    bound = f.gains(sums, cover) / cost
    bound[tok > room] = -np.inf
    fresh = np.zeros(f.n, dtype=np.int64)  # the step at which each bound was computed
    chosen: list[int] = []
    left, step, size = room, 0, batch
    while True:
        k = int(bound.argmax())
        top = float(bound[k])
        if top == -np.inf:
            break
        if tok[k] > left:  # room shrank under the top: set aside everything that no longer fits
            bound[tok > left] = -np.inf
            continue
        if fresh[k] != step:
            stale = np.flatnonzero((fresh != step) & (bound > -np.inf))
            if len(stale) > size:
                stale = stale[np.argpartition(-bound[stale], size - 1)[:size]]
            size *= 2  # the top is still stale after a refresh: gains moved together, refresh more at once
            bound[stale] = f.gains(sums, cover, stale) / cost[stale]
            fresh[stale] = step
            continue
        if not top > 0:
            break
        chosen.append(k)
        f.add(k, sums, cover)
        left -= int(tok[k])
        bound[k] = -np.inf
        step, size = step + 1, batch
    return chosen
