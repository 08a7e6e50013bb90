"""Exact 0/1 knapsack by dynamic programming over capacities, returning the canonical optimum."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from .dp_kernel import run_dp, span_sums

__all__ = ["canonical_dp", "dp_cost", "dp_memory_bytes", "dp_knapsack", "dp_row_length", "is_subset_sum",
           "subset_sum_bytes", "subset_sum_lex"]

# Bytes per item besides its decision bits: the int64 arrays of tokens, scores, spans, bit offsets,
# touched tops and chosen positions, and the temporaries that compute the spans.
ARRAY_OVERHEAD = 120
# DP cost model (see `dp_cost`).
_SEC_PER_ITEM = 6e-6
_SEC_PER_CELL = 1.2e-9
# Profit totals below this run the DP on int32 values (`canonical_dp`).
_INT32_TOTAL = 2**31 - 1


def dp_row_length(tokens: Sequence[int], room: int) -> int:
    """Length of the DP's capacity row: capacities past the total tokens all hold the same value."""
    return min(int(room), int(sum(tokens))) + 1


def _spans(tokens: Sequence[int], room: int) -> np.ndarray:
    """Capacities each item's update touches: items are visited last to first, so item k's update
    reaches min(room, tokens of items k..n-1)."""
    w = np.asarray(tokens, dtype=np.int64)
    if not len(w):
        return w
    suffix = np.cumsum(w[::-1])[::-1]
    return np.maximum(np.minimum(room, suffix) + 1 - w, 0)


def dp_memory_bytes(tokens: Sequence[int], room: int) -> int:
    """Bytes of every array `dp_knapsack` allocates, computed without allocating any.

    The value row (float64, `dp_row_length` entries), one flat array of every
    item's packed decision bits (one bit per touched capacity) and per item
    `ARRAY_OVERHEAD` bytes of int64 bookkeeping (`dp_kernel.run_dp`).

    Args:
        tokens: Positive token counts, each <= room.
        room: Capacity.

    Returns:
        The byte count.
    """
    row = dp_row_length(tokens, room)
    spans = _spans(tokens, room)
    return 8 * row + int(((spans + 7) // 8).sum()) + ARRAY_OVERHEAD * len(spans)


def dp_cost(tokens: Sequence[int], room: int) -> tuple[int, float]:
    """(bytes `dp_knapsack` allocates, its estimated seconds), without running it.

    The time counts the (item, capacity) cells the DP touches with a cost model
    measured on a 2-core machine: a fixed cost per item plus a cost per cell.
    Both were measured on the numpy DP; the compiled one (`dp_kernel`) runs in
    about 1/3 to 4/5 of that, but the model stays: the portfolio's thresholds
    and its Pareto-list budgets were set against it. It only orders the
    solvers; no result depends on it.
    """
    w = np.ascontiguousarray(tokens, dtype=np.int64)
    total, bit_bytes, cells = span_sums(w, int(room))  # `dp_memory_bytes`'s count in one compiled pass
    need = 8 * (min(int(room), int(total)) + 1) + int(bit_bytes) + ARRAY_OVERHEAD * len(w)
    return need, _SEC_PER_ITEM * len(w) + _SEC_PER_CELL * int(cells)


def dp_knapsack(tokens: Sequence[int], scores: Sequence[float], room: int,
                deadline: float | None = None) -> tuple[list[int], float]:
    """Solve max sum(scores[k] x_k) s.t. sum(tokens[k] x_k) <= room, returning the canonical optimum.

    Items are visited last to first: ``dp[j]`` is the best score within ``j``
    tokens using the items from the current one to the last, updated as
    ``dp[j] = max(dp[j], dp[j - tokens[k]] + scores[k])`` in one compiled pass
    per item (`dp_kernel`). Capacities above the total tokens of the items seen so
    far all hold the same value, so an update only touches capacities up to
    ``min(room, suffix sum of tokens)``. Per item one bit per touched capacity
    says whether taking the item is at least as good as leaving it; the set is
    rebuilt first item first, taking an item whenever that bit is set. The
    result is the lexicographically first optimal set (among all optima, the
    one that takes the earliest items): the same set for the same input,
    whichever solver first proved the optimum value.

    Args:
        tokens: Positive token counts, each <= room.
        scores: Non-negative finite scores, same length. Integral scores whose
            total is below 2**53 are summed exactly, so ties are exact.
        room: Capacity (>= 0).
        deadline: A `time.perf_counter()` value, read inside the compiled loop (about every
            millisecond of work); past it the DP stops.

    Returns:
        (positions of the chosen items in increasing order, their total score as summed by the DP).

    Raises:
        TimeoutError: The deadline passed before the DP finished.
    """
    w = np.asarray(tokens, dtype=np.int64).reshape(-1)
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    row = dp_row_length(tokens, room)
    chosen, best = run_dp(w, s, row, _spans(w, row - 1), deadline)
    return chosen.tolist(), best


def subset_sum_bytes(tokens: Sequence[int], room: int) -> int:
    """Bytes `subset_sum_lex` keeps: one reachability bitset of room + 1 bits per item, plus headers."""
    return (len(tokens) + 1) * ((room + 1 + 7) // 8 + ARRAY_OVERHEAD)


def subset_sum_lex(tokens: Sequence[int], room: int,
                   deadline: float | None = None) -> tuple[list[int], int]:
    """The lexicographically first set with the largest token total <= room (subset sum).

    When every item's score is the same multiple of its tokens, the best score
    is the best token total, and reachability alone decides: a bitset of the
    totals reachable with items k..n-1 (a Python integer; bit j set when total
    j is reachable), built last to first by ``reach |= reach << w``. The set is
    rebuilt first item first, taking an item whenever the rest can still reach
    the target. Far cheaper than `dp_knapsack` (one shift-or over room / 64
    words per item); the same canonical rule.

    Args:
        tokens: Positive token counts, each <= room.
        room: Capacity.
        deadline: A `time.perf_counter()` value; past it the DP stops between two items.

    Returns:
        (positions in increasing order, their token total).

    Raises:
        TimeoutError: The deadline passed before the DP finished.
    """
    mask = (1 << (room + 1)) - 1
    suffix = [0] * (len(tokens) + 1)
    reach = 1
    suffix[len(tokens)] = reach
    for pos in range(len(tokens) - 1, -1, -1):
        if deadline is not None and time.perf_counter() > deadline:
            raise TimeoutError("subset_sum_lex: deadline passed")
        reach = (reach | (reach << int(tokens[pos]))) & mask
        suffix[pos] = reach
    target = reach.bit_length() - 1
    chosen, left = [], target
    for pos, w in enumerate(tokens):
        w = int(w)
        if left >= w and (suffix[pos + 1] >> (left - w)) & 1:
            chosen.append(pos)
            left -= w
    return chosen, target


def is_subset_sum(tokens: np.ndarray, profits: np.ndarray) -> bool:
    """True when every profit is the same multiple of its tokens (checked exactly, in integers).

    Then every set is on the Pareto front and `subset_sum_lex` finds the canonical set far faster.
    """
    if not len(tokens):
        return False
    w0, p0 = int(tokens[0]), int(profits[0])
    density = profits / tokens
    if np.ptp(density) > 1e-12 * float(density.max()):
        return False
    return all(int(p) * w0 == p0 * int(w) for w, p in zip(tokens.tolist(), profits.tolist()))


def canonical_dp(tokens: np.ndarray, profits: np.ndarray, room: int, deadline: float | None = None,
                 max_bytes: float = 2**30) -> list[int]:
    """The lexicographically first optimum by DP, as `dp_knapsack` gives it.

    On subset sum (`is_subset_sum`) the bitset DP gives the same set far faster, where its
    bits fit in `max_bytes`. Profits totalling below 2**31 run the compiled DP on int32 values.

    Args:
        tokens: Positive token counts, each <= room.
        profits: Positive integral profits, same length.
        room: Capacity.
        deadline: A `time.perf_counter()` value; past it the DP stops (the bitset DP between two
            items, the capacity DP inside its compiled loop).
        max_bytes: Cap on the bitset DP's memory; above it `dp_knapsack` runs instead.

    Returns:
        Positions of the chosen items, in increasing order.

    Raises:
        TimeoutError: The deadline passed.
    """
    if is_subset_sum(tokens, profits) and subset_sum_bytes(tokens, room) <= max_bytes:
        return subset_sum_lex(np.asarray(tokens).tolist(), room, deadline=deadline)[0]
    p = np.asarray(profits)
    if len(p) and float(p.sum()) < _INT32_TOTAL and bool(np.all(p == np.floor(p))):
        # Every DP value is a sum of profits: below 2**31 they are exact in int32, and the row,
        # read and written once per item, moves half the bytes (jooken(c=1e6) n = 2,000: 2-3x).
        w = np.asarray(tokens, dtype=np.int64).reshape(-1)
        row = dp_row_length(w, room)
        return run_dp(w, p.astype(np.int32), row, _spans(w, row - 1), deadline)[0].tolist()
    return dp_knapsack(np.asarray(tokens).tolist(), p.tolist(), room, deadline=deadline)[0]
