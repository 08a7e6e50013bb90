"""The greedy loop of `submodular`: lazy (CELF) evaluation with batched refreshes.

It takes the objective `f` as `submodular.SubmodularObjective` offers it (``n``, ``state``,
``gains``, ``add``); kept apart so that the strategy's module stays about its objective. With that
objective's arrays (``sim``, ``group``, ``rel``, ``lam``, ``sqrt``) the rounds run compiled
(`submodular_kernel`), the same bounds bit for bit and so the same picks; any other `f` runs the
numpy rounds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .submodular_kernel import DONE, all_bounds, lazy_steps

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
    room = min(room, int(tok.sum()))  # a larger room changes no choice (all fit) and would not fit an int64
    cost = np.array([float(t) ** r for t in tokens])  # Python's pow, as the gains are divided by
    arrays = _compiled_form(f)
    bound = (all_bounds(arrays["sim"], arrays["has_sim"], cover, sums, arrays["group"], arrays["rel"], arrays["sqrt"],
                        arrays["lam"], cost, arrays["buf"]) if arrays else f.gains(sums, cover) / cost)
    bound[tok > room] = -np.inf
    fresh = np.zeros(f.n, dtype=np.int64)  # the step at which each bound was computed
    if arrays:
        return _compiled_rounds(f, arrays, sums, cover, cost, tok, bound, fresh, room, batch)
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
            size = _refresh(f, sums, cover, cost, bound, fresh, step, size)
            continue
        if not top > 0:
            break
        chosen.append(k)
        f.add(k, sums, cover)
        left -= int(tok[k])
        bound[k] = -np.inf
        step, size = step + 1, batch
    return chosen


def _refresh(f, sums, cover, cost, bound, fresh, step: int, size: int) -> int:
    """Refresh the `size` largest stale bounds (all if fewer) with `f.gains`; returns the next size."""
    stale = np.flatnonzero((fresh != step) & (bound > -np.inf))
    if len(stale) > size:
        stale = stale[np.argpartition(-bound[stale], size - 1)[:size]]
    bound[stale] = f.gains(sums, cover, stale) / cost[stale]
    fresh[stale] = step
    return size * 2  # the top is still stale after a refresh: gains moved together, refresh more at once


def _compiled_form(f) -> dict | None:
    """The arrays `submodular_kernel.lazy_steps` reads of `f` (by name), or None when `f` has no such form."""
    if not all(hasattr(f, name) for name in ("sim", "group", "rel", "lam", "sqrt")):
        return None
    sim = f.sim
    has_sim = sim is not None
    if has_sim and not (isinstance(sim, np.ndarray) and sim.dtype == np.float64 and sim.flags.c_contiguous):
        return None
    return {"sim": sim if has_sim else np.zeros((1, 1)), "has_sim": has_sim,
            "group": np.ascontiguousarray(f.group, dtype=np.int64), "rel": np.ascontiguousarray(f.rel, dtype=np.float64),
            "sqrt": bool(f.sqrt), "lam": float(f.lam), "buf": np.empty(f.n)}


def _compiled_rounds(f, arrays: dict, sums, cover, cost, tok, bound, fresh, room: int, batch: int) -> list[int]:
    """`lazy_greedy`'s rounds by `submodular_kernel.lazy_steps`; a refresh whose batch edge cuts
    through equal bounds is made here, by the numpy rounds' own `argpartition`."""
    chosen, work = np.empty(f.n, dtype=np.int64), np.empty(f.n, dtype=np.int64)
    state = np.array([0, room, 0, batch, batch], dtype=np.int64)  # count, left, step, size, batch
    a = arrays
    while lazy_steps(a["sim"], a["has_sim"], cover, sums, a["group"], a["rel"], a["sqrt"], a["lam"], cost, tok,
                     bound, fresh, chosen, a["buf"], work, state) != DONE:
        state[3] = _refresh(f, sums, cover, cost, bound, fresh, int(state[2]), int(state[3]))
    return chosen[:state[0]].tolist()
