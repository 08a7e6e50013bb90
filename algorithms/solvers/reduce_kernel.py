"""The compiled core of `reduce.reduce_knapsack`: greedy incumbent, Dantzig bounds and fixings in one pass.

The numpy version makes about forty small array operations per call, 0.1-0.3 ms on the hard
families at n = 100-2,000, where the whole solve should take about a millisecond; this kernel does
the same arithmetic in loops. It is used only where its answer is the numpy one bit for bit:
integral scores whose total is below 2**53, so every float sum is exact whatever its order (numpy
sums pairwise, the kernel left to right). Each bound is the same sequence of IEEE operations as in
the numpy code, so the fixings agree too. Compiled with ``cache=True``; `warm_up` loads it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .core.bounds import first_above

__all__ = ["EXACT_SUM_LIMIT", "reduce_sorted", "warm_up"]

# Below this total, sums of integral float64 scores are exact in any order.
EXACT_SUM_LIMIT = 2.0**53


@njit(cache=True)
def _tighten(bound, integral, rel_tol):
    slack = rel_tol * max(1.0, abs(bound))
    return np.floor(bound + slack) if integral else bound + slack


@njit(cache=True)
def _scatter(order, mask):
    """Input positions of the sorted positions set in `mask`, increasing."""
    n = len(order)
    where = np.zeros(n, dtype=np.bool_)
    count = 0
    for i in range(n):
        if mask[i]:
            where[order[i]] = True
            count += 1
    out = np.empty(count, dtype=np.int64)
    k = 0
    for j in range(n):
        if where[j]:
            out[k] = j
            k += 1
    return out


@njit(cache=True)
def reduce_sorted(ws, ps, order, room, margin, has_known, known, rel_tol):
    """`reduce_knapsack` on items already sorted by density (`order` maps back to input positions).

    Args:
        ws, ps: int64 weights and float64 scores in density order (best first).
        order: int64 input position of each sorted item.
        room: Capacity.
        margin: How far below the incumbent's score the fixings hold.
        has_known, known: Whether a caller's feasible score is given, and that score.
        rel_tol: The relative slack on every bound.

    Returns:
        (ok, incumbent positions, fixed-in positions, free positions, room left, incumbent score,
        upper bound, early): ok False (nothing else meaningful) where the scores are not integral
        or total 2**53 or more, so the float sums could depend on their order; early True where the
        incumbent meets the bound with no margin (no fixings computed).
    """
    n = len(ws)
    empty = np.empty(0, dtype=np.int64)
    integral = True
    total_p = 0.0
    for i in range(n):
        if ps[i] != np.floor(ps[i]):
            integral = False
        total_p += abs(ps[i])
    if not integral or not total_p < EXACT_SUM_LIMIT:
        return False, empty, empty, empty, room, 0.0, 0.0, False
    cum_w = np.empty(n, dtype=np.int64)
    cum_p = np.empty(n, dtype=np.float64)
    acc_w, acc_p = 0, 0.0
    for i in range(n):
        acc_w += ws[i]
        acc_p += ps[i]
        cum_w[i] = acc_w
        cum_p[i] = acc_p
    split = 0
    while split < n and cum_w[split] <= room:
        split += 1

    def lp_value(cap):
        # The LP relaxation's optimum over all items at capacity `cap` (numpy's `_lp_values`); the first
        # prefix weighing more than `cap` is searched outward from the split item (`first_above`: the same
        # index as numpy's searchsorted). A closure, so numba inlines it: as a function of its own taking
        # the four arrays, each call cost about 40 ns in the arrays' passing and reference counts (0.43 of
        # the kernel's 0.5 ms at 10,000 items).
        whole = first_above(cum_w, cap, 0, n, split)
        base_p = cum_p[whole - 1] if whole > 0 else 0.0
        base_w = cum_w[whole - 1] if whole > 0 else 0
        if whole >= n:
            return base_p + 0.0
        return base_p + ps[whole] * ((cap - base_w) / ws[whole])
    taken = np.zeros(n, dtype=np.bool_)
    used = cum_w[split - 1] if split > 0 else 0
    inc_score = cum_p[split - 1] if split > 0 else 0.0
    for i in range(split):
        taken[i] = True
    if split < n:
        gap = room - used  # only items fitting in what the prefix left can ever be added (it only shrinks)
        for i in range(split, n):
            if ws[i] <= gap and used + ws[i] <= room:
                used += ws[i]
                inc_score += ps[i]
                taken[i] = True
                if used == room:
                    break
    upper = _tighten(lp_value(room), True, rel_tol)
    incumbent = _scatter(order, taken)
    if inc_score >= upper and margin == 0.0:
        return True, incumbent, empty, empty, room, inc_score, upper, True
    lower = (max(inc_score, known) if has_known else inc_score) - margin
    fix = np.zeros(n, dtype=np.bool_)
    fixed_w = 0
    total = cum_w[n - 1] if n > 0 else 0
    for j in range(split):
        # Capacities past the total weight all give the same LP value; clipping keeps room + w in int64.
        without = _tighten(lp_value(room + min(ws[j], total - room)) - ps[j], True, rel_tol)
        if without <= lower:
            fix[j] = True
            fixed_w += ws[j]
    left = room - fixed_w
    free = np.zeros(n, dtype=np.bool_)
    for j in range(n):
        if fix[j] or ws[j] > left:
            continue
        if j >= split:
            forced = _tighten(ps[j] + lp_value(room - ws[j]), True, rel_tol)
            if forced <= lower:
                continue
        free[j] = True
    return True, incumbent, _scatter(order, fix), _scatter(order, free), left, inc_score, upper, False


def warm_up() -> None:
    """Load (or on a first install compile) the kernel, so no JIT time lands in a measured call."""
    ws = np.array([4, 3, 2], dtype=np.int64)
    ps = np.array([8.0, 3.0, 1.0])
    reduce_sorted(ws, ps, np.arange(3, dtype=np.int64), 5, 1.0, True, 9.0, 1e-9)
