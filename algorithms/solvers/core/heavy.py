"""The weight-class cardinality bound of the expanding-core search (`kernel.search`).

An item heavier than T_j = floor(c / (j + 1)) weighs more than c / (j + 1), so no set that fits
holds more than j of them. Dantzig's bound ignores this: on Jooken et al.'s instances (groups
of items just above c / 2, c / 4, ...) it fills the room with fractions of heavy items that no
set can take, and the search keeps almost every state. Here, for the classes j the instance
has (`weight_classes`), a state with core items C (its core decisions, weight w(C), of which
h_j are heavy) has completions C + Y, Y a subset of the items outside the core (O: items 0..s
and t..n-1), and Y holds q <= j - h_j heavy items. Whatever they are, their profit is at most
the q largest heavy profits in O, their weight at least the q smallest heavy weights in O, and
the light items of Y fill at most the rest of the room, so their profit is at most the LP
(Dantzig) value of O's light items in it. The bound is the best over q of the sum; the
search takes the smallest over the classes and Dantzig's. `tests/test_core_heavy.py` checks it
against every completion of random states by brute force.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["CLASS_KEEP", "CLASS_TRIAL", "COUNT_BITS", "HEAVY_ITEM_BYTES", "HEAVY_STATE_BYTES", "MAX_CLASS",
           "class_bound", "class_tables", "step_tables", "weight_classes"]

# Largest j tried: groups near c/2, c/3, c/4 and c/5 (Jooken's first groups); past that the
# classes are rarely tight and every state would pay more binary searches.
MAX_CLASS = 4
# Bytes per item and class: light weight and profit prefix sums, four (n + 1) x MAX_CLASS tables, and
# the items' packed flags (one int64 per item, counted with every class to keep the sum simple).
HEAVY_ITEM_BYTES = 8 * 3 + 8 * 4 * MAX_CLASS
# Bytes per state slot when a class is active: its packed heavy counts, in both lists.
HEAVY_STATE_BYTES = 16
# The search stops asking for the bound once it has seen CLASS_TRIAL states (that Dantzig's bound let
# through) and cut fewer than one in CLASS_KEEP: on Jooken's g = 6 the smaller groups fill any room
# the classes leave, the bound cut next to nothing and made a state visit about 4x dearer.
CLASS_TRIAL = 1_000
CLASS_KEEP = 20
# A state's heavy counts are packed 8 bits per class in one int64 (counts never pass MAX_CLASS + 1).
COUNT_BITS = 8


def weight_classes(w, c: int) -> np.ndarray:
    """The classes j in 1..MAX_CLASS whose bound can bite: more than j items weigh over c // (j + 1).

    A class whose heavy items are the same as the previous j's is left out: its limit is looser.

    Args:
        w: Item weights.
        c: Capacity (>= 0).

    Returns:
        The classes, increasing, as an int64 array (empty on most instances: then the search skips the bound).
    """
    w = np.asarray(w, dtype=np.int64)
    out, prev = [], -1
    for j in range(1, MAX_CLASS + 1):
        count = int(np.count_nonzero(w > c // (j + 1)))
        if count > j and count != prev:
            out.append(j)
        prev = count
    return np.array(out, dtype=np.int64)


@njit(cache=True)
def _insert(top, k, value, descending):
    """Insert `value` into the first `k` slots of `top`, kept sorted (largest or smallest first); the new count.

    Only the len(top) best values stay: when the slots are full, a value no better than the last is dropped.
    """
    size = len(top)
    q = k
    if k == size:
        if (descending and value <= top[size - 1]) or (not descending and value >= top[size - 1]):
            return k
        q = size - 1  # the worst value leaves
    while q > 0 and ((descending and top[q - 1] < value) or (not descending and top[q - 1] > value)):
        top[q] = top[q - 1]
        q -= 1
    top[q] = value
    return min(k + 1, size)


@njit(cache=True)
def class_tables(w, p, c, classes):
    """Per class: light prefix sums, tables of the best heavy profits and least heavy weights; item flags.

    Returns:
        (lw, lp): (J, n + 1) prefix sums of the light items' weights and profits (heavy ones count 0);
        (pre_p, pre_w): (J, n + 1, MAX_CLASS), [jj, i, q] the sum of the q + 1 largest heavy profits
        (smallest heavy weights) among items 0..i-1, -1 where fewer are heavy; (suf_p, suf_w) the same
        over items i..n-1; flags: per item, 1 << (COUNT_BITS jj) summed over the classes it is heavy in.
    """
    n, nc = len(w), len(classes)
    lw = np.zeros((nc, n + 1), np.int64)
    lp = np.zeros((nc, n + 1), np.int64)
    pre_p = np.full((nc, n + 1, MAX_CLASS), -1, np.int64)
    pre_w = np.full((nc, n + 1, MAX_CLASS), -1, np.int64)
    suf_p = np.full((nc, n + 1, MAX_CLASS), -1, np.int64)
    suf_w = np.full((nc, n + 1, MAX_CLASS), -1, np.int64)
    flags = np.zeros(n if nc else 0, np.int64)  # no class: nothing to flag, nothing allocated
    top = np.empty(MAX_CLASS, np.int64)
    low = np.empty(MAX_CLASS, np.int64)
    for jj in range(nc):
        limit = c // (classes[jj] + 1)
        for direction in range(2):
            kp = kw = 0
            for step in range(n + 1):
                i = step if direction == 0 else n - step  # table index: items before i, or from i on
                sp = sw = 0
                for q in range(min(kp, MAX_CLASS)):
                    sp += top[q]
                    sw += low[q]
                    if direction == 0:
                        pre_p[jj, i, q], pre_w[jj, i, q] = sp, sw
                    else:
                        suf_p[jj, i, q], suf_w[jj, i, q] = sp, sw
                if step == n:
                    break
                k = i if direction == 0 else i - 1
                if w[k] > limit:
                    kp = _insert(top, kp, p[k], True)
                    kw = _insert(low, kw, w[k], False)
        for k in range(n):
            heavy = w[k] > limit
            if heavy:
                flags[k] += np.int64(1) << (COUNT_BITS * jj)
            lw[jj, k + 1] = lw[jj, k] + (0 if heavy else w[k])
            lp[jj, k + 1] = lp[jj, k] + (0 if heavy else p[k])
    return lw, lp, pre_p, pre_w, suf_p, suf_w, flags


@njit(cache=True)
def step_tables(pre_p, pre_w, suf_p, suf_w, classes, s, t):
    """For O = items 0..s and t..n-1: (J, MAX_CLASS + 1) tables, [jj, q] the sum of the q largest heavy
    profits (smallest heavy weights) in O, -1 where O holds fewer than q heavy items."""
    nc = len(classes)
    best_p = np.full((nc, MAX_CLASS + 1), -1, np.int64)
    best_w = np.full((nc, MAX_CLASS + 1), -1, np.int64)
    for jj in range(nc):
        best_p[jj, 0] = best_w[jj, 0] = 0
        for q in range(1, classes[jj] + 1):
            for a in range(q + 1):  # a from the prefix, q - a from the suffix
                b = q - a
                ap = 0 if a == 0 else pre_p[jj, s + 1, a - 1]
                aw = 0 if a == 0 else pre_w[jj, s + 1, a - 1]
                bp = 0 if b == 0 else suf_p[jj, t, b - 1]
                bw = 0 if b == 0 else suf_w[jj, t, b - 1]
                if ap < 0 or bp < 0:
                    continue
                if ap + bp > best_p[jj, q]:
                    best_p[jj, q] = ap + bp
                if best_w[jj, q] < 0 or aw + bw < best_w[jj, q]:
                    best_w[jj, q] = aw + bw
    return best_p, best_w


@njit(cache=True)
def _light_lp(lw, lp, w, p, n, s, t, room):
    """LP value of the light items of O (0..s, then t..n-1, best efficiency first) within `room` >= 0."""
    head = lw[s + 1]
    if room < head:  # a fraction among items 0..s
        lo, hi = 0, s + 1
        while lo < hi:  # the last i with lw[i] <= room; item i is light (lw[i + 1] > room)
            mid = (lo + hi + 1) >> 1
            if lw[mid] <= room:
                lo = mid
            else:
                hi = mid - 1
        return lp[lo] + p[lo] * ((room - lw[lo]) / w[lo])
    target = lw[t] + room - head
    lo, hi = t, n
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if lw[mid] <= target:
            lo = mid
        else:
            hi = mid - 1
    value = float(lp[s + 1] + lp[lo] - lp[t])
    if lo < n:
        value += p[lo] * ((target - lw[lo]) / w[lo])
    return value


@njit(cache=True)
def class_bound(lw, lp, w, p, n, c, s, t, best_p, best_w, jj, cap, core_w):
    """LP bound on p(Y) over the completions Y (subsets of O) of core items weighing `core_w` that may
    add at most `cap` heavy items of class jj; -1.0 when none fits (or `cap` < 0)."""
    best = -1.0
    for q in range(min(cap, MAX_CLASS) + 1):
        if best_p[jj, q] < 0:
            break
        room = c - core_w - best_w[jj, q]
        if room < 0:
            break  # the q lightest heavy items already overfill; more only weigh more
        value = best_p[jj, q] + _light_lp(lw[jj], lp[jj], w, p, n, s, t, room)
        if value > best:
            best = value
    return best
