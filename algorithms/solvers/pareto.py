"""Exact 0/1 knapsack over Pareto lists of (tokens, profit) states, pruned by LP bounds.

The capacity DP (`dp_knapsack`) costs O(n * room) and is out of reach when the
room is 10^8 or more. These solvers keep instead only the non-dominated partial
solutions (Nemhauser-Ullmann lists): a state (W, P) is dropped when another one
uses no more tokens and scores at least as much, and when P plus the LP bound
of the items still to come cannot beat the target. Their cost depends on how
many states survive, not on the room, so they can solve instances with huge
capacities whose items fall into a few size classes (Jooken et al. 2022) in
seconds, where branch and bound with the LP bound alone does not finish.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Sequence

import numpy as np

from .pareto_kernel import NO_SET, OVER_CAP, TIMED_OUT, lex_lists

__all__ = ["pareto_knapsack", "pareto_lex", "PARETO_STATE_BYTES"]

# Bytes one live state costs while a list is merged (tokens, profit, node and the sort's temporaries).
PARETO_STATE_BYTES = 96
# Float slack on bounds: a state is never pruned because its LP bound was computed a little low.
_REL_TOL = 1e-9
# One item's merge cannot be interrupted, and lists can double per item: stop before an item whose
# merge, at this many times the last one's time, would end past the deadline.
_NEXT_ITEM_FACTOR = 2.5


def _past(deadline: float | None, last_item_sec: float) -> bool:
    """True when the deadline has passed or the next item's merge would likely end past it."""
    return deadline is not None and time.perf_counter() + _NEXT_ITEM_FACTOR * last_item_sec > deadline


class _LPBound:
    """Dantzig (LP) bound of the items still *alive*, for many capacities at once."""

    def __init__(self, w: np.ndarray, p: np.ndarray) -> None:
        n = len(w)
        self.order = np.lexsort((np.arange(n), -p / w))  # density order, ties by position
        self.where = np.empty(n, dtype=np.int64)
        self.where[self.order] = np.arange(n)
        self.w, self.p = w[self.order].astype(np.float64), p[self.order]
        self.alive = np.ones(n, dtype=bool)

    def drop(self, k: int) -> None:
        self.alive[self.where[k]] = False

    def __call__(self, cap: np.ndarray) -> np.ndarray:
        w, p = self.w[self.alive], self.p[self.alive]
        if not len(w):
            return np.zeros(len(cap))
        cw, cp = np.cumsum(w), np.cumsum(p)
        whole = np.searchsorted(cw, cap, side="right")  # items taken whole
        prev = np.maximum(whole - 1, 0)
        base = np.where(whole > 0, cp[prev], 0.0)
        used = np.where(whole > 0, cw[prev], 0.0)
        nxt = np.minimum(whole, len(w) - 1)
        # The fraction (< 1) before the profit: profit * capacity could overflow.
        frac = np.where(whole < len(w), p[nxt] * ((cap - used) / w[nxt]), 0.0)
        return base + frac


def _tight(bound: np.ndarray) -> np.ndarray:
    """Integral profits: the floor of the bound, after a slack for float rounding."""
    return np.floor(bound + _REL_TOL * np.maximum(1.0, np.abs(bound)))


def _merge(W: np.ndarray, P: np.ndarray, W2: np.ndarray,
           P2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Merge two token-sorted Pareto lists: (tokens, profits, came from the second list, on the front).

    Both lists are sorted by tokens, so a merge by `searchsorted` replaces a sort. A state is on
    the front when it scores strictly more than every state before it and no later state has the
    same tokens: of states with equal tokens only the best survives, and on a full tie the one
    from the first list does, so the result does not depend on how the merge was computed.
    """
    total = len(W) + len(W2)
    at_new = np.searchsorted(W, W2, side="right") + np.arange(len(W2))
    is_new = np.zeros(total, dtype=bool)
    is_new[at_new] = True
    sW = np.empty(total, dtype=np.int64)
    sP = np.empty(total, dtype=np.float64)
    sW[at_new], sP[at_new] = W2, P2
    sW[~is_new], sP[~is_new] = W, P
    keep = np.ones(total, dtype=bool)
    if total > 1:
        keep[1:] = sP[1:] > np.maximum.accumulate(sP)[:-1]
        kept = np.flatnonzero(keep)
        same = sW[kept[:-1]] == sW[kept[1:]]
        keep[kept[:-1][same]] = False  # profits rise along the front: the later of equal tokens wins
    return sW, sP, is_new, keep


def pareto_knapsack(tokens: Sequence[int], profits: Sequence[float], room: int,
                    incumbent: Sequence[int] = (), deadline: float | None = None,
                    max_bytes: float = 2**30) -> tuple[list[int], bool]:
    """Maximise an integer-profit knapsack over Pareto lists, heaviest items first.

    Heavy items first keep the lists short: few combinations of them fit, and
    the light items that follow mostly extend states the bound already prunes.
    A state survives only when its LP bound (the state's profit plus the
    Dantzig bound of the items not yet visited) beats the best set found, so
    the lists end empty or after the last item with the best set proven
    optimal. Each set is kept as a chain of (item, parent) nodes, one per
    surviving state that took an item, so memory grows with the states kept.

    Args:
        tokens: Positive token counts, each <= room.
        profits: Positive integral profits (total below 2**53), same length.
        room: Capacity.
        incumbent: Positions of a feasible set to beat (the density-greedy set when that is better).
        deadline: A `time.perf_counter()` value; past it the search stops between two items.
        max_bytes: Cap on the memory of the lists and the nodes; above it the search stops.

    Returns:
        (positions of the best set found in increasing order, proven optimal). A stop at the
        deadline or the memory cap returns the best set so far with ``False``.
    """
    w = np.asarray(tokens, dtype=np.int64)
    p = np.asarray(profits, dtype=np.float64)
    n = len(w)
    lp = _LPBound(w, p)
    incumbent = sorted(int(k) for k in incumbent)
    greedy, used = [], 0
    for k in lp.order.tolist():  # density greedy: a good start prunes from the first item on
        if used + w[k] <= room:
            greedy.append(k)
            used += int(w[k])
    if p[greedy].sum() > p[incumbent].sum():
        incumbent = sorted(greedy)
    best_p = float(p[incumbent].sum())
    best_node = None  # None: the incumbent; -1: the empty set; else a node
    W, P = np.zeros(1, dtype=np.int64), np.zeros(1)
    N = np.full(1, -1, dtype=np.int64)
    parents: list[np.ndarray] = []
    offsets: list[int] = []
    n_nodes = 0
    proven = True
    last, tick = 0.0, time.perf_counter()
    for k in np.lexsort((np.arange(n), -w)).tolist():  # heaviest first, ties by position
        if not len(W):
            break
        now = time.perf_counter()
        last, tick = now - tick, now
        if _past(deadline, last):
            proven = False
            break
        lp.drop(k)
        fit = W <= room - w[k]
        sW, sP, is_new, keep = _merge(W, P, W[fit] + w[k], P[fit] + p[k])
        allN = np.empty(len(sW), dtype=np.int64)
        allN[is_new], allN[~is_new] = N[fit], N
        top = int(np.flatnonzero(keep)[-1])  # the front's last state scores most
        record = sP[top] > best_p
        keep &= _tight(sP + lp((room - sW).astype(np.float64))) > max(best_p, sP[top])
        alloc = keep & is_new
        if record:
            alloc[top] = bool(is_new[top])
        ids = n_nodes + np.cumsum(alloc) - 1
        parents.append(allN[alloc])
        offsets.append(n_nodes)
        n_nodes += int(alloc.sum())
        nodes = np.where(is_new, ids, allN)
        if record:
            best_p, best_node = float(sP[top]), int(nodes[top])
        W, P, N = sW[keep], sP[keep], nodes[keep]
        if 8 * n_nodes + PARETO_STATE_BYTES * len(W) > max_bytes:
            proven = False
            break
    if best_node is None:
        return incumbent, proven
    visit = np.lexsort((np.arange(n), -w))
    chosen, node = [], best_node
    while node >= 0:
        # Layers that allocated nothing share their offset with the next one: the last of them holds it.
        layer = bisect.bisect_right(offsets, node) - 1
        chosen.append(int(visit[layer]))
        node = int(parents[layer][node - offsets[layer]])
    return sorted(chosen), proven


def pareto_lex(tokens: Sequence[int], profits: Sequence[float], room: int, target: float,
               deadline: float | None = None, max_bytes: float = 2**30) -> list[int] | None:
    """The lexicographically first optimal set, given a profit `target` some set reaches; None past the cap.

    Items are visited last to first, keeping for each suffix the Pareto list of
    (tokens, profit) states that can still reach the target with the items
    before it (by their LP bound). The last list holds whole sets, so its best
    profit is the optimum whether `target` was the optimum or a lower bound on
    it (a closer bound keeps shorter lists). The set is then rebuilt first item
    first, taking an item whenever the stored list of the items after it can
    complete the optimum: the same rule as `dp_knapsack`'s, so the same set.
    Compiled (`pareto_kernel`): besides the LP bound a cardinality bound prunes
    the lists (jooken(c=1e9, g=2), n = 500: 137 -> 3.3 ms CPU).

    Args:
        tokens: Positive token counts, each <= room.
        profits: Positive integral profits (total below 2**53), same length.
        room: Capacity.
        target: A profit some feasible set reaches: the optimum, or a lower bound such as a greedy set's.
        deadline: A `time.perf_counter()` value, read inside the compiled loop (every item and
            every 4,096 merged states).
        max_bytes: Cap on the stored lists; None comes back when they would exceed it, or when the
            lists stored so far plus the current one, growing as it has for the items still to
            come, would pass twice the cap.

    Returns:
        Positions in increasing order, or None when the lists outgrew `max_bytes`.

    Raises:
        TimeoutError: The deadline passed.
        ValueError: No set reaches `target`.
    """
    status, chosen = lex_lists(tokens, profits, room, target, deadline, max_bytes)
    if status == TIMED_OUT:
        raise TimeoutError("pareto_lex: deadline passed")
    if status == OVER_CAP:
        return None
    if status == NO_SET:
        raise ValueError(f"pareto_lex: no set reaches the target profit {target}")
    return chosen
