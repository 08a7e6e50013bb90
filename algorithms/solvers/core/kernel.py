"""The compiled search of the expanding-core knapsack solver (`packbench.algorithms.solvers.core.minknap`).

Items arrive sorted by efficiency (profit / weight, best first). The search starts from
the break solution (the longest prefix that fits) and grows a core interval [s + 1, t - 1]
around the break item, one item per step, alternately adding the next item after the core
(t side) and removing the next one before it (s side). Every set the search holds is the
break solution changed on core items only, as a state (weight, profit, decision bits): one
list sorted by weight with profits strictly rising, so a state another one dominates (no
heavier, at least as profitable) is never kept. States heavier than the capacity stay:
removing items later can make them fit. A state is dropped once its Dantzig bound on the
items outside the core (add the best remaining items after t to fill the room, or remove
the worst taken items up to s to make it fit) cannot beat the best set found. An item
whose Dantzig bound with its value flipped cannot beat it either never enters the core.
Where the next item after the core heads a long run of equal efficiency, the run bound
(`runs.run_bound`) can cut deeper; every bound is rounded down to a multiple of the
profits' gcd, and where profits are a w + (multiples of g) for an integer a, to a c plus a
multiple of g (`bounds.affine_step`). Where some items weigh more than c / (j + 1), so that a
set holds at most j of them, the weight-class bound (`heavy`) also bounds states and flips, while
it cuts enough. The search ends, proving the incumbent optimal, when no state is left.

Each state keeps the decisions of the last 64 core steps as bits (bit 0 the newest); the
wrapper rebuilds the earlier ones by a smaller search (Pisinger 1997, section 4).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bounds import _AFFINE_TRIES, _bound, _fill_value, _flip_bound, _floor_bound, affine_step, surrogate_bound
from .clock import monotonic_now
from .heavy import CLASS_KEEP, CLASS_TRIAL, COUNT_BITS, class_bound, class_tables, step_tables
from .pairing import FILL_ITEMS, PAIR_EVERY, fill_tables, pair_order, pair_pass
from .runs import MIN_RUN, run_bound, run_tables

__all__ = ["MEMORY_LIMIT", "PROVEN", "STATE_BYTES", "TIME_LIMIT", "WORK_LIMIT", "affine_step", "greedy_rest", "search",
           "surrogate_bound"]

PROVEN, TIME_LIMIT, WORK_LIMIT, MEMORY_LIMIT = 0, 1, 2, 3
# Bytes per state slot: weight, profit and decision bits (8 each), in two lists (current and next).
STATE_BYTES = 48
_FIRST_SLOTS = 1024
# Float slack of the quick test: it only skips states whose bound is below z + 1 by more than this.
_QUICK_TOL = 1e-9


@njit(cache=True)
def _best_swap(w, p, b, c, wb, pb):
    """The best set that swaps one item of the break solution for one after it: (profit, out, in); -1s if none.

    On strongly correlated instances the break solution is short of the room by up to a whole
    item, and the greedy fill finds nothing to add; one swap of a light item for a heavier one
    nearly fills the room, so the search starts near the optimum and prunes from its first step.
    """
    n = len(w)
    if b == 0 or b >= n:
        return -1, -1, -1
    by_w = np.argsort(w[:b], kind="mergesort")
    sorted_w = w[:b][by_w]
    cheapest = np.empty(b, dtype=np.int64)  # cheapest[q]: least profitable of by_w[q:]
    low = by_w[b - 1]
    for q in range(b - 1, -1, -1):
        if p[by_w[q]] < p[low]:
            low = by_w[q]
        cheapest[q] = low
    best, out_k, in_k = -1, -1, -1
    for j in range(b, n):
        need = wb + w[j] - c  # weight that must leave for item j to fit
        if need <= 0:
            continue
        q = np.searchsorted(sorted_w, need)
        if q < b and pb - p[cheapest[q]] + p[j] > best:
            best, out_k, in_k = pb - p[cheapest[q]] + p[j], cheapest[q], j
    return best, out_k, in_k


@njit(cache=True)
def search(w, p, c, lower, clock_id, deadline, work_limit, max_states, classes):
    """Run the expanding-core search on items sorted by efficiency (see the module docstring).

    Args:
        w, p: int64 weights (each <= c) and profits (> 0), best efficiency first.
        c: Capacity.
        lower: Only sets with profit > lower count (-1: any set).
        clock_id, deadline: `monotonic_now` clock and the time on it to stop by.
        work_limit: Stop after this many state visits (0: no limit).
        max_states: Most state slots the two lists may hold.
        classes: The weight classes j of `heavy.weight_classes` (int64, empty: no class bound).

    Returns:
        (status, best profit, step of the best state (-1: the greedy set, -2: none above `lower`,
        -3: the break solution with one swap), its decision bits, the item of each core step,
        1 where that step added an item, the break item, state visits, the swap's (out, in) items,
        the items outside the core the best state is paired with (`pairing`; empty: none)).
    """
    n = len(w)
    cw = np.zeros(n + 1, dtype=np.int64)
    cp = np.zeros(n + 1, dtype=np.int64)
    for k in range(n):
        cw[k + 1] = cw[k] + w[k]
        cp[k + 1] = cp[k] + p[k]
    b = 0
    while b < n and cw[b + 1] <= c:
        b += 1
    z, best_step, best_bits = lower, -2, np.uint64(0)
    greedy_w, greedy_p = cw[b], cp[b]
    for k in range(b, n):
        if greedy_w + w[k] <= c:
            greedy_w += w[k]
            greedy_p += p[k]
    if greedy_p > z:
        z, best_step = greedy_p, -1
    gp = 1 if n == 0 else p[0]
    for k in range(1, n):
        gp = math.gcd(gp, p[k])
    a, ga = affine_step(w, p, gp, _AFFINE_TRIES)
    # The break state's bound is over every set: where the greedy set meets it, it is optimal and
    # neither the swap nor a flip bound per item (a pass over all n) can find more.
    root = _bound(cw, cp, w, p, n, c, b - 1, b, cw[b], cp[b], gp, a, ga)
    if root <= z:
        none = np.empty(0, dtype=np.int64)
        return PROVEN, z, best_step, np.uint64(0), none, np.empty(0, dtype=np.int8), b, 0, -1, -1, none
    swap_p, swap_out, swap_in = _best_swap(w, p, b, c, cw[b], cp[b])
    if swap_p > z:
        z, best_step = swap_p, -3
    eff = p / w
    runs = run_tables(w, p)
    nc = len(classes)
    lw, lq, pre_p, pre_w, suf_p, suf_w, flags = class_tables(w, p, c, classes)
    count_slots = min(_FIRST_SLOTS, max_states) if nc else 1  # no counts to keep without a class
    H, H2 = np.zeros(count_slots, np.int64), np.zeros(count_slots, np.int64)
    keep_add = move_add = 0
    on, tried, cut = nc > 0, 0, 0  # the class bound stays on while it cuts enough of the states it sees
    seq = np.empty(n, dtype=np.int64)
    adds = np.empty(n, dtype=np.int8)
    slots = min(_FIRST_SLOTS, max_states)
    W, P, V = np.empty(slots, np.int64), np.empty(slots, np.int64), np.empty(slots, np.uint64)
    W2, P2, V2 = np.empty(slots, np.int64), np.empty(slots, np.int64), np.empty(slots, np.uint64)
    W[0], P[0], V[0] = cw[b], cp[b], np.uint64(0)
    m, steps, work = 1, 0, 0
    by_w, scratch, fill = np.empty(0, np.int64), np.empty((6, 0), np.int64), fill_tables(0)  # sized at the first pass
    paired, n_paired, last_pair, pair_cost = np.empty(FILL_ITEMS, np.int64), 0, 0, n
    s, t = b - 1, b
    side = 1  # 1: add after the core next, 0: remove before it
    best_p, best_w = step_tables(pre_p, pre_w, suf_p, suf_w, classes, s, t)
    status = PROVEN
    while m > 0 and (s >= 0 or t < n):
        if side == 1 and t >= n:
            side = 0
        elif side == 0 and s < 0:
            side = 1
        if side == 1:
            k = t
            t += 1
            value = p[k] + _fill_value(cw, cp, w, p, 0, n, c - w[k], b)  # k forced in
            flip = _flip_bound(value, w[k] + min(c - w[k], cw[n]), c, gp, a, ga)
            dw, dp = w[k], p[k]
        else:
            k = s
            s -= 1
            value = _fill_value(cw, cp, w, p, 0, n, c + w[k], b) - p[k]  # k forced out
            flip = _flip_bound(value, min(c + w[k], cw[n]) - w[k], c, gp, a, ga)
            dw, dp = -w[k], -p[k]
        this_side = side
        side = 1 - side
        if on and flip > z:  # the class bound with k's value flipped: over all items but k
            fp, fw = step_tables(pre_p, pre_w, suf_p, suf_w, classes, k - 1, k + 1)
            for jj in range(nc):
                cap = classes[jj] - ((flags[k] >> (COUNT_BITS * jj)) & 255) * this_side
                rest = class_bound(lw, lq, w, p, n, c, k - 1, k + 1, fp, fw, jj, cap, w[k] * this_side)
                flip = min(flip, -1 if rest < 0 else _floor_bound(p[k] * this_side + rest))
            flip -= flip % gp
        if flip <= z:
            continue  # k keeps its break value in every better set: it never enters the core
        if 2 * m > max_states:
            status = MEMORY_LIMIT
            break
        if 2 * m > len(W2):  # grow both lists before the merge can outrun them
            slots = min(max(2 * len(W2), 2 * m), max_states)
            W2, P2, V2 = np.empty(slots, np.int64), np.empty(slots, np.int64), np.empty(slots, np.uint64)
            if len(W) < slots:
                W3, P3, V3 = np.empty(slots, np.int64), np.empty(slots, np.int64), np.empty(slots, np.uint64)
                W3[:m], P3[:m], V3[:m] = W[:m], P[:m], V[:m]
                W, P, V = W3, P3, V3
            if on:
                H2 = np.empty(slots, np.int64)
                if len(H) < slots:
                    H3 = np.empty(slots, np.int64)
                    H3[:m] = H[:m]
                    H = H3
        seq[steps], adds[steps] = k, this_side
        use_run = t < n and runs[1][t] - runs[0][t] >= MIN_RUN  # s and t are fixed during the merge
        rate_t = eff[t] if t < n else 0.0
        rate_s = eff[s] if s >= 0 else 0.0
        if on:  # heavy profits and weights of the items outside the core, once per step
            best_p, best_w = step_tables(pre_p, pre_w, suf_p, suf_w, classes, s, t)
            # k joins the core: it counts where the state takes it (kept on the s side, added on the t side).
            keep_add, move_add = (flags[k], 0) if this_side == 0 else (0, flags[k])
        i = j = out = 0
        while i < m or j < m:
            if j >= m or (i < m and (W[i] < W[j] + dw or (W[i] == W[j] + dw and P[i] >= P[j] + dp))):
                ww, pp, vv = W[i], P[i], V[i] << np.uint64(1)
                hh = H[i] + keep_add if on else 0
                i += 1
            else:
                ww, pp, vv = W[j] + dw, P[j] + dp, (V[j] << np.uint64(1)) | np.uint64(1)
                hh = H[j] + move_add if on else 0
                j += 1
            if out > 0 and pp <= P2[out - 1]:
                continue  # dominated by a lighter state
            if ww <= c and pp > z:
                z, best_step, best_bits, n_paired = pp, steps, vv, 0
            # A dominated state's bound is no higher than its dominator's: a pruned dominator
            # never lets a state it dominates through.
            # The next item's (or the last taken one's) rate over the whole gap bounds Dantzig's from
            # above: where even that cannot beat z, the binary search of the fill is not needed.
            if ww <= c:
                quick = pp + (c - ww) * rate_t if t < n else pp
            else:
                quick = pp - (ww - c) * rate_s if s >= 0 else -1.0
            if quick < z + 1.0 - _QUICK_TOL * max(1.0, abs(quick)):
                continue
            bound = _bound(cw, cp, w, p, n, c, s, t, ww, pp, gp, a, ga)
            if bound > z and use_run:  # the run bound, where item t heads a long run (`runs`)
                bound = min(bound, run_bound(eff, runs, n, c, s, t, ww, pp, z))
                bound -= bound % gp
            if bound > z and on:  # the weight-class bound (`heavy`): min over the classes
                core_w, core_p = ww - cw[s + 1], pp - cp[s + 1]
                tried += 1
                for jj in range(nc):
                    cap = classes[jj] - ((hh >> (COUNT_BITS * jj)) & 255)
                    rest = class_bound(lw, lq, w, p, n, c, s, t, best_p, best_w, jj, cap, core_w)
                    bound = min(bound, -1 if rest < 0 else _floor_bound(core_p + rest))
                    if bound <= z:
                        break
                bound -= bound % gp
                cut += bound <= z
            if bound <= z:
                continue
            W2[out], P2[out], V2[out] = ww, pp, vv
            if on:
                H2[out] = hh
            out += 1
        work += 2 * m
        steps += 1
        W, P, V, W2, P2, V2 = W2, P2, V2, W, P, V
        H, H2 = H2, H
        if on and tried >= CLASS_TRIAL and cut * CLASS_KEEP < tried:
            on = False  # it cuts too few of the states Dantzig's lets through to pay for itself (`heavy`)
        m = out
        if m > 0 and work - last_pair >= PAIR_EVERY * pair_cost:  # items outside the core complete a state
            last_pair = work
            if len(by_w) < n:
                by_w, scratch, fill = pair_order(w), np.empty((6, n), np.int64), fill_tables(FILL_ITEMS)
            pz, at, count, pair_cost = pair_pass(w, p, c, by_w, s, t, W, P, m, z, scratch, fill, fill[3])
            if at >= 0:
                z, best_step, best_bits, n_paired = pz, steps - 1, V[at], count
                paired[:count] = fill[3][:count]
        if work_limit > 0 and work >= work_limit and m > 0:
            status = WORK_LIMIT
            break
        if monotonic_now(clock_id) > deadline and m > 0:
            status = TIME_LIMIT
            break
    return (status, z, best_step, best_bits, seq[:steps].copy(), adds[:steps].copy(), b, work,
            swap_out, swap_in, paired[:n_paired].copy())


@njit(cache=True)
def greedy_rest(w, brk, room, part):
    """Mark in `part` every item after the break item `brk` that still fits, in order (the kernel's greedy set)."""
    used = 0
    for q in range(brk):
        used += w[q]
    for q in range(brk, len(w)):
        if used + w[q] <= room:
            part[q] = True
            used += w[q]
