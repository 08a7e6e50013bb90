"""The compiled (numba) lazy greedy of `submodular` (`submodular_greedy.lazy_greedy`).

The numpy loop spent about ten calls per round (argmax, the stale set, its top bounds, the gains of
a fancy-indexed copy of their rows), each a few microseconds of call overhead: at 200 candidates
that was most of the strategy's time, the refreshed gains themselves a few hundred multiply-adds.
`lazy_steps` runs the same rounds in one compiled loop with the same float64 arithmetic: a gain is
``(phi(s + rel_k) - phi(s)) + lam * sum_i max(sim_ki - cover_i, 0)``, the sum taken in numpy's
pairwise order (`pairwise_sum`), so every bound is bit for bit the numpy one. The one choice numpy
makes that is not a function of the values, which of several equal bounds `argpartition` refreshes
when they straddle the batch's edge, is handed back to Python (`TIED_EDGE`).

Compiled with ``cache=True``; `warm_up` compiles or loads it, so no compile time lands in a
measured call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["lazy_steps", "pairwise_sum", "refresh", "all_bounds", "warm_up", "DONE", "TIED_EDGE"]

# `lazy_steps` statuses: the greedy is over; a refresh whose batch edge cuts through equal bounds.
DONE, TIED_EDGE = -1, -2
# numpy's pairwise summation: blocks of at most this many are summed with 8 accumulators.
_BLOCK = 128


@njit(cache=True, nogil=True)
def _block_sum(a, lo, n):
    """numpy's sum of a stretch of at most `_BLOCK` entries: 8 accumulators, then the tail."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - n % 8:
        p = lo + i
        r0 += a[p]
        r1 += a[p + 1]
        r2 += a[p + 2]
        r3 += a[p + 3]
        r4 += a[p + 4]
        r5 += a[p + 5]
        r6 += a[p + 6]
        r7 += a[p + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def pairwise_sum(a, lo, n):
    """``a[lo:lo + n].sum()`` as numpy adds a contiguous float64 stretch (its pairwise summation).

    numpy halves a stretch over `_BLOCK` entries (the first half a multiple of 8) and adds the halves'
    sums. That recursion is unrolled here on an explicit stack: a recursive function loaded from
    numba's cache crashes the process.
    """
    if n <= _BLOCK:
        return _block_sum(a, lo, n)
    # Tasks: (lo, n) to sum, or n = -1 to add the two sums on top of `vals` (first half + second half).
    task_lo, task_n, vals = np.empty(128, dtype=np.int64), np.empty(128, dtype=np.int64), np.empty(128)
    task_lo[0], task_n[0] = lo, n
    tasks, nvals = 1, 0
    while tasks:
        tasks -= 1
        start, size = task_lo[tasks], task_n[tasks]
        if size < 0:
            nvals -= 1
            vals[nvals - 1] = vals[nvals - 1] + vals[nvals]
        elif size <= _BLOCK:
            vals[nvals] = _block_sum(a, start, size)
            nvals += 1
        else:
            half = size // 2
            half -= half % 8
            # Popped in reverse: the first half is summed first, then the second, then they are added.
            task_lo[tasks], task_n[tasks] = 0, -1
            task_lo[tasks + 1], task_n[tasks + 1] = start + half, size - half
            task_lo[tasks + 2], task_n[tasks + 2] = start, half
            tasks += 3
    return vals[0]


@njit(cache=True, nogil=True)
def refresh(k, sim, has_sim, cover, sums, group, rel, sqrt, lam, cost, buf):
    """The bound ``gain(k) / cost_k`` as `SubmodularObjective.gains` and the numpy loop compute it."""
    s = sums[group[k]]
    gain = (np.sqrt(s + rel[k]) - np.sqrt(s)) if sqrt else ((s + rel[k]) - s)
    if has_sim:
        n = cover.shape[0]
        for i in range(n):
            d = sim[k, i] - cover[i]
            buf[i] = d if d >= 0.0 else 0.0  # np.maximum(d, 0.0) keeps d when d >= 0
        gain = gain + lam * pairwise_sum(buf, 0, n)
    return gain / cost[k]


@njit(cache=True, nogil=True)
def all_bounds(sim, has_sim, cover, sums, group, rel, sqrt, lam, cost, buf):
    """`refresh` of every candidate: the first bounds (``f.gains(sums, cover) / cost``)."""
    n = cost.shape[0]
    out = np.empty(n)
    for k in range(n):
        out[k] = refresh(k, sim, has_sim, cover, sums, group, rel, sqrt, lam, cost, buf)
    return out


@njit(cache=True, nogil=True)
def lazy_steps(sim, has_sim, cover, sums, group, rel, sqrt, lam, cost, tok, bound, fresh, chosen, buf, work, state):
    """Rounds of the lazy greedy (in place) until it is over or a refresh needs numpy's `argpartition`.

    Args:
        sim, has_sim: The (n, n) similarity rows and whether there is a coverage term.
        cover, sums: The running state (`SubmodularObjective.state`), updated as picks are made.
        group, rel, sqrt, lam: The objective's sources, relevances, phi (sqrt or identity) and weight.
        cost: float64 ``tokens ** r``; tok: int64 tokens.
        bound, fresh: The bounds (-inf once chosen or too large) and the step each was computed at.
        chosen: int64 buffer of the picks; buf, work: float64 and int64 scratch of length n.
        state: int64 ``[count, left, step, size, batch]`` (in place).

    Returns:
        `DONE`, or `TIED_EDGE` with the round unchanged (the caller refreshes it and calls again).
    """
    n = bound.shape[0]
    count, left, step, size, batch = state[0], state[1], state[2], state[3], state[4]
    status = DONE
    while True:
        k, top = 0, -np.inf
        for i in range(n):
            if bound[i] > top:
                k, top = i, bound[i]
        if top == -np.inf:
            break
        if tok[k] > left:  # room shrank under the top: set aside everything that no longer fits
            for i in range(n):
                if tok[i] > left:
                    bound[i] = -np.inf
            continue
        if fresh[k] != step:
            m = 0
            for i in range(n):
                if fresh[i] != step and bound[i] > -np.inf:
                    work[m] = i
                    m += 1
            if m > size:
                # The `size` largest bounds; unique unless equal ones straddle the edge (then numpy decides).
                neg = np.empty(m)
                for c in range(m):
                    neg[c] = -bound[work[c]]
                edge = np.partition(neg, size - 1)[size - 1]
                kept = 0
                for c in range(m):
                    if neg[c] <= edge:
                        work[kept] = work[c]
                        kept += 1
                if kept != size:
                    status = TIED_EDGE
                    break
                m = size
            size *= 2  # the top is still stale after a refresh: gains moved together, refresh more at once
            for c in range(m):
                i = work[c]
                bound[i] = refresh(i, sim, has_sim, cover, sums, group, rel, sqrt, lam, cost, buf)
                fresh[i] = step
            continue
        if not top > 0:
            break
        chosen[count] = k
        count += 1
        sums[group[k]] += rel[k]
        if has_sim:
            for i in range(n):
                s = sim[k, i]
                if not cover[i] >= s:  # np.maximum(cover, s) keeps cover when cover >= s
                    cover[i] = s
        left -= tok[k]
        bound[k] = -np.inf
        step += 1
        size = batch
    state[0], state[1], state[2], state[3] = count, left, step, size
    return status


def warm_up() -> None:
    """Compile (or load from the cache) `lazy_steps` for the argument types its caller passes."""
    one, ints = np.ones(2), np.ones(2, dtype=np.int64)
    all_bounds(np.eye(2), True, np.zeros(2), np.zeros(2), np.arange(2), one, True, 0.5, one, np.empty(2))
    lazy_steps(np.eye(2), True, np.zeros(2), np.zeros(2), np.arange(2), one, True, 0.5, one, ints,
               np.ones(2), np.zeros(2, dtype=np.int64), np.empty(2, dtype=np.int64), np.empty(2),
               np.empty(2, dtype=np.int64), np.array([0, 2, 0, 1, 1]))
