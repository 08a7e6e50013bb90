"""The lexicographically first optimum from a known optimal set, by swaps, bounds and a few small searches.

`lex.lex_first`'s rule, item by item in position order: take item k whenever some set that keeps
the decisions taken so far, takes k and reaches the target exists. Its Pareto lists answer that
for every k at once and must hold every list; here a witness answers it: the optimal set the
search proved (`minknap`). While the witness takes k, k is taken. Where it does not:

- a later witness item j of the same (weight, profit) swapped for k keeps it a witness (the usual
  case on instances with many equal items, such as the spanner classes); so does any later j no
  lighter than k minus the witness's spare room and no more profitable than k plus its spare profit;
- else Dantzig's bound of the items after k (a Fenwick tree over their efficiency order, as in
  `lex`), with the decisions so far and k taken, below the target says no such set exists;
- else the greedy set of the items after k (efficiency order, every one that still fits), or the
  break solution of those items with its best single swap, reaching the target with the decisions so
  far and k is a new witness: no search (most questions on profit_ceiling and multiple_strongly_correlated,
  where a search cost 40-150 us of setup alone; tried while they succeed often enough, `QUICK_SLACK`);
- else the expanding-core search on the items after k finds one (the new witness) or proves none.

The searches share a deterministic budget of state visits; past it the caller falls back to the
lists. The answer is the same set as the lists' (the same rule on the same questions). The
driver, which calls the search, is `minknap.lex_by_witness`; this module holds its compiled steps.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bounds import _AFFINE_TRIES, _bound, _shifted, affine_step
from .fenwick import add
from .kernel import _best_swap
from .lex import _fill

__all__ = ["QUERY_SHARE", "WITNESS_SHARE", "advance", "item_kinds"]

_REL_TOL = 1e-9
# Positions after an item the witness leaves out where a swap partner is looked for (besides its own kind).
_SWAP_SCAN = 64
# The witness pass may spend max_states / this many state visits before the lists run.
WITNESS_SHARE = 4
# One search may spend at most 1/QUERY_SHARE of the budget: one that needs more is about as hard as the proof.
QUERY_SHARE = 2
# The quick sets (`_greedy_witness`) are tried while they failed at most this many times more than twice
# as often as they succeeded.
QUICK_SLACK = 4


def item_kinds(w: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, int]:
    """(each item's kind: an index per distinct (weight, profit) pair, int64; how many kinds), as `advance` reads them.

    Args:
        w, p: int64 weights and profits.

    Returns:
        The kinds and their count (0 without items).
    """
    if not len(w):
        return np.zeros(0, dtype=np.int64), 0
    if float(w.max()) * float(p.max() + 1) < 9.0e18:  # one int64 key per (weight, profit)
        key = w * (int(p.max()) + 1) + p
        return _key_ranks(key, np.argsort(key, kind="stable"))  # numpy's radix sort: a third of numba's sort
    else:
        _, kind = np.unique(np.stack([w, p], axis=1), axis=0, return_inverse=True)
    kind = np.ascontiguousarray(kind.reshape(-1), dtype=np.int64)
    return kind, int(kind.max()) + 1


@njit(cache=True)
def _key_ranks(key, by):
    """(each key's rank among the distinct keys, how many), `by` sorting them: `np.unique`'s inverse in one pass."""
    n = len(key)
    kind = np.empty(n, dtype=np.int64)
    rank = -1
    for q in range(n):
        if q == 0 or key[by[q]] != key[by[q - 1]]:
            rank += 1
        kind[by[q]] = rank
    return kind, rank + 1


@njit(cache=True)
def _stacks(kind, chosen, n_kinds, start):
    """Per (weight, profit) kind, the witness's items at positions >= start, ascending (CSR)."""
    n = len(kind)
    head = np.zeros(n_kinds + 1, dtype=np.int64)
    for j in range(start, n):
        if chosen[j]:
            head[kind[j] + 1] += 1
    for q in range(n_kinds):
        head[q + 1] += head[q]
    fill = head[:-1].copy()
    items = np.empty(max(1, head[n_kinds]), dtype=np.int64)
    for j in range(start, n):
        if chosen[j]:
            items[fill[kind[j]]] = j
            fill[kind[j]] += 1
    return head, items, fill  # fill[q]: one past the top of kind q's stack


@njit(cache=True, inline="always")
def _fitting_after(w, order, k, left):
    """The items after k that weigh at most `left`, in `order`: those a search of the question would get."""
    rest = np.empty(len(order), dtype=np.int64)
    m = 0
    for j in order:
        if j > k and w[j] <= left:
            rest[m] = j
            m += 1
    return rest[:m]


@njit(cache=True)
def _greedy_witness(w, p, order, room, target, chosen, k, acc):
    """True (and `chosen`, `acc` the new witness's) when the decisions so far, k and a quick rest reach `target`.

    The rest comes from the items after k that fit, in `order` (efficiency, best first): the greedy set
    (every one taken while it fits), else the break solution with its best single swap, the two sets the
    expanding-core search starts from (`kernel._best_swap`).
    """
    left, base = room - acc[0] - w[k], acc[1] + p[k]
    rest = _fitting_after(w, order, k, left)
    m = len(rest)
    ws, ps = w[rest], p[rest]
    b = wb = pb = 0
    while b < m and wb + ws[b] <= left:
        wb += ws[b]
        pb += ps[b]
        b += 1
    take = np.zeros(m, dtype=np.bool_)
    take[:b] = True
    gw, gp = wb, pb
    for q in range(b, m):
        if gw + ws[q] <= left:
            gw += ws[q]
            gp += ps[q]
            take[q] = True
    if base + gp < target:
        swap_p, out, into = _best_swap(ws, ps, b, left, wb, pb)
        if out < 0 or base + swap_p < target:
            return False
        take[b:] = False
        take[out], take[into] = False, True
        gw, gp = wb - ws[out] + ws[into], swap_p
    chosen[k + 1:] = False
    chosen[k] = True
    chosen[rest[take]] = True
    acc[0] += w[k]
    acc[1] += p[k]
    acc[2], acc[3] = acc[0] + gw, acc[1] + gp
    return True


@njit(cache=True)
def advance(w, p, kind, n_kinds, room, target, chosen, k, tree, acc, slope, ga, order):
    """Decide items k, k+1, ... while swaps, bounds and quick sets suffice; return the first that needs a search (or n).

    `acc` holds (weight taken so far, profit taken so far, the witness's weight, its profit, how often the
    quick sets succeeded, how often they failed); (slope, ga) are `bounds.affine_step`'s; `order`: the
    positions by efficiency, best first.
    """
    n = len(w)
    rank, eff, tw, tp, top = tree
    head, items, fill = _stacks(kind, chosen, n_kinds, k)
    while k < n:
        add(tw, tp, rank[k], -w[k], -p[k])  # item k leaves the items after the decided ones
        if chosen[k]:
            acc[0] += w[k]
            acc[1] += p[k]
            k += 1
            continue
        if acc[0] + w[k] > room:
            k += 1
            continue
        spare_w, spare_p = room - acc[2], acc[3] - target
        partner = -1
        if w[k] <= spare_w:
            partner = n  # the witness plus k still fits
        q = kind[k]
        while partner < 0 and fill[q] > head[q] and items[fill[q] - 1] > k:
            fill[q] -= 1  # the stack's top: the witness's last item of k's kind (unless swapped out since)
            if chosen[items[fill[q]]]:
                partner = items[fill[q]]
        if partner < 0:
            for j in range(k + 1, min(n, k + 1 + _SWAP_SCAN)):  # a bounded look: O(n) per item would be O(n^2)
                if chosen[j] and w[j] >= w[k] - spare_w and p[j] <= p[k] + spare_p:
                    partner = j
                    break
        if partner >= 0:
            if partner < n:
                chosen[partner] = False
                acc[2] -= w[partner]
                acc[3] -= p[partner]
            chosen[k] = True
            acc[2] += w[k]
            acc[3] += p[k]
            acc[0] += w[k]
            acc[1] += p[k]
            k += 1
            continue
        value, used = _fill(tw, tp, eff, n, top, room - acc[0] - w[k])
        bound = acc[1] + p[k] + value
        if math.floor(bound + _REL_TOL * max(1.0, abs(bound))) < target or (
                ga > 1 and _shifted(bound, acc[0] + w[k] + used, room, slope, ga) < target):
            k += 1
            continue
        # The quick sets cost a sort of the items after k; where they keep failing (spanner_weakly_correlated,
        # n = 1,000-2,000: every one of 75-105 questions) they stop: at most QUICK_SLACK more failures than
        # twice the successes. A count, so the same questions get a search on every run (and the same set).
        if acc[5] < QUICK_SLACK + 2 * acc[4]:
            if _greedy_witness(w, p, order, room, target, chosen, k, acc):
                acc[4] += 1
                head, items, fill = _stacks(kind, chosen, n_kinds, k + 1)  # the witness changed: its stacks too
                k += 1
                continue
            acc[5] += 1
        if _root_refutes(w, p, order, k, room - acc[0] - w[k], target - acc[1] - p[k]):
            k += 1  # the search would prove at its root that nothing reaches the target: no search
            continue
        return k
    return n


@njit(cache=True)
def _root_refutes(w, p, order, k, left, need):
    """True when the search's own root bound proves that no set of the items after k fitting in `left` reaches `need`.

    It is `kernel.search`'s first test on exactly the items that search would get (those after k that
    fit, in `order`): Dantzig's bound rounded down by their profits' gcd and `affine_step`. Stronger than
    the Fenwick bound in `advance`, which also counts items too heavy for the room and the gcd of all
    items. On Jooken's class (n = 200) about 110 of 113 questions ended there, each a search call of
    20-40 us, most of it setup in Python.
    """
    if need <= 0:
        return False
    rest = _fitting_after(w, order, k, left)
    m = len(rest)
    if m == 0:
        return True
    ws, ps = w[rest], p[rest]
    cw = np.zeros(m + 1, dtype=np.int64)
    cp = np.zeros(m + 1, dtype=np.int64)
    for q in range(m):
        cw[q + 1] = cw[q] + ws[q]
        cp[q + 1] = cp[q] + ps[q]
    if cp[m] < need:
        return True
    b = 0
    while b < m and cw[b + 1] <= left:
        b += 1
    gp = ps[0]
    for q in range(1, m):
        gp = math.gcd(gp, ps[q])
    a, ga = affine_step(ws, ps, gp, _AFFINE_TRIES)
    return _bound(cw, cp, ws, ps, m, left, b - 1, b, cw[b], cp[b], gp, a, ga) < need
