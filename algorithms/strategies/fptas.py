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

__all__ = ["FPTAS", "fptas_memory_bytes", "fptas_plan"]

# Float slack on the derived bound: floor(p / K) is computed in floating point.
_BOUND_SLACK = 1e-9
# Bytes of a numpy array object and its list slot, counted per stored bit array.
_ARRAY_OVERHEAD = 120


def fptas_memory_bytes(profits: list[int], cap: int) -> int:
    """Bytes of every array the FPTAS's DP allocates, counted before it allocates any.

    The row of least tokens per profit level and its two scratch rows (uint64,
    uint64 and bool, ``cap + 1`` entries each), plus per item its packed
    decision bits and the array header holding them.

    Args:
        profits: The positive scaled profits, one per item the DP visits.
        cap: The largest profit level.

    Returns:
        The byte count.
    """
    levels = cap + 1
    return 17 * levels + sum((levels - p + 7) // 8 + _ARRAY_OVERHEAD for p in profits)


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

    def _plan(self, problem: Problem):
        """(keep, scores, weights, lower, dantzig, scale, profits, cap, live, need), or None when trivial."""
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        weights = [cands[k].tokens for k in keep]
        if not keep or sum(weights) <= room:  # everything fits; also keeps room below 2**62 for the DP
            return None
        scores = [cands[k].score for k in keep]
        lower = max(sum(cands[k].score for k in greedy_fill(cands, room)), max(scores))
        dantzig = dantzig_bound(cands, room)
        scale, profits, cap = fptas_plan(scores, lower, dantzig, self.params["eps"])
        live = [pos for pos, p in enumerate(profits) if p > 0]
        need = fptas_memory_bytes([profits[pos] for pos in live], cap)
        return keep, scores, weights, lower, dantzig, scale, profits, cap, live, need

    def skip(self, problem: Problem) -> str | None:
        """The memory cap is a declared refusal: the reason when the DP would need more than it."""
        plan = self._plan(problem)
        if plan is None or plan[-1] <= self.params["max_memory_mb"] * 2**20:
            return None
        keep, cap, need, eps = plan[0], plan[7], plan[-1], self.params["eps"]
        return (f"strategy 'fptas': needs {need / 2**20:.6g} MiB for {len(keep)} items at eps={eps:g} "
                f"(about n^2/eps bits plus three rows of {float(cap + 1):.6g} profit levels), above "
                f"max_memory_mb={self.params['max_memory_mb']:g}; raise eps or max_memory_mb, or use "
                f"strategy 'exact', 'bnb' or 'cpsat'")

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        eps = self.params["eps"]
        plan = self._plan(problem)
        if plan is None:
            keep = fitting_positive(cands, room)
            return Selection(tuple(keep), optimal=True, upper_bound=math.fsum(cands[k].score for k in keep),
                             info={"eps": eps, "levels": 0, "dp_bytes": 0})
        keep, scores, weights, lower, dantzig, scale, profits, cap, live, need = plan
        if need > self.params["max_memory_mb"] * 2**20:  # called directly, not through pack
            raise ValueError(self.skip(problem))

        # Unreachable levels hold room + 1. Unsigned 64-bit: least <= room + 1 <= 2**62 + 1 and a
        # weight <= 2**62, so a sum never wraps (a signed sentinel near 2**61 would read as reachable).
        unreachable = np.uint64(room + 1)
        least = np.full(cap + 1, unreachable, dtype=np.uint64)
        least[0] = 0
        cand_buf = np.empty(cap + 1, dtype=np.uint64)
        take_buf = np.empty(cap + 1, dtype=bool)
        bits: list[np.ndarray] = []
        for pos in live:
            p, w = profits[pos], np.uint64(weights[pos])
            span = cap + 1 - p
            cand, take = cand_buf[:span], take_buf[:span]
            np.add(least[:span], w, out=cand)
            np.less(cand, least[p:], out=take)
            np.copyto(least[p:], cand, where=take)
            bits.append(np.packbits(take))
        reach = np.flatnonzero(least <= np.uint64(room))
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
