"""The lexicographically first optimum, given the optimum's value, by compiled Pareto lists.

Items are visited last to first. After item k the list holds the undominated (weight,
profit) states of items k..n-1 that can still reach the target with items 0..k-1, by the
Dantzig bound of those items: a Fenwick tree over their efficiency order answers that bound
in O(log n) per state while items leave it. The set is then rebuilt first item first,
taking an item whenever the stored list of the items after it can complete the target:
the same rule as `dp_knapsack`'s, so the same set, at a cost that follows the states kept,
not n x room (`pareto.pareto_lex` in numpy does the same with a bound of O(n) per item).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .clock import CLOCK_ID, monotonic_now, to_clock
from .bounds import _AFFINE_TRIES, _shifted, affine_step
from .fenwick import add, descend

__all__ = ["LEX_STATE_BYTES", "item_tree", "lex_first", "tree_in_order"]

LEX_STATE_BYTES = 16  # weight and profit of every stored state
_REL_TOL = 1e-9


@njit(cache=True)
def _fill(tw, tp, eff, n, top, room):
    """(Dantzig bound, weight its LP solution uses) of the items alive in the Fenwick tree within `room`."""
    pos, left, value = descend(tw, tp, 0.0, room, top, n)
    if pos < n and left > 0:
        value += eff[pos] * left  # pos is the first alive item left out: the best efficiency left
        left = 0
    return value, room - left


@njit(cache=True)
def item_tree(w, p):
    """Every item alive in a Fenwick tree over the efficiency order.

    Returns (efficiency rank of each item, efficiencies in rank order, Fenwick weights, Fenwick
    profits, the tree's top bit), as `_fill` reads them.
    """
    return tree_in_order(w, p, np.argsort(-(p / w), kind="mergesort"))


@njit(cache=True)
def tree_in_order(w, p, order):
    """`item_tree` given `order`, the positions by efficiency (best first, equal ones by position).

    That is `minknap.efficiency_order`, which the witness pass sorts anyway: one sort instead of two
    (numba's merge sort took 0.2 ms of a 6 ms call at 10,000 items).
    """
    n = len(w)
    eff_all = p / w
    rank = np.empty(n, dtype=np.int64)
    for q in range(n):
        rank[order[q]] = q
    tw = np.zeros(n + 1, dtype=np.int64)
    tp = np.zeros(n + 1, dtype=np.float64)
    for q in range(n):  # every item alive
        add(tw, tp, q, w[order[q]], p[order[q]])
    top = 1
    while top * 2 <= n:
        top *= 2
    return rank, eff_all[order], tw, tp, top


@njit(cache=True)
def _lex_kernel(w, p, room, target, max_states, clock_id, deadline):
    n = len(w)
    gp = p[0]
    for k in range(1, n):
        gp = math.gcd(gp, p[k])
    slope, ga = affine_step(w, p, gp, _AFFINE_TRIES)  # not `a`: the loops below use it
    rank, eff, tw, tp, top = item_tree(w, p)
    SW = np.empty(max_states, dtype=np.int64)
    SP = np.empty(max_states, dtype=np.int64)
    start = np.zeros(n + 2, dtype=np.int64)  # layer i (items n-i..n-1) is SW[start[i]:start[i+1]]
    SW[0], SP[0] = 0, 0
    start[1] = 1
    for k in range(n - 1, -1, -1):
        add(tw, tp, rank[k], -w[k], -p[k])  # item k joins the suffix: it leaves the bound's items
        layer = n - 1 - k
        if (layer & 63) == 63 and monotonic_now(clock_id) > deadline:
            return np.empty(0, dtype=np.int64), 3
        a, end = start[layer], start[layer + 1]
        out = end
        if out + 2 * (end - a) > max_states:
            return np.empty(0, dtype=np.int64), 1
        i, j = a, a
        while i < end or j < end:
            take_old = True
            if j < end and SW[j] + w[k] <= room:
                if i >= end or SW[j] + w[k] < SW[i] or (SW[j] + w[k] == SW[i] and SP[j] + p[k] > SP[i]):
                    take_old = False
            elif i >= end:
                break
            if take_old:
                ww, pp = SW[i], SP[i]
                i += 1
            else:
                ww, pp = SW[j] + w[k], SP[j] + p[k]
                j += 1
            if out > end and pp <= SP[out - 1]:
                continue
            fill, used = _fill(tw, tp, eff, n, top, room - ww)
            bound = pp + fill
            if math.floor(bound + _REL_TOL * max(1.0, abs(bound))) < target:
                continue
            if ga > 1 and _shifted(bound, ww + used, room, slope, ga) < target:
                continue  # the shifted-gcd cut (`kernel.affine_step`): the same sets reach the target
            SW[out], SP[out] = ww, pp
            out += 1
        start[layer + 2] = out
    chosen = np.empty(n, dtype=np.int64)
    count, left, need = 0, room, target
    for k in range(n):
        if w[k] > left:
            continue
        a, end = start[n - 1 - k], start[n - k]  # the list of items k+1..n-1
        lo, hi = a, end  # the last state with weight <= left - w[k]: the best of those
        while lo < hi:
            mid = (lo + hi) >> 1
            if SW[mid] <= left - w[k]:
                lo = mid + 1
            else:
                hi = mid
        if lo > a and SP[lo - 1] >= need - p[k]:
            chosen[count] = k
            count += 1
            left -= w[k]
            need -= p[k]
    return chosen[:count], 0 if need <= 0 else 2


def lex_first(tokens, profits, room: int, target: int, max_states: int,
              deadline: float | None = None) -> list[int] | None:
    """Positions of the lexicographically first set reaching `target` (the optimum's value); None past the cap.

    Args:
        tokens: Positive integer weights, each <= room.
        profits: Positive integer profits, total below 2**53.
        room: Capacity.
        target: The optimum's value (a proven one: a lower value gives the first set reaching it).
        max_states: Most states the stored lists may hold (16 bytes each); None when they need more.
        deadline: A `time.perf_counter()` value, checked inside the compiled loop every 64 items.

    Returns:
        Increasing positions, or None when the lists outgrew `max_states`.

    Raises:
        ValueError: No set reaches `target`.
        TimeoutError: The deadline passed.
    """
    w = np.ascontiguousarray(tokens, dtype=np.int64)
    p = np.ascontiguousarray(profits, dtype=np.int64)
    if len(w) == 0:
        if target > 0:
            raise ValueError(f"lex_first: no set reaches the target profit {target}")
        return []
    chosen, status = _lex_kernel(w, p, int(room), int(target), max(int(max_states), 4), CLOCK_ID, to_clock(deadline))
    if status == 3:
        raise TimeoutError("lex_first: deadline passed")
    if status == 1:
        return None
    if status == 2:
        raise ValueError(f"lex_first: no set reaches the target profit {target}")
    return chosen.tolist()
