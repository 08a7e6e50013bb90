"""The compiled (numba) greedy steps of `dpp` for ``similarity="cosine"`` (`dpp.dpp_picks`).

With cosine a column of L is one matrix-vector product and a scaling; the numpy loop spent about ten calls per pick around it (the open
residuals, argmax, the tie test, the Cholesky row's update, the residuals' update), each a few
microseconds of call overhead. `dpp_steps` does a pick in one compiled pass over the candidates
after the product, in float64 as the numpy loop (the Cholesky row is ``e = (L[:, j] - C c_j) / d_j``,
``d_i^2 = max(d_i^2 - e_i^2, 0)``). It hands back to Python for a tie (broken by score, then id)
and when the row buffer is full.

Compiled with ``cache=True``; `warm_up` compiles or loads it, so no compile time lands in a
measured call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["dpp_steps", "warm_up", "DONE", "TIED", "FULL"]

# `dpp_steps` statuses: nothing fits or adds volume; a tie to break; the row buffer is full.
DONE, TIED, FULL = -1, -2, -3


@njit(cache=True, nogil=True)
def dpp_steps(matrix, inv, q, d2, gate, live, rows, tokens, left, floor, tol, chosen, count, forced):
    """Greedy DPP steps (in place) until nothing fits or adds volume, a tie, or `rows` is full.

    Args:
        matrix, inv, q: float64 (n, dim) rows, 1 / norm per row (0 for a zero row) and the qualities:
            ``L_ij = (a_i . a_j) inv_i inv_j q_i q_j``, multiplied in that order (as `CosineColumns`
            and a per-pick scaling by q compute it: no product overflows for any finite rows).
        d2: The residuals ``d_i^2``; gate: 0 for an open candidate, -inf once chosen or too large.
        live: Buffer for ``d2 + gate`` (on return after a tie, those of that step).
        rows: The Cholesky rows, one per pick so far (the first `count`).
        tokens: int64 tokens per candidate; left: tokens left.
        floor: Residuals at most this add no volume; tol: relative tie tolerance.
        chosen: int64 buffer of the picks (the first `count` made).
        forced: A pick to make first (a broken tie, or the pick that found `rows` full), or -1.

    Returns:
        (count, left, status, best, j): `DONE`; `TIED` with the best residual (every candidate with
        ``live >= best - tol * best`` is tied); `FULL` with the pick j to make once `rows` is grown.
    """
    n = d2.shape[0]
    j = forced
    while True:
        if j >= 0:
            t = count
            if t == rows.shape[0]:
                return count, left, FULL, 0.0, j
            chosen[count] = j
            count += 1
            gate[j] = -np.inf
            left -= tokens[j]
            e = rows[t]
            e[:] = np.dot(matrix, matrix[j])
            scale_j, q_j = inv[j], q[j]
            for i in range(n):
                e[i] = e[i] * inv[i] * scale_j * q[i] * q_j
            if t:
                # C c_j summed first and subtracted once, as ``e -= rows[:t, j] @ rows[:t]`` (`live` is free here).
                live[:] = 0.0
                for s in range(t):
                    c = rows[s, j]
                    row = rows[s]
                    for i in range(n):
                        live[i] += c * row[i]
                for i in range(n):
                    e[i] -= live[i]
            root = np.sqrt(d2[j])
            for i in range(n):
                e[i] /= root
                r = d2[i] - e[i] * e[i]
                d2[i] = r if r > 0.0 else 0.0
        # The best open candidate that fits (first of equal residuals, as argmax); the rest set aside.
        j, best = -1, -np.inf
        for i in range(n):
            if tokens[i] > left:
                gate[i] = -np.inf
            live[i] = d2[i] + gate[i]
            if live[i] > best:
                j, best = i, live[i]
        if best == -np.inf or best <= floor:
            return count, left, DONE, best, -1
        threshold = best - tol * best
        tied = 0
        for i in range(n):
            if live[i] >= threshold:
                tied += 1
        if tied > 1:
            return count, left, TIED, best, -1


def warm_up() -> None:
    """Compile (or load from the cache) `dpp_steps` for the argument types its caller passes."""
    dpp_steps(np.eye(2), np.ones(2), np.ones(2), np.ones(2), np.zeros(2), np.empty(2), np.empty((2, 2)), np.ones(2, dtype=np.int64), 2,
              0.0, 0.0, np.empty(2, dtype=np.int64), 0, -1)
