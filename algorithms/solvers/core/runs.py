"""A bound for expanding-core states that sees integrality through runs of equal efficiency.

The Dantzig bound of a state (weight, profit) with core [s + 1, t - 1] is
profit + e_t (c - weight) when the best item after the core has efficiency e_t and
enough of them fit: it treats the room as fillable to the unit. Where many items
share e_t exactly (a "run", e.g. the multiples of one spanner item), every state that
only changes run items keeps that bound, and the core walks the whole run without a
prune. Split every completion of the state (items A after t added, items R up to s
removed, net weight change D = w(A) - w(R) <= c - weight) by whether it touches an
item outside the run:

- Only run items (efficiency exactly E = e_t): the profit changes by exactly E * D, and
  D is a multiple of g, the gcd of the run items' weights outside the core, so
  D <= g * floor((c - weight) / g).
- Some item h outside the run: with d_i = p_i - E w_i (<= 0 for the items after t, >= 0
  for those up to s, by the efficiency order) the profit changes by
  E * D + sum_A d - sum_R d <= E (c - weight) - |d_h|, and |d_h| is at least the
  efficiency gap to the nearest item outside the run times the lightest item on that side.

The bound is the larger of the two cases (each an upper bound on its completions); the
caller takes the smaller of it and the Dantzig bound. `tests/test_minknap.py` checks it
against every completion of every state on small instances.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["MIN_RUN", "run_tables", "run_bound"]

_REL_TOL = 1e-9
_NO_BOUND = 2**62
# Multiples of each neighbour run's gcd tried before the rest is bounded linearly.
_MAX_STEPS = 8
# The search asks for the run bound only where item t's run has this many items: on shorter runs it
# pruned next to nothing beyond Dantzig's on the hard families and made a state visit 1.6x dearer.
MIN_RUN = 16


@njit(cache=True)
def run_tables(w, p):
    """(run start, run end, gcd from the run start, gcd to the run end, lightest prefix, lightest suffix).

    Positions i, j are in one run when p_i w_j == p_j w_i exactly (integers). Where those
    products could overflow int64, every run is one item (the bound stays valid, only weaker).
    """
    n = len(w)
    start = np.empty(n, dtype=np.int64)
    end = np.empty(n, dtype=np.int64)
    g_left = np.empty(n, dtype=np.int64)
    g_right = np.empty(n, dtype=np.int64)
    wmin_pre = np.empty(n, dtype=np.int64)
    wmin_suf = np.empty(n, dtype=np.int64)
    exact = n > 0 and float(p.max()) * float(w.max()) < 4.0e18
    for i in range(n):
        same = exact and i > 0 and p[i] * w[i - 1] == p[i - 1] * w[i]
        start[i] = start[i - 1] if same else i
        g_left[i] = math.gcd(g_left[i - 1], w[i]) if same else w[i]
        wmin_pre[i] = min(wmin_pre[i - 1], w[i]) if i > 0 else w[i]
    for i in range(n - 1, -1, -1):
        same = i + 1 < n and start[i + 1] == start[i]
        end[i] = end[i + 1] if same else i + 1
        g_right[i] = math.gcd(g_right[i + 1], w[i]) if same else w[i]
        wmin_suf[i] = min(wmin_suf[i + 1], w[i]) if i + 1 < n else w[i]
    return start, end, g_left, g_right, wmin_pre, wmin_suf


@njit(cache=True)
def _linear_gap(eff, e_run, wmin, k):
    """Least |d| over items 0..k (eff above e_run) or k..n-1 (below): efficiency gap times the lightest; inf if none."""
    return math.inf if k < 0 or k >= len(eff) else abs(eff[k] - e_run) * wmin[k]


@njit(cache=True)
def run_bound(eff, tables, n, c, s, t, weight, profit, z):
    """Floored bound of a state by the runs around item t (module docstring).

    Returns 2**62 (no bound) when no item follows the core, and as soon as the enumeration meets a case
    whose bound is above `z` (it only says "keep": the caller's Dantzig bound stands).
    """
    if t >= n:
        return _NO_BOUND
    start, end, g_left, g_right, wmin_pre, wmin_suf = tables
    e_run, a, e = eff[t], start[t], end[t]
    g = g_right[t]
    left = s  # the last item of the left neighbour run, in S
    if s >= a:  # the run reaches past the core's left end: its items up to s count too
        g = math.gcd(g, g_left[s])
        left = a - 1
    room = c - weight
    # Far items: past the neighbour runs on either side.
    far_l = start[left] - 1 if left >= 0 else -1
    far_r = end[e] if e < n else n
    gap = min(_linear_gap(eff, e_run, wmin_pre, far_l), _linear_gap(eff, e_run, wmin_suf, far_r))
    best = profit + e_run * room - gap
    # Neighbour runs: remove u_l weight of the left one (a multiple of g_l), add u_r of the right one.
    e_l = eff[left] if left >= 0 else 0.0
    g_l = g_left[left] if left >= 0 else 0
    e_r = eff[e] if e < n else 0.0
    g_r = g_right[e] if e < n else 0
    cut_l = (e_l - e_run) if left >= 0 else -1.0  # linear loss per unit of u_l
    cut_r = (e_run - e_r) if e < n else -1.0
    i = 0
    while True:
        u_l = i * g_l
        if i > 0 and (left < 0 or i > _MAX_STEPS or profit + e_run * room - cut_l * u_l <= max(best, z)):
            if i > 0 and left >= 0 and i > _MAX_STEPS:
                best = max(best, profit + e_run * room - cut_l * u_l)  # all larger u_l, linearly
            break
        j = 0
        while True:
            u_r = j * g_r
            if j > 0 and (e >= n or j > _MAX_STEPS or profit + e_run * room - cut_l * u_l - cut_r * u_r <= max(best, z)):
                if j > 0 and e < n and j > _MAX_STEPS:
                    best = max(best, profit + e_run * room - cut_l * u_l - cut_r * u_r)
                break
            net = room + u_l - u_r
            value = profit + e_run * float(g * (net // g)) + e_r * u_r - e_l * u_l
            if value > best:
                best = value
                if best > z + 1.0:
                    return _NO_BOUND  # some completions may beat z: keep the state (the caller's bound stands)
            j += 1
        i += 1
    return math.floor(best + _REL_TOL * max(1.0, abs(best)))
