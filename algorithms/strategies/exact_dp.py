"""Exact 0/1 knapsack by dynamic programming over the token budget (seed 001's recurrence)."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

import numpy as np

from ..bounds import fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from .base import Strategy

__all__ = ["ExactDP", "dp_memory_bytes", "dp_knapsack"]


def dp_memory_bytes(tokens: Sequence[int], room: int) -> int:
    """Upper bound on the bytes of decision bits the DP keeps.

    One bit per (item, capacity between its tokens and the room), packed 8 to a
    byte; the DP stores less when the items seen so far cannot fill the room.
    """
    return sum((room - w + 1 + 7) // 8 for w in tokens if w <= room)


def dp_knapsack(tokens: Sequence[int], scores: Sequence[float], room: int) -> tuple[list[int], float]:
    """Solve max sum(scores[k] x_k) s.t. sum(tokens[k] x_k) <= room exactly.

    ``dp[j]`` is the best score within ``j`` tokens using the items seen so
    far; item k updates ``dp[j] = max(dp[j], dp[j - tokens[k]] + scores[k])``
    as one numpy operation. Capacities above the total tokens of the items
    seen so far all hold the same value (everything fits), so each update only
    touches capacities up to ``min(room, prefix sum of tokens)``. Per item one
    decision bit per touched capacity (did taking it strictly improve
    ``dp[j]``) is kept, bit-packed, to rebuild the chosen set. Only strict
    improvements are taken, so ties resolve the same way on every run.

    Args:
        tokens: Positive token counts, each <= room.
        scores: Positive finite scores, same length.
        room: Capacity (>= 0).

    Returns:
        (positions of the chosen items in increasing order, their total score as summed by the DP).
    """
    dp = np.zeros(room + 1, dtype=np.float64)
    # Scratch buffers reused by every item: fresh arrays of this size would be mapped and
    # faulted in by the allocator on each update.
    cand_buf = np.empty(room + 1, dtype=np.float64)
    take_buf = np.empty(room + 1, dtype=bool)
    bits: list[np.ndarray] = []
    tops: list[int] = []
    filled = 0  # dp[j] for j > filled equals dp[filled]
    for w, s in zip(tokens, scores):
        top = min(room, filled + w)
        if top > filled:
            dp[filled + 1:top + 1] = dp[filled]
            filled = top
        if w > top:  # cannot happen for w <= room, kept for safety
            bits.append(np.zeros(0, dtype=np.uint8))
            tops.append(top)
            continue
        span = top + 1 - w
        cand, take, upper = cand_buf[:span], take_buf[:span], dp[w:top + 1]
        np.add(dp[:span], s, out=cand)
        np.greater(cand, upper, out=take)
        np.maximum(upper, cand, out=upper)  # = cand exactly where take is set
        bits.append(np.packbits(take))
        tops.append(top)
    chosen, j = [], room
    for pos in range(len(bits) - 1, -1, -1):
        w = tokens[pos]
        if j > tops[pos]:
            # Beyond the touched range everything seen so far fits: a positive item is taken.
            chosen.append(pos)
            j -= w
            continue
        off = j - w
        if off >= 0 and (bits[pos][off >> 3] >> (7 - (off & 7))) & 1:
            chosen.append(pos)
            j = off
    chosen.reverse()
    return chosen, float(dp[filled])


class ExactDP(Strategy):
    """Exact DP: ``dp[j] = max(dp[j], dp[j - tokens] + score)`` over capacities 0..room.

    Each item's update is one numpy operation over the capacity array (see
    `dp_knapsack`). To reconstruct the chosen set the DP keeps, per item, one
    bit per capacity saying whether taking the item improved ``dp[j]``, packed
    8 to a byte: memory is at most about n * room / 8 bytes (n = 1,000,
    room = 32,768: 4 MiB) plus the float64 capacity array. Above
    ``max_memory_mb`` (default 1,024 MiB, i.e. n * room up to ~8.6e9) it
    refuses with a ValueError suggesting 'bnb', 'cpsat' or 'exact'. Time is
    O(n * room). Scores are summed in float64; only strict improvements are
    taken, so ties resolve the same way on every run.

    Params:
        max_memory_mb: Cap on the decision bits, in MiB.
    """

    name = "exact_dp"
    PARAMS = MappingProxyType({
        "max_memory_mb": Param(1024.0, real_in(0.0, lo_open=True), "cap on DP decision memory (MiB)"),
    })

    def skip(self, problem: Problem) -> str | None:
        """The memory cap is a declared refusal: the reason when the DP would need more than it."""
        keep = fitting_positive(problem.candidates, problem.room)
        need = dp_memory_bytes([problem.candidates[k].tokens for k in keep], problem.room)
        if need <= self.params["max_memory_mb"] * 2**20:
            return None
        return (f"strategy 'exact_dp': needs {need / 2**20:.6g} MiB of decision bits for "
                f"{len(keep)} items and room {problem.room}, above max_memory_mb="
                f"{self.params['max_memory_mb']:g}; use strategy 'bnb' or 'cpsat' (or 'exact', "
                f"which reduces the instance first), or raise max_memory_mb")

    def select(self, problem: Problem) -> Selection:
        refusal = self.skip(problem)
        if refusal is not None:  # called directly, not through pack
            raise ValueError(refusal)
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        weights = [cands[k].tokens for k in keep]
        need = dp_memory_bytes(weights, room)
        positions, best = dp_knapsack(weights, [cands[k].score for k in keep], room)
        chosen = tuple(keep[p] for p in positions)
        return Selection(chosen, optimal=True, upper_bound=best, info={"dp_bytes": need})
