"""Exact 0/1 knapsack by dynamic programming over the token budget (seed 001's recurrence)."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from ..bounds import fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from .base import Strategy

__all__ = ["ExactDP", "dp_memory_bytes"]


def dp_memory_bytes(tokens: list[int], room: int) -> int:
    """Bytes of decision bits the DP keeps: one bit per (item, capacity >= its tokens)."""
    return sum((room - w + 1 + 7) // 8 for w in tokens)


class ExactDP(Strategy):
    """Exact DP: ``dp[j] = max(dp[j], dp[j - tokens] + score)`` over capacities 0..room.

    Each item's update is one numpy operation over the capacity array. To
    reconstruct the chosen set the DP keeps, per item, one bit per capacity
    saying whether taking the item improved ``dp[j]``, packed 8 to a byte:
    memory is about n * room / 8 bytes (n = 1,000, room = 32,768: 4 MiB).
    Above ``max_memory_mb`` (default 1,024 MiB, i.e. n * room up to ~8.6e9) it
    refuses with a ValueError suggesting 'bnb' or 'cpsat'. Time is O(n * room).
    Scores are summed in float64; only strict improvements are taken, so ties
    resolve the same way on every run.

    Params:
        max_memory_mb: Cap on the decision bits, in MiB.
    """

    name = "exact_dp"
    PARAMS = MappingProxyType({
        "max_memory_mb": Param(1024.0, real_in(0.0, lo_open=True), "cap on DP decision memory (MiB)"),
    })

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        weights = [cands[k].tokens for k in keep]
        need = dp_memory_bytes(weights, room)
        cap = self.params["max_memory_mb"] * 2**20
        if need > cap:
            raise ValueError(
                f"strategy 'exact_dp': needs {need / 2**20:.0f} MiB of decision bits for "
                f"{len(keep)} items and room {room}, above max_memory_mb="
                f"{self.params['max_memory_mb']:g}; use strategy 'bnb' or 'cpsat' (or raise max_memory_mb)")
        dp = np.zeros(room + 1, dtype=np.float64)
        bits: list[np.ndarray] = []
        for k, w in zip(keep, weights):
            cand = dp[:room + 1 - w] + cands[k].score
            take = cand > dp[w:]
            np.copyto(dp[w:], cand, where=take)
            bits.append(np.packbits(take))
        chosen, j = [], room
        for pos in range(len(keep) - 1, -1, -1):
            off = j - weights[pos]
            if off >= 0 and off < 8 * len(bits[pos]) and (bits[pos][off >> 3] >> (7 - (off & 7))) & 1:
                chosen.append(keep[pos])
                j = off
        chosen.reverse()
        best = float(dp[room])
        return Selection(tuple(chosen), optimal=True, upper_bound=best,
                         info={"dp_bytes": need})
