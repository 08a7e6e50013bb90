"""The bounds of the expanding-core search (`kernel.search`) on the items outside the core.

Dantzig's bound of a state (fill the room with the best items after the core, or remove the worst
taken items before it to make the state fit), rounded down to a multiple of the profits' gcd and
cut by the shifted gcd of `affine_step`; the flip bound of an item about to enter the core; and
the surrogate bound of the cardinality constraint (Martello, Pisinger & Toth 1999). Every bound
here is checked against every completion of every state on small instances
(`tests/test_minknap.py`, `tests/test_core_affine.py`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["affine_step", "first_above", "surrogate_bound"]

# The bounds taking arrays are inlined into their callers (`inline="always"`): called as functions of
# their own, passing four arrays cost about 40 ns a call (circle, n = 1,000-10,000: 0.79-0.83x of the
# search route's CPU with them inlined, paired).

# Float slack on the bounds: a state is never dropped because its bound came out a little low.
_REL_TOL = 1e-9
# Values of the shift a that `affine_step` tries (each a gcd pass that usually stops within a few items).
_AFFINE_TRIES = 64


@njit(cache=True)
def _floor_bound(value):
    return math.floor(value + _REL_TOL * max(1.0, abs(value)))


@njit(cache=True, inline="always")
def first_above(cw, target, lo, hi, guess):
    """The first j in [lo, hi) with cw[j] > target (hi when none), cw nondecreasing: a search outward from `guess`.

    Binary search's answer, found in O(log distance) steps: the bounds ask for capacities a
    little off the break capacity (the room plus or minus one item's weight), whose answers lie a
    few items from the break item, and a full binary search over 10^4 items cost about half of a
    search that proves at its first step.
    """
    g = min(max(guess, lo), hi)
    if g < hi and cw[g] <= target:  # the answer is past g: double the step up from it
        a, step, right = g, 1, hi
        while a + step < hi:
            if cw[a + step] > target:
                right = a + step
                break
            a += step
            step <<= 1
        left = a + 1
    else:  # the answer is at most g: double the step down from it
        right, step, left = g, 1, lo
        while right - step >= lo:
            if cw[right - step] <= target:
                left = right - step + 1
                break
            right -= step
            step <<= 1
    while left < right:  # the answer lies in [left, right]
        mid = (left + right) >> 1
        if cw[mid] > target:
            right = mid
        else:
            left = mid + 1
    return left


@njit(cache=True, inline="always")
def _fill_value(cw, cp, w, p, t, n, room, guess=0):
    """Dantzig bound of items t..n-1 within `room` >= 0: whole items in order, then a fraction.

    `guess`: a position near the last prefix end that fits (the break item), where the search starts.
    """
    target = cw[t] + room
    lo = first_above(cw, target, t, n + 1, guess) - 1  # the last j with cw[j] <= target (cw[t] is)
    value = float(cp[lo] - cp[t])
    if lo < n:
        value += p[lo] * ((target - cw[lo]) / w[lo])  # the fraction (< 1) first: no overflow
    return value


@njit(cache=True, inline="always")
def _drop_loss(cw, cp, w, p, s, excess):
    """Least Dantzig loss of removing `excess` > 0 weight from items 0..s (worst first); -1.0 when they weigh less."""
    target = cw[s + 1] - excess
    if target < 0:
        return -1.0
    lo, hi = 0, s + 1
    while lo < hi:  # the last i with cw[i] <= target: items i..s removed whole cover the excess
        mid = (lo + hi + 1) >> 1
        if cw[mid] <= target:
            lo = mid
        else:
            hi = mid - 1
    whole_w = cw[s + 1] - cw[lo + 1]
    return float(cp[s + 1] - cp[lo + 1]) + p[lo] * ((excess - whole_w) / w[lo])


@njit(cache=True)
def _shifted(value, lp_weight, c, a, ga):
    """The bound a c + (`value` - a `lp_weight`) rounded down to a multiple of `ga` (`affine_step`)."""
    rest = value - a * lp_weight
    return a * c + ga * math.floor((rest + _REL_TOL * max(1.0, abs(value))) / ga)


@njit(cache=True)
def _flip_bound(value, lp_weight, c, gp, a, ga):
    """An item's flip bound (`value`, the LP with its decision forced), rounded as `_bound` rounds."""
    bound = _floor_bound(value)
    if ga > gp:
        bound = min(bound, _shifted(value, lp_weight, c, a, ga))
    return bound - bound % gp


@njit(cache=True, inline="always")
def _bound(cw, cp, w, p, n, c, s, t, weight, profit, gp, a, ga):
    """Floored Dantzig bound of a state given the items outside the core; -1 when it can never fit.

    Every set's profit is a multiple of `gp` (the gcd of all profits): the bound is rounded down to one.
    With (a, ga) from `affine_step` it is also cut to a c + (LP - a W) rounded down to a multiple of ga.
    """
    if weight <= c:
        room = c - weight
        value = profit + _fill_value(cw, cp, w, p, t, n, room)
        lp_weight = weight + min(room, cw[n] - cw[t])
    else:
        loss = _drop_loss(cw, cp, w, p, s, weight - c)
        if loss < 0:
            return -1
        value = profit - loss
        lp_weight = c
    bound = _floor_bound(value)
    if ga > gp:
        bound = min(bound, _shifted(value, lp_weight, c, a, ga))
    if gp > 1:
        bound -= bound % gp
    return bound


@njit(cache=True)
def affine_step(w, p, gp, most):
    """(a, ga): the integer a in [0, min efficiency] whose shifted profits p - a w have the largest gcd ga.

    Every set X that fits has profit a w(X) + q(X) <= a c + q(X), with q = p - a w >= 0 on every
    item and q(X) a multiple of ga; the LP of q over a state's completions follows the same
    efficiency order as the LP of p and is worth LP_p - a (the LP's weight). So a c plus that,
    rounded down to a multiple of ga, bounds the state. On multiple strongly correlated classes
    (p = w + 300 or w + 200) a = 1 gives ga = 100 and the root bound is the optimum, where Dantzig's
    is one item's offset above it. Tries at most `most` values of a, from the top; (0, gp) if none helps.
    """
    n = len(w)
    best_a, best_g = 0, gp
    if n == 0:
        return best_a, best_g
    top = p[0] // w[0]
    for k in range(1, n):
        top = min(top, p[k] // w[k])
    for a in range(top, max(0, top - most) , -1):
        g = 0
        for k in range(n):
            g = math.gcd(g, p[k] - a * w[k])
            if g <= best_g:
                break
        if g > best_g:
            best_a, best_g = a, g
    return best_a, best_g


@njit(cache=True)
def _surrogate_lp(w, p, c, k, lam):
    """(LP value, LP cardinality) of max p.x s.t. (w + lam).x <= c + lam * k, 0 <= x <= 1."""
    ww = w + lam
    order = np.argsort(-(p / ww), kind="mergesort")
    room = c + lam * k
    value, count = 0.0, 0.0
    for q in range(len(order)):
        j = order[q]
        if ww[j] <= room:
            room -= ww[j]
            value += p[j]
            count += 1.0
        else:
            value += p[j] * (room / ww[j])
            count += room / ww[j]
            break
    return value, count


@njit(cache=True)
def surrogate_bound(w, p, c, k, z, rounds):
    """Floored upper bound from the surrogate relaxation of the cardinality constraint sum(x) <= k.

    No set holds more than k items (the k + 1 lightest do not fit), so for every multiplier
    lam >= 0 the LP of (w + lam).x <= c + lam k bounds the optimum (Martello, Pisinger & Toth
    1999). Bisection on lam drives the LP's cardinality to k; it stops early once the bound
    reaches `z`. On strongly correlated classes this bound is the optimum when the room can be
    filled exactly, where the Dantzig bound is up to one profit offset above it.
    """
    wf, pf = w.astype(np.float64), p.astype(np.float64)
    best = _floor_bound(_surrogate_lp(wf, pf, float(c), float(k), 0.0)[0])
    lo, hi = 0.0, float(pf.max())
    for _ in range(rounds):
        if best <= z:
            break
        lam = 0.5 * (lo + hi)
        value, count = _surrogate_lp(wf, pf, float(c), float(k), lam)
        best = min(best, _floor_bound(value))
        if count > k:
            lo = lam
        else:
            hi = lam
    return best
