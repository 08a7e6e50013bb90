"""The compiled Pareto lists behind `pareto.pareto_lex`: numpy's lists, merged and pruned state by state.

Items are visited last to first. The list after item k holds the undominated (tokens, profit)
states of items k..n-1 that can still reach the target with items 0..k-1 within the room they
leave, by two bounds on those items. The Dantzig bound is read from Fenwick trees over their
density order (ties by position, as `pareto._LPBound` orders them), from which item k leaves as
it joins the lists: O(log n) per state instead of numpy's O(n) per item, with the same float
operations in the same order. The second, a cardinality bound (`_most_profit`), drops states the
Dantzig bound keeps where a few heavy items dominate, as in Jooken's class. Both are valid upper
bounds that can only grow with the room, so every list is a subset of numpy's: the same set comes
back wherever numpy's did, and None (over the cap) only where numpy's lists outgrew it too.

A merged state goes to the list only when it scores more than the last one kept (a state dominated
by one a bound dropped has no better bound, so it is dropped too). Memory: each stored list is its
own array pair (16 bytes a state) plus one merge buffer of at most 1.5 times the largest merge,
inside `pareto.pareto_lex`'s count (16 bytes a stored state plus `PARETO_STATE_BYTES` a live one),
checked after every item as there."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.typed import List

from .core.clock import CLOCK_ID, monotonic_now, to_clock
from .core.fenwick import add, descend

__all__ = ["DONE", "OVER_CAP", "NO_SET", "TIMED_OUT", "lex_lists", "warm_up"]

DONE, OVER_CAP, NO_SET, TIMED_OUT = 0, 1, 2, 3
# Float slack on bounds, as `pareto._REL_TOL`: a state is never dropped for a bound computed a little low.
_REL_TOL = 1e-9
# Merged states between two reads of the clock inside one item's merge.
_CHECK_STATES = 4096


@njit(cache=True)
def _dantzig(tw, tp, ws, ps, top, n, cap):
    """Dantzig bound of the items alive in the trees within `cap` tokens, as `pareto._LPBound` sums it."""
    pos, left, base = descend(tw, tp, 0.0, cap, top, n)
    if pos >= n:  # every alive item fits whole
        return base
    # pos is the first alive item left out (a dead one weighs nothing, so the descent passes it).
    return base + ps[pos] * ((float(cap) - float(cap - left)) / ws[pos])


@njit(cache=True)
def _most_profit(wn, wsum, pn, psum, top, n, cap):
    """The profit of the most profitable alive items, as many as the lightest alive ones that fit in `cap`.

    No set of the alive items within `cap` holds more items than the lightest ones that fit, nor
    more profit than that many of the most profitable: a bound the Dantzig bound misses where a
    few heavy items dominate (Jooken's class: one item of half the room fits, the LP takes two).
    """
    _, _, count = descend(wsum, wn, 0, cap, top, n)
    _, _, value = descend(pn, psum, 0.0, count, top, n)
    return value


@njit(cache=True)
def _lists(w, p, rank, ws, ps, rank_w, rank_p, room, target, max_bytes, clock_id, deadline):
    """(status, chosen positions): the pruned lists of every suffix, then the first-item-first rebuild."""
    n = len(w)
    tw = np.zeros(n + 1, dtype=np.int64)
    tp = np.zeros(n + 1, dtype=np.float64)
    wn = np.zeros(n + 1, dtype=np.int64)  # by weight, lightest first: counts and weights
    wsum = np.zeros(n + 1, dtype=np.int64)
    pn = np.zeros(n + 1, dtype=np.int64)  # by profit, most profitable first: counts and profits
    psum = np.zeros(n + 1, dtype=np.float64)
    for k in range(n):
        add(tw, tp, rank[k], w[k], p[k])
        add(wn, wsum, rank_w[k], 1, w[k])
        add(pn, psum, rank_p[k], 1, p[k])
    top = 1
    while top * 2 <= n:
        top *= 2
    layers_w = List()
    layers_p = List()
    W = np.zeros(1, dtype=np.int64)
    P = np.zeros(1, dtype=np.float64)
    layers_w.append(W)
    layers_p.append(P)
    buf_w = np.empty(0, dtype=np.int64)
    buf_p = np.empty(0, dtype=np.float64)
    stored = 16.0
    for k in range(n - 1, -1, -1):
        if monotonic_now(clock_id) > deadline:
            return TIMED_OUT, np.empty(0, dtype=np.int64)
        add(tw, tp, rank[k], -w[k], -p[k])  # item k joins the suffix: it leaves the bounds' items
        add(wn, wsum, rank_w[k], -1, -w[k])
        add(pn, psum, rank_p[k], -1, -p[k])
        m, wk, pk = len(W), w[k], p[k]
        fit = 0  # the old states that can take item k: a prefix, the list being sorted by tokens
        while fit < m and W[fit] <= room - wk:
            fit += 1
        need = m + fit
        if len(buf_w) < need or len(buf_w) > 4 * need + 64:
            size = need + need // 2 + 8
            buf_w = np.empty(0, dtype=np.int64)  # release the old buffer before the new one is taken
            buf_p = np.empty(0, dtype=np.float64)
            buf_w = np.empty(size, dtype=np.int64)
            buf_p = np.empty(size, dtype=np.float64)
        out, a, b = 0, 0, 0
        since = 0
        while a < m or b < fit:
            # Token order; on equal tokens the better profit first, the old state on a tie.
            if b >= fit or (a < m and (W[a] < W[b] + wk or (W[a] == W[b] + wk and P[a] >= P[b] + pk))):
                sw, sp = W[a], P[a]
                a += 1
            else:
                sw, sp = W[b] + wk, P[b] + pk
                b += 1
            since += 1
            if since >= _CHECK_STATES:
                if monotonic_now(clock_id) > deadline:
                    return TIMED_OUT, np.empty(0, dtype=np.int64)
                since = 0
            if out > 0 and sp <= buf_p[out - 1]:
                continue  # dominated by the last state kept
            bound = sp + _dantzig(tw, tp, ws, ps, top, n, room - sw)
            if math.floor(bound + _REL_TOL * max(1.0, abs(bound))) < target:
                continue
            if sp + _most_profit(wn, wsum, pn, psum, top, n, room - sw) < target:
                continue  # exact: integral profits below 2**53
            buf_w[out], buf_p[out] = sw, sp
            out += 1
        W = buf_w[:out].copy()
        P = buf_p[:out].copy()
        stored += 16.0 * out
        # `pareto.pareto_lex`'s two caps, in its terms: the lists so far plus the live one, and the
        # lists so far plus the current one growing at its rate over the k items still to come.
        done = n - k
        if (stored + 96.0 * out > max_bytes
                or stored + 16.0 * out * k * (n + done) / (2.0 * done) > 2.0 * max_bytes):
            return OVER_CAP, np.empty(0, dtype=np.int64)
        layers_w.append(W)
        layers_p.append(P)
        if out == 0:
            return NO_SET, np.empty(0, dtype=np.int64)
    chosen = np.empty(n, dtype=np.int64)
    count, left, need_p = 0, room, P[len(P) - 1]  # profits rise along a list: the last state is the optimum
    for k in range(n):
        after_w = layers_w[n - 1 - k]  # the list of items k+1..n-1
        after_p = layers_p[n - 1 - k]
        if w[k] > left or len(after_w) == 0:
            continue
        at = np.searchsorted(after_w, left - w[k], side="right") - 1
        if at >= 0 and after_p[at] >= need_p - p[k]:
            chosen[count] = k
            count += 1
            left -= w[k]
            need_p -= p[k]
    if need_p > 0:
        return NO_SET, chosen[:0]
    return DONE, chosen[:count]


def _ranks(key: np.ndarray) -> np.ndarray:
    """Each item's place when sorted by `key` ascending, ties by position."""
    rank = np.empty(len(key), dtype=np.int64)
    rank[np.argsort(key, kind="stable")] = np.arange(len(key))
    return rank


def lex_lists(tokens, profits, room: int, target: float, deadline: float | None,
              max_bytes: float) -> tuple[int, list[int]]:
    """Run the compiled lists (see the module docstring) on `pareto.pareto_lex`'s arguments.

    Args:
        tokens: Positive token counts, each <= room.
        profits: Positive integral profits (total below 2**53), same length.
        room: Capacity.
        target: A profit some feasible set reaches.
        deadline: A `time.perf_counter()` value, read inside the compiled loop; None for none.
        max_bytes: Cap on the stored lists, counted as `pareto.pareto_lex` counts them.

    Returns:
        (status: DONE, OVER_CAP, NO_SET or TIMED_OUT; the chosen positions in increasing order when DONE).
    """
    w = np.ascontiguousarray(tokens, dtype=np.int64).reshape(-1)
    p = np.ascontiguousarray(profits, dtype=np.float64).reshape(-1)
    n = len(w)
    order = np.argsort(-p / w, kind="stable") if n else np.zeros(0, dtype=np.int64)  # density, ties by position
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    ws, ps = w[order].astype(np.float64), p[order]
    status, chosen = _lists(w, p, rank, ws, ps, _ranks(w), _ranks(-p), int(room), float(target),
                            float(max_bytes), CLOCK_ID, to_clock(deadline))
    return int(status), chosen.tolist()


def warm_up() -> None:
    """Load the compiled lists (from numba's cache, or compile them) before anything is timed."""
    lex_lists([2, 3, 4], [3.0, 4.0, 5.0], 5, 7.0, None, 2.0**20)
