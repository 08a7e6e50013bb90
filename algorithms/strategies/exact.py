"""`exact`: a portfolio of exact knapsack solvers that returns a proven optimum."""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from ..bounds import fitting_positive
from ..items import Item, Problem, Selection
from ..params import Param, real_in
from .base import Strategy
from .bnb import bnb_knapsack
from .cpsat import CPSAT
from .exact_dp import dp_knapsack
from ..solvers.reduce import reduce_knapsack

__all__ = ["Exact", "dp_cost", "instance_features"]

# DP cost model, measured with `packbench bench` on a 2-core machine: a fixed cost per
# item (numpy call overhead) plus a cost per (item, capacity) cell.
_DP_SEC_PER_ITEM = 6e-6
_DP_SEC_PER_CELL = 1.2e-9
# Pearson correlation of score and tokens above which branch and bound is expected to stall
# (Pisinger's strongly, inverse strongly and almost strongly correlated classes).
_CORRELATED = 0.995
# There the DP runs first unless its estimate exceeds this; then branch and bound gets a
# small share of that estimate first.
_DP_FIRST_SEC = 2.0
_BNB_SHARE = 0.1
_BNB_MIN_SLICE = 2e-4
# Up to _TINY_N candidates branch and bound runs on the whole instance first, for
# _TINY_SHARE of the DP's estimated time, then the DP. Up to _SMALL_N candidates the same
# happens, for all of the DP's estimate, on instances where branch and bound does well.
# Below these sizes the reduction costs more than it saves.
_TINY_N = 300
_TINY_SHARE = 0.3
_SMALL_N = 2000


def dp_cost(tokens: np.ndarray, room: int) -> tuple[int, float]:
    """(upper bound on the DP's decision-bit bytes, its estimated seconds) for these items.

    The bytes are `dp_memory_bytes`; the time counts the cells `dp_knapsack`
    touches (capacities up to the prefix sum of tokens) with the cost model above.
    """
    w = tokens.astype(np.int64)
    need = int(np.maximum((room - w + 8) // 8, 0).sum())
    touched = np.minimum(room, np.cumsum(w)) - w + 1
    cells = int(np.maximum(touched, 0).sum())
    return need, _DP_SEC_PER_ITEM * len(w) + _DP_SEC_PER_CELL * cells


def instance_features(tokens: np.ndarray, scores: np.ndarray) -> tuple[bool, bool]:
    """(score and tokens almost linearly correlated, all densities equal) for the solver choice."""
    density = scores / tokens
    equal = bool(np.ptp(density) <= 1e-12 * float(density.max()))
    if len(tokens) < 2 or np.ptp(tokens) == 0 or np.ptp(scores) == 0:
        return equal, equal
    # Scaled to unit maximum first: products of tiny (subnormal) scores would underflow to 0.
    t = tokens / float(tokens.max())
    s = scores / float(scores.max())
    t = t - t.mean()
    s = s - s.mean()
    denom = float(np.sqrt((t @ t) * (s @ s)))
    if denom == 0.0:
        return equal, equal
    corr = float(t @ s) / denom
    return corr >= _CORRELATED, equal


class Exact(Strategy):
    """Proven optimum from whichever exact solver is fast on the instance.

    1. Items that cannot fit or have score <= 0 are dropped; if the rest fit
       together they are all taken.
    2. Up to 300 candidates, branch and bound runs on the whole instance for
       30% of the DP's estimated time, then the DP finishes if needed.
       Otherwise instance features choose the order: branch and bound first
       unless score and tokens are almost linearly correlated (Pearson >=
       0.995) with unequal densities (Pisinger's classes 3-5), where it stalls
       and the DP goes first. Up to 2,000 candidates branch and bound then
       runs on the whole instance for the DP's estimated time, then the DP.
       The reduction would cost more than it saves on these sizes.
    3. Dantzig-bound reduction (`reduce_knapsack`): a greedy incumbent, then
       items whose forced inclusion/exclusion provably cannot beat it are fixed.
       If the incumbent meets the bound it is returned as optimal.
    4. The free items go to OR-Tools branch and bound for the DP's estimated
       time (on correlated instances the DP goes first, unless estimated over
       2 s, and then branch and bound gets 10% of that first); if it does not
       prove optimality, the bit-packed DP (`dp_knapsack`) solves it, so the
       total stays within about twice the DP's time. When the DP would need more than ``max_memory_mb`` of
       decision bits, branch and bound gets half the remaining time and CP-SAT
       the rest.
    If everything times out the best set found comes back with
    ``optimal=False`` and a proven bound. ``info["solver"]`` names the stage
    that finished ("trivial", "reduction", "bnb", "exact_dp", "cpsat" or
    "time_limit"). Branch and bound and CP-SAT scale non-integral scores to
    integers (see `integer_profits`); ``info["scale_error"]`` is that error bound.

    Params:
        time_limit: Total seconds for the solvers (default 60).
        max_memory_mb: Cap on the DP's decision bits, in MiB (default 1024).
    """

    name = "exact"
    PARAMS = MappingProxyType({
        "time_limit": Param(60.0, real_in(0.0, lo_open=True), "total seconds for the solvers"),
        "max_memory_mb": Param(1024.0, real_in(0.0, lo_open=True), "cap on DP decision memory (MiB)"),
    })

    def select(self, problem: Problem) -> Selection:
        start = time.perf_counter()
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        w_list = [cands[k].tokens for k in keep]
        if sum(w_list) <= room:
            return Selection(tuple(keep), optimal=True, upper_bound=sum(cands[k].score for k in keep),
                             info={"solver": "trivial", "free": 0})
        tokens = np.array(w_list, dtype=np.int64)
        scores = np.array([cands[k].score for k in keep], dtype=np.float64)
        cap = self.params["max_memory_mb"] * 2**20
        info: dict[str, Any] = {}
        share = None
        if len(keep) <= _TINY_N:
            # Branch and bound often finishes in a fraction of the DP's time here, even on
            # correlated instances, and features or the reduction would cost more than they save.
            share = _TINY_SHARE
        else:
            correlated, equal_density = instance_features(tokens, scores)
            # Branch and bound first, unless scores follow tokens almost linearly with different
            # densities (Pisinger 3-5), where it stalls; equal densities (subset sum) suit it.
            bnb_first = not correlated or equal_density
            info.update(correlated=correlated, equal_density=equal_density)
            if bnb_first and len(keep) <= _SMALL_N:
                share = 1.0
        cost = dp_cost(tokens, room) if share is not None else None
        if cost is not None and cost[0] <= cap:
            # The DP fits, so this always ends with a proven optimum.
            positions, optimal, bound, solver = self._solve(tokens, scores, room, share, start, info, cost)
            info.update(solver=solver, free=len(keep))
            return Selection(tuple(keep[p] for p in positions), optimal=optimal, upper_bound=bound, info=info)
        if "correlated" not in info:
            correlated, equal_density = instance_features(tokens, scores)
            bnb_first = not correlated or equal_density
            info.update(correlated=correlated, equal_density=equal_density)
        red = reduce_knapsack(tokens, scores, room)
        info.update(fixed_in=len(red.fixed_in), free=len(red.free),
                    reduction_seconds=round(time.perf_counter() - start, 6))
        incumbent = tuple(keep[p] for p in red.incumbent)
        if red.solved or not red.free:
            info["solver"] = "reduction"
            return self._best(red, incumbent, (), True, None, cands, keep, info)
        free_w = tokens[list(red.free)]
        free_s = scores[list(red.free)]
        if int(free_w.sum()) <= red.room:
            info["solver"] = "reduction"
            return self._best(red, incumbent, range(len(red.free)), True, None, cands, keep, info)
        positions, optimal, sub_ub, solver = self._solve(free_w, free_s, red.room, 1.0 if bnb_first else None,
                                                         start, info)
        info["solver"] = solver if optimal else "time_limit"
        return self._best(red, incumbent, positions, optimal, sub_ub, cands, keep, info)

    def _solve(self, free_w: np.ndarray, free_s: np.ndarray, room: int, bnb_share: float | None,
               start: float, info: dict[str, Any], cost: tuple[int, float] | None = None,
               ) -> tuple[list[int], bool, float | None, str]:
        """Exact solve of a (reduced) problem: (positions, optimal, bound or None, solver).

        Branch and bound runs first for `bnb_share` times the DP's estimated time
        (None: the DP runs first, unless its estimate exceeds ``_DP_FIRST_SEC``,
        in which case branch and bound gets ``_BNB_SHARE`` of it).
        """
        limit = self.params["time_limit"]
        w_list, s_list = free_w.tolist(), free_s.tolist()
        need, est = dp_cost(free_w, room) if cost is None else cost
        dp_fits = need <= self.params["max_memory_mb"] * 2**20
        info["dp_estimate"] = round(est, 6)
        if dp_fits and bnb_share is None and est <= _DP_FIRST_SEC:
            positions, best = dp_knapsack(w_list, s_list, room)
            return positions, True, best, "exact_dp"
        remaining = limit - (time.perf_counter() - start)
        if dp_fits:
            share = _BNB_SHARE if bnb_share is None else bnb_share
            slice_ = min(remaining, max(_BNB_MIN_SLICE, share * est))
        else:
            slice_ = remaining / 2
        positions, optimal, err = bnb_knapsack(w_list, s_list, room, max(slice_, _BNB_MIN_SLICE))
        info["scale_error"] = err
        if optimal:
            return positions, True, float(free_s[positions].sum()) + err, "bnb"
        if dp_fits:
            positions, best = dp_knapsack(w_list, s_list, room)
            info["scale_error"] = 0.0
            return positions, True, best, "exact_dp"
        remaining = limit - (time.perf_counter() - start)
        if remaining <= 0:
            return positions, False, None, "bnb"
        sub = Problem(tuple(Item(f"r{k}", "", s, w) for k, (w, s) in enumerate(zip(w_list, s_list))), room)
        try:
            sel = CPSAT(time_limit=remaining).select(sub)
        except RuntimeError:  # CP-SAT found nothing within the limit: keep branch and bound's set
            return positions, False, None, "bnb"
        cp_pos = sorted(sel.indices)
        if float(free_s[cp_pos].sum()) >= float(free_s[positions].sum()) or sel.optimal:
            positions = cp_pos
        info["scale_error"] = max(err, float(sel.info.get("scale_error", 0.0)))
        return positions, bool(sel.optimal), sel.upper_bound, "cpsat"

    @staticmethod
    def _best(red, incumbent: tuple[int, ...], positions: Sequence[int], optimal: bool,
              sub_ub: float | None, cands, keep: list[int], info: dict[str, Any]) -> Selection:
        """The better of the incumbent and fixed-in + reduced solution, with a proven bound."""
        reduced = tuple(sorted([keep[p] for p in red.fixed_in] + [keep[red.free[q]] for q in positions]))
        inc_score = sum(cands[k].score for k in incumbent)
        red_score = sum(cands[k].score for k in reduced)
        chosen, score = (reduced, red_score) if red_score > inc_score else (incumbent, inc_score)
        if sub_ub is None:
            upper = score if optimal else red.upper_bound
        else:
            fixed_score = sum(cands[keep[p]].score for p in red.fixed_in)
            upper = max(inc_score, fixed_score + sub_ub)
        upper = min(upper, red.upper_bound) if not optimal else upper
        return Selection(chosen, optimal=optimal, upper_bound=max(upper, score), info=info)
