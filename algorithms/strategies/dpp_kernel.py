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

__all__ = ["dpp_steps", "dpp32_steps", "warm_up", "DONE", "TIED", "FULL", "LOST", "CONTENDED"]

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
    """Compile (or load from the cache) `dpp_steps` and `dpp32_steps` for the argument types their callers pass."""
    one, ints = np.ones(2), np.ones(2, dtype=np.int64)
    dpp_steps(np.eye(2), one, one, np.ones(2), np.zeros(2), np.empty(2), np.empty((2, 2)), ints, 2,
              0.0, 0.0, np.empty(2, dtype=np.int64), 0, -1)
    e64, e32 = np.eye(2), np.eye(2, dtype=np.float32)
    e64.setflags(write=False), e32.setflags(write=False)  # as `vectors.problem_embeddings` hands them over
    dpp32_steps(e32, one, e64, one, one, one, np.ones(2), np.zeros(2), np.zeros(2),
                np.empty((2, 2)), np.empty((2, 2), dtype=np.float32), ints, 2, 0.0, 0.0, 0.0, np.zeros(4),
                np.empty(2, dtype=np.int64), 0, -1, np.empty(2, dtype=np.int64), np.empty(2))


# `dpp32_steps`' extra status: the float64 basis lost its precision (a pick nearly in the span of
# the others); the caller reruns the float64 path.
LOST = -4
# ... and: a float64 comparison between contenders is too close to call; the caller reruns the float64 path.
CONTENDED = -5
_U53 = 2.0**-53


@njit(cache=True, nogil=True)
def _unit64(e64, inv64, i):
    """Row i's float64 unit vector (zero for a zero row); its 1 / norm is computed on first use
    (`inv64` holds -1 until then): only picks and contenders need one."""
    if inv64[i] < 0.0:
        s = np.dot(e64[i], e64[i])
        inv64[i] = 1.0 / np.sqrt(s) if s > 0.0 else 0.0
    return e64[i] * inv64[i]


@njit(cache=True, nogil=True)
def _gain64(e64, inv64, diag, q2, basis, t, i):
    """Float64 residual of candidate i against the first t basis rows: ``q_i^2 (diag_i - |B u_i|^2)``."""
    u = _unit64(e64, inv64, i)
    p = np.dot(basis[:t], u) if t else np.zeros(0)
    r = diag[i] - np.dot(p, p) if t else diag[i]
    return q2[i] * r if r > 0.0 else 0.0


@njit(cache=True, nogil=True)
def dpp32_steps(e32, inv, e64, inv64, diag, q2, res, s1, gate, basis, basis32, tokens, left, floor, gamma32, tol,
                state, chosen, count, forced, ties, exact):
    """Greedy DPP steps with float32 projections and certified picks (in place; see `dpp.float32_picks`).

    The residual of candidate i is ``q_i^2 r_i`` with ``r_i = diag_i - sum_t p_it^2``, ``p_it`` its unit
    vector's coordinate on the t-th orthonormal basis row of the picks' span (float64 Gram-Schmidt,
    twice). Each ``p_it`` is a float32 product with an error of at most ``g_t = gamma32 + e_t``: the
    float32 cosine bound, plus the basis row's distance from the exact span, ``e_t = ((dim + 2 t + 8)
    2**-53 + sum_s |c_s| e_s) / |v_t|`` (its own rounding and what it inherits from the earlier rows
    through the coefficients c_s, over the norm before scaling). So ``q_i^2 r_i`` is within ``q_i^2 (G
    (2 s1_i + t G) + slack)`` of its exact value, G the largest g_t, s1_i the sum of the ``|p_it|`` and
    slack the float64 sum's rounding plus ``t (4 E + (dim + 2 t + 8) 2**-53)`` for the rows' departure
    from an orthonormal basis of the span (E the largest e_t). A step whose best is not ahead of every other fitting candidate (and of the
    floor) by these bounds plus the tie tolerance recomputes its contenders in float64 (`_gain64`), and
    a float64 comparison too close to call is left to the float64 loop (`CONTENDED`).

    Args:
        e32, inv: float32 rows and float64 1 / their float32 norms (0 for a zero row).
        e64, inv64: The float64 rows and 1 / their norms (-1 where not computed yet, filled in on first
            use); diag: 1, or 0 for a zero row; q2: qualities^2.
        res, s1: ``r_i`` and ``sum_t |p_it|`` (float64, in place); gate: 0 open, -inf chosen or too large.
        basis, basis32: The basis rows (float64, and their float32 copies), one per pick so far.
        tokens, left: int64 tokens per candidate, tokens left; floor, tol: as `dpp_steps`.
        gamma32: The float32 cosine bound; state: float64 ``[G, E, e_0, e_1, ...]`` (in place), G the
            largest coordinate bound, e_t the t-th basis row's distance from the exact span and E the
            largest e_t (length at least 2 + the basis rows).
        chosen, count, forced: As `dpp_steps`; ties: int64 buffer for a tie's candidates; exact: float64
            buffer for the contenders' float64 residuals.

    Returns:
        (count, left, status, j): `DONE`; `TIED` with the first j entries of `ties` tied in float64;
        `CONTENDED` (a float64 comparison too close to call: the caller runs the float64 loop); `FULL`
        with the pick j to make once the basis buffers are grown; `LOST`.
    """
    n, dim = e32.shape
    j = forced
    while True:
        if j >= 0:
            t = count
            if t == basis.shape[0]:
                return count, left, FULL, j
            chosen[count] = j
            count += 1
            gate[j] = -np.inf
            left -= tokens[j]
            last = True  # the last pick's basis row changes nothing: skip it when nothing is left that fits
            for i in range(n):
                if gate[i] == 0.0 and tokens[i] <= left:
                    last = False
                    break
            if last:
                return count, left, DONE, -1
            v = _unit64(e64, inv64, j)
            inherited = 0.0
            if t:  # classical Gram-Schmidt twice: orthogonal to working precision
                coef = np.dot(basis[:t], v)
                for s in range(t):  # the earlier rows' distance from the exact span, carried by this row
                    inherited += abs(coef[s]) * state[2 + s]
                v -= np.dot(coef, basis[:t])
                v -= np.dot(np.dot(basis[:t], v), basis[:t])
            norm = np.sqrt(np.dot(v, v))
            # This row's distance from the exact span of the picks' unit vectors: its own rounding plus
            # what it inherits, over its norm (small only when the pick is close to the span).
            far = ((dim + 2 * t + 8) * _U53 + inherited) / norm if norm > 0.0 else np.inf
            if not (norm > 1e-6 and far < 1e-4):
                return count, left, LOST, -1
            basis[t] = v / norm
            basis32[t] = basis[t].astype(np.float32)
            state[2 + t] = far
            if far > state[1]:
                state[1] = far
            if gamma32 + far > state[0]:
                state[0] = gamma32 + far
            col = np.dot(e32, basis32[t])
            for i in range(n):
                p = np.float64(col[i]) * inv[i]
                res[i] -= p * p
                s1[i] += abs(p)
        t = count
        big = state[0]
        # Rounding of the float64 sum, and the basis rows' departure from an orthonormal basis of the
        # exact span (their distances from it, and Gram-Schmidt's own orthogonality).
        slack = (t + 4) * 2.0 * _U53 + t * (4.0 * state[1] + (dim + 2 * t + 8) * _U53)
        # The best open fitting candidate (first of equal values), the rest set aside.
        j, best, err = -1, -np.inf, 0.0
        for i in range(n):
            if tokens[i] > left:
                gate[i] = -np.inf
            if gate[i] == 0.0:
                d = q2[i] * res[i] if res[i] > 0.0 else 0.0
                if d > best:
                    j, best = i, d
                    err = q2[i] * (big * (2.0 * s1[i] + t * big) + slack)
        if j < 0 or best + err <= floor:
            return count, left, DONE, -1
        threshold = best - err - tol * (best + err)
        contenders = 0
        for i in range(n):
            if gate[i] == 0.0:
                d = q2[i] * res[i] if res[i] > 0.0 else 0.0
                if d + q2[i] * (big * (2.0 * s1[i] + t * big) + slack) >= threshold:
                    ties[contenders] = i
                    contenders += 1
        if contenders == 1 and best - err > floor:
            continue  # j is certified: the float64 rule takes it too
        # Contended: the float64 rule among the contenders, unless a comparison falls within what two
        # float64 computations of a residual (this basis, the Cholesky loop: each within about
        # (dim + t + 8) ulps of q_i^2, taken 64 times over) may disagree on; then only the definition's
        # own loop decides (seen: residuals of 7e-7 from vectors 1e-12 apart, 1.4e-9 apart relative
        # through this basis and within the 1e-9 tie tolerance through the loop).
        top, near = -np.inf, 64.0 * (dim + t + 8) * _U53
        for c in range(contenders):
            exact[c] = _gain64(e64, inv64, diag, q2, basis, t, ties[c])
            if exact[c] > top:
                top, j = exact[c], ties[c]
        if abs(top - floor) <= near * q2[j]:
            return count, left, CONTENDED, contenders
        if top <= floor:
            return count, left, DONE, -1
        tied = 0
        for c in range(contenders):  # compacted in place: entry c moves to tied <= c
            if abs(exact[c] - (top - tol * top)) <= near * (q2[ties[c]] + q2[j]):
                return count, left, CONTENDED, contenders
            if exact[c] >= top - tol * top:
                ties[tied] = ties[c]
                tied += 1
        if tied > 1:
            return count, left, TIED, tied
        j = ties[0]
