"""The greedy loops of `mmr` and `dpp` over arrays, and the shared tie-break.

Kept apart from the strategies' parameter handling so that each loop is one
function with preallocated buffers: per pick a few whole-array numpy passes
and nothing per candidate in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..columns import embedding_rows
from ..items import Item, Problem
from ..vectors import embedding_matrix, normalised_rows, problem_embeddings
from .mmr_kernel import DONE, mmr32_steps

__all__ = ["tie_break", "best_fitting", "mmr_picks", "mmr_picks_cosine32", "float32_inverse_norms", "TIE_TOL",
           "cosine32_bound", "problem_rows"]

# Relative tolerance under which two values count as equal (ties then go to the score rank).
TIE_TOL = 1e-9
def cosine32_bound(dim: int) -> float:
    """A bound on |float32 cosine - exact cosine| of two `dim`-dimensional rows, with a 10% safety factor.

    ``(2 dim + 16) 2**-24``: rounding of the inputs and of the norms, and the dot product's own
    error, at most ``dim 2**-24`` of the norms' product for any summation order (see `mmr_picks_cosine32`).
    """
    return 1.1 * (2 * dim + 16) * 2.0**-24


def problem_rows(problem: Problem, who: str, dtype: type = np.float64, pinned: bool = True) -> np.ndarray:
    """`problem_embeddings(problem, who, dtype, pinned)`, stacked by the C pass when no stack is cached.

    Stored under `problem_embeddings`' own key, so a later call of either on this problem reuses
    it. numpy's float32 stack costs about twice the C pass, a large part of `pack`'s fixed cost
    for `mmr` (see `columns.embedding_rows`).

    Raises:
        ValueError: As `problem_embeddings` (the C pass declines on any item it would name).
    """
    name = np.dtype(dtype).name
    if ("embeddings", name, pinned) not in problem.cache and ("embeddings", "float64", pinned) not in problem.cache:
        items = [*problem.candidates, *problem.pinned] if pinned and problem.pinned else list(problem.candidates)
        rows = embedding_rows(items, dtype)
        if rows is not None:
            problem.cache["embeddings", name, pinned] = rows  # read-only: a view of the kernel's bytes
            return rows
    return problem_embeddings(problem, who, dtype, pinned)


# Norms of float32 rows in this range have neither overflowed nor lost bits to underflow.
_F32_NORMS = (1e-10, 1e10)


def tie_break(cands: Sequence[Item], ties: np.ndarray) -> int:
    """The candidate among `ties` (positions, ascending) with the higher score, then the lower id.

    The order `visiting_order` gives, asked only of the tied few: sorting all candidates up front
    costs more than every pick of a few-dozen-pick context.
    """
    return min(ties.tolist(), key=lambda k: (-cands[k].score, cands[k].id, k))


def best_fitting(value: np.ndarray, tokens: np.ndarray, tok: list[int], left: int) -> tuple[int, float]:
    """(position, value) of the largest value among the candidates within `left` tokens; position -1
    when none is left (-inf marks a candidate set aside).

    The fit is re-checked only when the best value does not fit (room only shrinks), and then every
    candidate that no longer fits is set to -inf in one pass, so no pick costs more than two.
    """
    j = int(value.argmax())
    if tok[j] > left:
        value[tokens > left] = -np.inf
        j = int(value.argmax())
    best = float(value[j])
    return (j, best) if best != -np.inf else (-1, best)


def mmr_picks(cands: Sequence[Item], rel: np.ndarray, tokens: np.ndarray, room: int, lam: float, c: float,
              redundancy: np.ndarray, column: Callable[[int], np.ndarray] | None) -> list[int]:
    """The MMR picks, in pick order (the rule of `MMR`), with one similarity column per pick.

    The values are kept from step to step rather than recomputed: a pick j can only raise a
    candidate's redundancy to ``sim(i, j)``, and each operation of the value (times a constant,
    plus a constant, over a positive cost) is monotone under rounding, so the new value is exactly
    the min of the old one and the value at ``sim(i, j)``. Chosen and no-longer-fitting candidates
    hold -inf; the fit is re-checked only when the best value does not fit (room only shrinks).
    """
    n, k = len(rel), 1.0 - lam
    base = lam * rel
    cost = tokens.astype(np.float64) ** c if c > 0 else None

    def values(red: np.ndarray, out: np.ndarray) -> np.ndarray:
        np.multiply(red, -k, out=out)
        out += base
        if cost is not None:
            out += k
            out /= cost
        return out

    value = values(redundancy, np.empty(n))
    fresh = np.empty(n)
    value[tokens > room] = -np.inf
    chosen: list[int] = []
    left, tok = room, tokens.tolist()  # Python ints: a numpy scalar per read costs more than the read
    while n:
        j, best = best_fitting(value, tokens, tok, left)
        if j < 0:
            break
        # Values within rounding noise of the best are ties, broken by score rank: similarities
        # computed column by column (or by another BLAS) differ from the full matrix in the last bits.
        ties = np.flatnonzero(value >= best - TIE_TOL * max(1.0, abs(best)))
        if len(ties) > 1:
            ties = ties[tokens[ties] <= left]  # a tie that no longer fits may not have been set aside yet
            j = tie_break(cands, ties)
        chosen.append(j)
        left -= tok[j]
        value[j] = -np.inf
        if column is not None:
            np.minimum(value, values(column(j), fresh), out=value)
    return chosen


def float32_inverse_norms(e32: np.ndarray, items: Sequence[Item]) -> np.ndarray | None:
    """float64 1 / the float32 norms of `e32`'s rows (0 for a zero row), or None when a row's float32
    norm is outside the range where it neither overflowed nor lost bits to underflow.

    Applied to each column rather than to the (n, dim) rows: a pass over n values per pick costs
    less than one over the matrix for the few dozen picks of a context.
    """
    with np.errstate(over="ignore", under="ignore"):
        norms = np.sqrt(np.einsum("ij,ij->i", e32, e32))
    if not len(norms) or (_F32_NORMS[0] <= norms.min() and norms.max() <= _F32_NORMS[1]):
        return 1.0 / norms.astype(np.float64)  # the usual case: no zero, tiny or huge row
    zero = norms == 0
    safe = (norms >= _F32_NORMS[0]) & (norms <= _F32_NORMS[1])
    if not (safe | zero).all() or any(np.any(items[i].embedding) for i in np.flatnonzero(zero).tolist()):
        return None  # a row that is not zero in float64 came out zero (underflow), or a norm overflowed
    return np.divide(1.0, norms, out=np.zeros(len(norms)), where=~zero)


def mmr_picks_cosine32(cands: Sequence[Item], pinned: Sequence[Item], rel: np.ndarray, tokens: np.ndarray,
                       room: int, lam: float, e32: np.ndarray | None = None) -> list[int] | None:
    """`mmr_picks` for ``similarity="cosine"``, ``cost_exponent=0``: float32 columns, float64 picks.

    Each column is a float32 matrix-vector product, as pyversity computes it, scaled by the rows'
    inverse norms. A float32 cosine is within ``bound = (2 dim + 16) 2**-24`` of the float64 one
    (rounding of the inputs and of the norms, and the dot product's own error, at most
    ``dim 2**-24`` of the norms' product for any summation order), so a value is within
    ``(1 - lam) bound`` of its float64 value. Every candidate within twice that (plus the tie
    tolerance) of the best is a contender; when there is more than one, their values are recomputed in float64 from the chosen and pinned unit vectors and the
    float64 rule picks among them. So the picks are those of `mmr_picks` on float64 columns (up to
    the last-bit differences between summation orders that the tie tolerance already absorbs).

    No clipping is needed in the loop: the redundancy starts at 0 (or the pinned items' clipped
    maximum), so a negative cosine never lowers a value, and one above 1 by rounding is within the
    bound of the clipped one.

    Args:
        e32: The float32 rows of the candidates then the pinned items, when the caller has them.

    Returns:
        The picks, or None when a row's norm is outside float32's safe range (use `mmr_picks`).
    """
    n, k = len(rel), 1.0 - lam
    items = [*cands, *pinned]
    if e32 is None:
        with np.errstate(over="ignore", under="ignore"):  # such rows are found by `float32_inverse_norms`
            e32 = embedding_matrix(items, "similarity 'cosine'", dtype=np.float32)
    inv = float32_inverse_norms(e32, items)
    if inv is None:
        return None
    head, scaled = e32[:n], -k * inv[:n]
    margin = 2.0 * k * cosine32_bound(e32.shape[1])
    base = lam * rel
    # Float64 unit vectors of the pinned items (anchors of every contended step).
    pinned_units = normalised_rows(embedding_matrix(pinned, "similarity 'cosine'")) if pinned else None
    red = (np.clip((head @ e32[n:].T) * inv[:n, None] * inv[None, n:], 0.0, 1.0).max(axis=1) if pinned
           else np.zeros(n))
    value = np.multiply(red, -k)
    value += base
    chosen = np.empty(n, dtype=np.int64)
    count, left, forced = 0, room, -1
    while n:
        count, left, status, best = mmr32_steps(value, head, e32, inv, scaled, base, tokens, left, margin, TIE_TOL,
                                                chosen, count, forced)
        if status == DONE:
            break
        # A contended step (rare: a few per context): the float64 rule picks among the contenders.
        near = (value >= best - margin - TIE_TOL * (abs(best) + 2.0)).nonzero()[0]
        # The float64 unit vectors of the contenders and of the picks, built only here (one stack).
        units = normalised_rows(embedding_matrix([cands[i] for i in (*near.tolist(), *chosen[:count].tolist())],
                                                 "similarity 'cosine'"))
        anchors = units[len(near):] if pinned_units is None else np.concatenate([pinned_units, units[len(near):]])
        exact = (np.clip(units[:len(near)] @ anchors.T, 0.0, 1.0).max(axis=1) if len(anchors)
                 else np.zeros(len(near)))
        exact = -k * exact + base[near]
        top = float(exact.max())
        ties = near[exact >= top - TIE_TOL * max(1.0, abs(top))]
        forced = tie_break(cands, ties) if len(ties) > 1 else int(ties[0])
    return chosen[:count].tolist()
