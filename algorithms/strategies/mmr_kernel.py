"""The compiled (numba) steps of the float32 cosine MMR loop (`diversity_kernels.mmr_picks_cosine32`).

Per pick the numpy loop made about ten calls (argmax, a fit re-check, the contender test, the
column's scaling and the running minimum), each a few microseconds of call overhead: at 200
candidates that overhead cost four times the column's matrix-vector product. `mmr32_steps` does
the same arithmetic in one compiled loop per pick: the column by BLAS (``np.dot``, float32), then
one pass that forms each value exactly as numpy did (float64 ``dot * scaled[i] * inv_j + base[i]``,
same operations in the same order, no fastmath) and keeps the minimum. It stops and hands back to
Python whenever a step has more than one contender, where the float64 certification decides.

Compiled with ``cache=True``; `warm_up` compiles or loads it, so no compile time lands in a
measured call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["mmr32_steps", "warm_up", "CONTENDED", "DONE"]

# `mmr32_steps` statuses: nothing fits any more; a step has more than one contender.
DONE, CONTENDED = -1, -2


@njit(cache=True, nogil=True)
def mmr32_steps(value, head, e32, inv, scaled, base, tokens, left, margin, tol, chosen, count, forced):
    """Greedy MMR steps on `value` (in place) until nothing fits or a step is contended.

    Args:
        value: float64 MMR values; -inf for chosen and set-aside candidates.
        head, e32: The candidates' float32 rows, and the candidates' then the pinned items' rows.
        inv, scaled: float64 1 / norm per row, and ``-(1 - lam) * inv`` per candidate.
        base: float64 ``lam * rel``.
        tokens: int64 tokens per candidate.
        left: Tokens left.
        margin, tol: The float32 bound (twice, times 1 - lam) and the relative tie tolerance.
        chosen: int64 buffer of the picks; the first `count` are made.
        forced: A pick to make first (the certified winner of a contended step), or -1.

    Returns:
        (count, left, status, best): status `DONE`, or `CONTENDED` with the contended step's best
        value (every fitting candidate within ``margin + tol (|best| + 2)`` of it contends; the
        candidates that no longer fit are -inf).
    """
    n = value.shape[0]
    j = forced
    while True:
        if j >= 0:
            chosen[count] = j
            count += 1
            left -= tokens[j]
            value[j] = -np.inf
            # The last pick's column changes nothing: skip it when no candidate is left that fits.
            last = True
            for i in range(n):
                if value[i] > -np.inf and tokens[i] <= left:
                    last = False
                    break
            if last:
                return count, left, DONE, -np.inf
            col = np.dot(head, e32[j])
            inv_j = inv[j]
            for i in range(n):
                fresh = np.float64(col[i]) * scaled[i] * inv_j + base[i]
                if fresh < value[i]:
                    value[i] = fresh
        # The best fitting candidate (first of equal values, as argmax); the rest set aside.
        j, best = -1, -np.inf
        for i in range(n):
            if tokens[i] > left:
                value[i] = -np.inf
            elif value[i] > best:
                j, best = i, value[i]
        if j < 0:
            return count, left, DONE, best
        threshold = best - margin - tol * (abs(best) + 2.0)
        rivals = 0
        for i in range(n):
            if value[i] >= threshold:
                rivals += 1
        if rivals > 1:
            return count, left, CONTENDED, best


def warm_up() -> None:
    """Compile (or load from the cache) `mmr32_steps` for the argument types its caller passes."""
    e32 = np.ones((2, 2), dtype=np.float32)
    e32.setflags(write=False)  # as `vectors.problem_embeddings` hands the rows over
    mmr32_steps(np.zeros(2), e32[:2], e32, np.ones(2), -np.ones(2), np.zeros(2), np.ones(2, dtype=np.int64),
                1, 0.0, 0.0, np.empty(2, dtype=np.int64), 0, -1)
