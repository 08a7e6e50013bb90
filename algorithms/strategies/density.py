"""The density order and greedy fill on arrays: what `greedy` and `greedy_best_single` run on many candidates.

The order is `greedy.density_order`'s (score/tokens descending, ties by score descending, then
id); the fill is the seed's loop (take every candidate, in that order, that still fits). Both give
exactly the item-by-item code's answers (tests/test_greedy_vector.py, tests/test_columns.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..columns import take_in_order
from ..items import Item
from ..ties import equal_runs, id_ranks

__all__ = ["DensityOrder", "density_order_arrays", "density_orders", "fill_arrays", "fill_density"]

_WINDOW = 64  # first window of the blockwise scans; doubles while nothing is found


def density_order_arrays(candidates: Sequence[Item], scores: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """`density_order` from the candidates' scores (float64) and tokens (int64), as an array."""
    return density_orders(candidates, scores, tokens)[0]


def density_orders(candidates: Sequence[Item], scores: np.ndarray, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(`density_order_arrays`, the same order with equal densities by index) from one sort.

    The second is what a stable sort of the densities gives: the order `dantzig_bound_arrays` takes.
    """
    neg_score = np.negative(scores)
    # -score / tokens as Python computes it: the int rounds to the nearest float, then one IEEE division.
    return _order_by_keys(candidates, neg_score / tokens.astype(np.float64), neg_score)


def _order_by_keys(candidates: Sequence[Item], neg_density: np.ndarray, neg_score: np.ndarray,
                   index: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(the density order, the same with equal densities by index) of the candidates at `index`.

    The keys are those candidates' (all of them with `index` None); `index` is ascending.
    """
    # One float sort (the unstable default is the fastest): equal densities are rare, and their
    # runs are put in (score, id) order below, so the result does not depend on the sort.
    order = np.argsort(neg_density)
    runs = equal_runs(neg_density[order])
    if runs is None:
        order = order if index is None else index[order]
        return order, order
    # All runs in one sort: by run, then score, then id, then position (for equal ids). A loop over
    # runs costs a Python call per run, and with many items the runs grow faster than the items.
    in_run, run = runs
    pos = order[in_run]
    by_index = order.copy()
    by_index[in_run] = pos[np.lexsort((pos, run))]
    ranks = id_ranks(candidates, pos if index is None else index[pos])
    order[in_run] = pos[np.lexsort((pos, ranks, neg_score[pos], run))]
    if index is None:
        return order, by_index
    return index[order], index[by_index]


class DensityOrder:
    """The density order of `density_order`, sorted only as far as a greedy fill of `room` reads it.

    A fill of 4,096 tokens takes a few dozen of 10^5 candidates: sorting them all costs more than
    the rest of the strategy. `head` is the sorted order of every candidate whose density is at
    least the m-th best's (ties included, so it is exactly the first ``len(head)`` of the whole
    order), with m grown until the head's fitting tokens exceed the room; `tail` sorts, of the
    others, only those a fill can still take once the head is used up.

    Args:
        candidates: The candidates (their ids break ties).
        scores: Their scores (float64).
        tokens: Their tokens (int64).
        room: Token budget of the fills.
    """

    def __init__(self, candidates: Sequence[Item], scores: np.ndarray, tokens: np.ndarray, room: int) -> None:
        self._candidates = candidates
        self._neg_score = np.negative(scores)
        # -score / tokens as Python computes it: the int rounds to the nearest float, then one IEEE division.
        self._key = self._neg_score / tokens.astype(np.float64)
        n = len(scores)
        # Enough candidates of the average size to fill the room three times over; a head that is
        # not much smaller than the whole saves less than its extra steps cost.
        m = _WINDOW + 3 * room * n // max(1, int(tokens.sum()))
        self._outside = None
        while m * 8 < n:
            cut = self._key[np.argpartition(self._key, m - 1)[m - 1]]
            inside = self._key <= cut
            head_tokens = tokens[inside]
            if int(head_tokens[head_tokens <= room].sum()) > room:
                self._outside = ~inside
                self._smallest_outside = int(tokens[self._outside].min())
                break
            m *= 4
        index = None if self._outside is None else np.flatnonzero(inside)
        keys = self._key if index is None else self._key[index]
        neg = self._neg_score if index is None else self._neg_score[index]
        self.head, self.head_by_index = _order_by_keys(candidates, keys, neg, index)

    @property
    def complete(self) -> bool:
        """Whether `head` is the whole order."""
        return self._outside is None

    @property
    def smallest_outside(self) -> int:
        """The fewest tokens of a candidate after the head (not for a complete order)."""
        return self._smallest_outside

    def tail(self, mask: np.ndarray) -> np.ndarray:
        """The candidates after the head where `mask` holds, in density order."""
        index = np.flatnonzero(self._outside & mask)
        return _order_by_keys(self._candidates, self._key[index], self._neg_score[index], index)[0]


def fill_density(tokens: np.ndarray, order: DensityOrder, head: np.ndarray, room: int,
                 start: Sequence[int] = (), fit: np.ndarray | None = None) -> list[int]:
    """`fill_arrays` over the whole density order, sorting of it only what the fill reads.

    Args:
        tokens: Tokens of every candidate (int64, total within 2**62).
        order: The density order.
        head: ``order.head``, or the part of it the fill may take (e.g. those that fit alone).
        room: Token budget, 0 <= room <= 2**62.
        start: Indices taken first (must fit together).
        fit: The candidates the fill may take (None: all), as `head` was filtered.

    Returns:
        Chosen indices, as `fill_arrays` over the whole (filtered) order returns them.
    """
    chosen = fill_arrays(tokens, head, room, start)
    if order.complete:
        return chosen
    left = room - int(tokens[chosen].sum())
    # Past the head only an item that fits in what is left can be taken, as the room only shrinks.
    if left < order.smallest_outside:
        return chosen
    can = tokens <= left
    rest = order.tail(can if fit is None else can & fit)
    return fill_arrays(tokens, rest, room, chosen) if len(rest) else chosen


def _first_fit(tok: np.ndarray, pos: int, left: int) -> int:
    """The first position >= pos whose tokens are <= left (len(tok) if none), scanning in growing windows."""
    width = _WINDOW
    while pos < len(tok):
        hit = np.flatnonzero(tok[pos:pos + width] <= left)
        if len(hit):
            return pos + int(hit[0])
        pos += width
        width *= 2
    return len(tok)


def _vector_fill(tok: np.ndarray, idx: np.ndarray, skip: np.ndarray, left: int) -> list[int]:
    """The loop of `greedy._python_fill` over order `idx` (tokens `tok`, already-taken mask `skip`), by runs.

    An item that does not fit never fits later (the room only shrinks), so the
    greedy is: find the next item that fits, take the longest run from there
    whose running total fits, repeat. Taken items count 0 tokens and are not
    output, which leaves every run's total unchanged.
    """
    eff = np.where(skip, 0, tok)
    out: list[int] = []
    pos, n = 0, len(eff)
    while left > 0 and pos < n:
        pos = _first_fit(eff, pos, left)
        width = _WINDOW
        while pos < n:
            run = np.cumsum(eff[pos:pos + width])
            r = int(np.searchsorted(run, left, side="right"))
            if r:
                out.extend(idx[pos:pos + r][~skip[pos:pos + r]].tolist())
                left -= int(run[r - 1])
                pos += r
            if r < len(run):
                break
            width *= 2
    return out


def fill_arrays(tokens: np.ndarray, order: np.ndarray, room: int, start: Sequence[int] = ()) -> list[int]:
    """`greedy_fill` on arrays: all tokens (int64, total within 2**62), a density order, 0 <= room <= 2**62.

    Args:
        tokens: Tokens of every candidate.
        order: Candidate indices in density order, each at most once.
        room: Token budget.
        start: Indices taken first (must fit together).

    Returns:
        Chosen indices, as `greedy_fill` returns them.
    """
    chosen = list(start)
    used = int(tokens[chosen].sum()) if chosen else 0
    taken = take_in_order(tokens, order, chosen, room - used)
    if taken is not None:
        return chosen + taken
    skip = np.zeros(len(order), dtype=bool)
    if chosen:
        skip = np.isin(order, np.array(chosen, dtype=np.int64))
    return chosen + _vector_fill(tokens[order], order, skip, room - used)
