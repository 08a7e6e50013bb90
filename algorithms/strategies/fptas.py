"""Profit-scaling FPTAS for the knapsack: score >= (1 - eps) * optimum."""

from __future__ import annotations

import math
import sys
from types import MappingProxyType

import numpy as np

from ..bounds import dantzig_bound, fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from .base import Strategy
from .greedy import density_order, greedy_fill

__all__ = ["FPTAS", "fptas_plan"]

# Float slack on the derived bound: floor(p / K) is computed in floating point.
_BOUND_SLACK = 1e-9


def fptas_plan(scores: list[float], lower: float, upper: float, eps: float) -> tuple[float, list[int], int]:
    """The scale K, the scaled profits and the profit cap of the DP.

    ``K = eps * lower / n`` for n items, where `lower` is a lower bound on the
    optimum (the strategy uses the better of density greedy and the best single
    item, which is >= optimum / 2). Scaled profits are ``floor(score / K)``. No
    feasible set can have a scaled profit above ``upper / K`` with `upper` an
    upper bound on the optimum (the Dantzig bound, <= 2 * optimum), so the DP
    needs at most ``upper / K + 1 <= 4 n / eps + 1`` profit levels.

    Args:
        scores: Positive scores of items that each fit alone.
        lower: A lower bound on the optimum, > 0.
        upper: An upper bound on the optimum.
        eps: Accuracy in (0, 1).

    Returns:
        (K, scaled profits, cap on the total scaled profit).
    """
    # Work in units of the largest score so that tiny (even subnormal) scores
    # cannot make K underflow to zero; lower >= max(scores) keeps K >= eps / n units.
    unit = max(scores)
    step = eps * (lower / unit) / len(scores)
    profits = [int(math.floor((s / unit) / step)) for s in scores]
    cap = min(int(math.floor((upper / unit) / step * (1 + _BOUND_SLACK))) + 1, sum(profits))
    return step * unit, profits, cap


class FPTAS(Strategy):
    """Ibarra-Kim profit scaling: exact DP on rounded-down profits.

    Guarantee (Ibarra and Kim 1975; Vazirani, Approximation Algorithms, 2001,
    Algorithm 8.2 and Theorem 8.4): with ``K = eps * L / n`` (L <= optimum, see
    `fptas_plan`) each item loses less than K by rounding, so the optimal set for
    the scaled profits scores >= OPT - n K >= (1 - eps) * OPT. Time and memory
    are O(n * n / eps): the DP keeps, per profit level q, the fewest tokens
    reaching scaled profit exactly q, one numpy operation per item, plus one
    decision bit per (item, level) to rebuild the set. After the DP, leftover
    room is filled greedily by density, which can only raise the score.

    ``upper_bound`` is min(Dantzig bound, K * (q* + c)) where q* is the best
    scaled profit that fits and c the most items that fit together: every
    feasible set S has score < K * (scaled(S) + |S|) <= K * (q* + c).

    Params:
        eps: Accuracy in (0, 1); smaller is slower and closer to optimal.
        max_memory_mb: Cap on the decision bits (MiB); above it a ValueError.
    """

    name = "fptas"
    PARAMS = MappingProxyType({
        "eps": Param(0.1, real_in(0.0, 1.0, lo_open=True, hi_open=True), "accuracy: score >= (1 - eps) * optimum"),
        "max_memory_mb": Param(256.0, real_in(0.0, lo_open=True), "cap on the DP decision bits (MiB)"),
    })

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        if not keep:
            return Selection((), optimal=True, upper_bound=0.0)
        eps = self.params["eps"]
        scores = [cands[k].score for k in keep]
        weights = [cands[k].tokens for k in keep]
        lower = max(sum(cands[k].score for k in greedy_fill(cands, room)), max(scores))
        dantzig = dantzig_bound(cands, room)
        scale, profits, cap = fptas_plan(scores, lower, dantzig, eps)
        live = [pos for pos, p in enumerate(profits) if p > 0]
        need = sum((cap + 1 - profits[pos] + 7) // 8 for pos in live) + 8 * (cap + 1)
        limit = self.params["max_memory_mb"] * 2**20
        if need > limit:
            raise ValueError(
                f"strategy 'fptas': needs {need / 2**20:.6g} MiB for {len(keep)} items at eps={eps:g} "
                f"(about n^2/eps bits), above max_memory_mb={self.params['max_memory_mb']:g}; "
                f"raise eps or max_memory_mb, or use strategy 'exact_dp'")

        big = np.iinfo(np.int64).max // 4  # unreachable level; sums of two stay below overflow
        least = np.full(cap + 1, big, dtype=np.int64)
        least[0] = 0
        bits: list[np.ndarray] = []
        for pos in live:
            p, w = profits[pos], weights[pos]
            cand = least[:cap + 1 - p] + w
            take = cand < least[p:]
            np.copyto(least[p:], cand, where=take)
            bits.append(np.packbits(take))
        reach = np.flatnonzero(least <= room)
        best_q = int(reach[-1])
        chosen_pos, q = [], best_q
        for step in range(len(live) - 1, -1, -1):
            pos = live[step]
            off = q - profits[pos]
            if off >= 0 and (bits[step][off >> 3] >> (7 - (off & 7))) & 1:
                chosen_pos.append(pos)
                q = off
        chosen = [keep[pos] for pos in sorted(chosen_pos)]
        chosen = greedy_fill(cands, room, start=chosen, order=density_order(cands))
        score = sum(cands[k].score for k in chosen)

        most = 0
        used = 0
        for w in sorted(weights):
            if used + w > room:
                break
            used += w
            most += 1
        derived = scale * (best_q + most) * (1 + _BOUND_SLACK)
        # Below the normal float range the product has no relative precision left: keep Dantzig's.
        bound = min(dantzig, derived) if max(scores) >= sys.float_info.min * 2**60 else dantzig
        optimal = True if score >= bound - 1e-9 * max(1.0, abs(bound)) else None
        return Selection(tuple(chosen), optimal=optimal, upper_bound=max(bound, score),
                         info={"eps": eps, "scale": scale, "levels": cap + 1, "dp_bytes": need})
