"""Pairing of the expanding-core search's states with one item outside the core (`kernel.search`).

The search only meets a set once all its changes from the break solution are core items; on
Jooken's class the optimum also takes a light item far after the core (a small item of average
efficiency that fills the last few units of room), which the core reaches only after tens of
thousands of state visits, and until then the incumbent stays low and prunes little. Pairing
(Martello, Pisinger & Toth 1999, section 4; Kellerer, Pferschy & Pisinger 2004, section 5.4.2)
completes every state by one item outside the core: a state that fits takes the most profitable
item after the core that fits in its room, one that does not fit drops the least profitable item
before the core heavy enough to make it fit. Each paired set is a real set (a state plus one
flip of an item the state has not decided), so it can only raise the incumbent: the bounds and
the proof are untouched. The search pairs once its work since the last pass is a multiple of the
pass's own cost (a walk over the items plus a binary search per state).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["FILL_ITEMS", "FILL_ROOM", "PAIR_BYTES", "PAIR_BYTES_PER_ITEM", "PAIR_EVERY", "fill_tables", "pair_order",
           "pair_pass"]

# Bytes per item of the pairing tables: the weight order and, per side, weights, best profits and items.
PAIR_BYTES_PER_ITEM = 8 * 7
# A pass runs once the state visits since the last one reach PAIR_EVERY times its cost (n + m, plus the
# fill's cells at FILL_CELLS a visit): at most about 1 / PAIR_EVERY of the search's work goes to pairing.
PAIR_EVERY = 2
FILL_CELLS = 16
# The fill: the best subset of the first FILL_ITEMS items after the core weighing at most FILL_ROOM, for
# every room up to FILL_ROOM (a small 0/1 DP per pass). On Jooken's class the last units of room take two
# or three small items, which one item cannot reach.
FILL_ITEMS = 128
FILL_ROOM = 1024
# Bytes of the fill: its profits by room, its choice table and its items.
PAIR_BYTES = 8 * (FILL_ROOM + 1) + FILL_ITEMS * (FILL_ROOM + 1) + 8 * FILL_ITEMS * 2


@njit(cache=True)
def pair_order(w):
    """The items by weight, lightest first (equal weights by position): the walk every pass filters."""
    return np.argsort(w, kind="mergesort")


@njit(cache=True)
def _tables(w, p, by_w, s, t, aw, ap, ai, rw, rp, ri):
    """Fill the add side (items t.., by weight, running best profit) and the drop side (items ..s, by weight,
    least profit from there on); returns their lengths."""
    na = nr = 0
    for q in range(len(by_w)):
        k = by_w[q]
        if k >= t:
            aw[na] = w[k]
            if na == 0 or p[k] > ap[na - 1]:
                ap[na], ai[na] = p[k], k
            else:
                ap[na], ai[na] = ap[na - 1], ai[na - 1]
            na += 1
        elif k <= s:
            rw[nr], rp[nr], ri[nr] = w[k], p[k], k
            nr += 1
    for q in range(nr - 2, -1, -1):  # suffix minimum: the cheapest item at least this heavy
        if rp[q + 1] < rp[q]:
            rp[q], ri[q] = rp[q + 1], ri[q + 1]
    return na, nr


@njit(cache=True)
def fill_tables(items):
    """The fill's work space for `items` items (FILL_ITEMS; 0: a placeholder until the first pass): profits by
    room, the choice table, its items (`_fill`), the set found."""
    rooms = FILL_ROOM + 1 if items else 0
    return (np.zeros(rooms, np.int64), np.zeros((items, rooms), np.bool_), np.zeros(items, np.int64),
            np.zeros(items, np.int64))


@njit(cache=True)
def _fill(w, p, t, f, take, items):
    """0/1 DP over the first FILL_ITEMS items from t on weighing at most FILL_ROOM: f[r] the most profit in room r.

    Returns how many items it used (their positions in `items`, `take[j, r]` where item j improved f[r]).
    """
    f[:] = 0
    k = 0
    for q in range(t, len(w)):
        if k == FILL_ITEMS:
            break
        wq = w[q]
        if wq > FILL_ROOM:
            continue
        items[k] = q
        row = take[k]
        row[:] = False
        for r in range(FILL_ROOM, wq - 1, -1):
            if f[r - wq] + p[q] > f[r]:
                f[r] = f[r - wq] + p[q]
                row[r] = True
        k += 1
    return k


@njit(cache=True)
def _fill_set(w, take, items, k, room, out):
    """The fill's items for `room` (backtracking the choice table) into `out`; how many."""
    r, count = room, 0
    for j in range(k - 1, -1, -1):
        if take[j, r]:
            out[count] = items[j]
            count += 1
            r -= w[items[j]]
    return count


@njit(cache=True)
def pair_pass(w, p, c, by_w, s, t, W, P, m, z, scratch, fill, found):
    """Pair the m states (W, P) with items outside the core [s + 1, t - 1] (module docstring).

    Args:
        scratch: (6, n) int64 work space (the tables of `_tables`).
        fill: `fill_tables()`.
        found: Receives the paired items of the best set (at most FILL_ITEMS).

    Returns:
        (best paired profit above `z` or `z`, the state's index (-1 when none beats z), how many items
        it takes from `found`, the pass's cost in state visits).
    """
    aw, ap, ai, rw, rp, ri = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5]
    na, nr = _tables(w, p, by_w, s, t, aw, ap, ai, rw, rp, ri)
    f, take, items, _ = fill
    k = _fill(w, p, t, f, take, items)
    best, at, item, room = z, -1, -1, -1  # room >= 0: the fill's set for that room
    for i in range(m):
        if W[i] <= c:
            r = min(c - W[i], FILL_ROOM)
            if k > 0 and P[i] + f[r] > best:
                best, at, item, room = P[i] + f[r], i, -1, r
            if na == 0:
                continue
            q = np.searchsorted(aw[:na], c - W[i], side="right") - 1  # the heaviest that fits, and all lighter
            if q >= 0 and P[i] + ap[q] > best:
                best, at, item, room = P[i] + ap[q], i, ai[q], -1
        else:
            if nr == 0:
                continue
            q = np.searchsorted(rw[:nr], W[i] - c, side="left")  # the lightest that makes it fit, and all heavier
            if q < nr and P[i] - rp[q] > best:
                best, at, item, room = P[i] - rp[q], i, ri[q], -1
    count = 0
    if at >= 0 and room >= 0:
        count = _fill_set(w, take, items, k, room, found)
    elif at >= 0:
        found[0], count = item, 1
    return best, at, count, len(w) + m + (k * FILL_ROOM) // FILL_CELLS
