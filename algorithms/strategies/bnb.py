"""Exact knapsack with OR-Tools' dedicated branch-and-bound solver."""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import MappingProxyType

import numpy as np

from ..bounds import dantzig_bound, fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from ..solvers.reduce import reduce_knapsack
from ..solvers.reduce_kernel import warm_up as _reduce_warm_up
from ..solvers.scaling import integer_profits
from .base import Strategy

__all__ = ["BranchAndBound", "bnb_knapsack"]

# Above this many items OR-Tools' quadratic reduction is replaced by `reduce_knapsack`.
_OWN_REDUCTION_N = 3000
# Share of the remaining limit given to OR-Tools (see bnb_knapsack).
_LIMIT_SHARE = 0.94


def _knapsack_solver():
    try:
        from ortools.algorithms.python import knapsack_solver
    except ImportError as exc:  # pragma: no cover - ortools is a declared dependency
        raise ImportError("strategy 'bnb' needs OR-Tools: pip install ortools") from exc
    return knapsack_solver


def bnb_knapsack(tokens: Sequence[int], scores: Sequence[float], room: int,
                 time_limit: float) -> tuple[list[int], bool, float]:
    """Run OR-Tools' knapsack branch and bound on one constraint, within `time_limit` wall seconds.

    OR-Tools' own reduction runs inside ``init``, before its time limit starts,
    and takes time quadratic in the items (0.8 s at 10,000, 11 s at 30,000).
    Above `_OWN_REDUCTION_N` items the equivalent Dantzig-bound reduction
    (`reduce_knapsack`, O(n log n)) runs first instead and OR-Tools gets the
    free items with its reduction off; the solver gets what is left of the
    limit after the preparation.

    Args:
        tokens: Positive token counts.
        scores: Non-negative finite scores (scaled by `integer_profits`).
        room: Capacity.
        time_limit: Seconds before the search is cut.

    Returns:
        (chosen positions in increasing order, proven optimal, scaling error bound on the total).
    """
    begin = time.perf_counter()
    profits, _, err = integer_profits(scores)
    n = len(profits)
    fixed: list[int] = []
    free = list(range(n))
    incumbent: list[int] | None = None
    cap = room
    if n > _OWN_REDUCTION_N and sum(tokens) > room:
        red = reduce_knapsack(np.asarray(tokens, dtype=np.int64), np.asarray(profits, dtype=np.float64), room)
        incumbent = list(red.incumbent)
        if red.solved:
            return incumbent, True, err
        fixed, free, cap = list(red.fixed_in), list(red.free), red.room
    chosen, optimal = fixed, True
    if free:
        ks = _knapsack_solver()
        solver = ks.KnapsackSolver(ks.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, "bnb")
        solver.set_use_reduction(len(free) <= _OWN_REDUCTION_N)
        solver.init([profits[k] for k in free], [[tokens[k] for k in free]], [cap])
        # A limit of 0 would mean none to OR-Tools: keep a sliver. It checks its clock at growing
        # intervals and overshot by up to 5% of the limit (0.5 s at 10 s): ask for a little less.
        solver.set_time_limit(max(1e-4, _LIMIT_SHARE * (time_limit - (time.perf_counter() - begin))))
        solver.solve()
        chosen = sorted(fixed + [k for q, k in enumerate(free) if solver.best_solution_contains(q)])
        optimal = bool(solver.is_solution_optimal())
    if incumbent is not None and sum(profits[k] for k in incumbent) >= sum(profits[k] for k in chosen):
        chosen = incumbent  # the reduction keeps an optimum only together with its incumbent
    return chosen, optimal, err


class BranchAndBound(Strategy):
    """OR-Tools ``KnapsackSolver`` (multidimensional branch and bound), exact up to a time limit.

    The fastest exact solver measured on uncorrelated and weakly correlated
    instances, but on strongly correlated ones (score = tokens + const) it can
    run past any limit where the DP takes milliseconds, hence ``time_limit``.
    Scores are scaled to integers by `integer_profits` (integral scores are
    exact; otherwise the error is at most n profit units, relative < n * 2**-49).
    When the limit cuts the search it returns the best set found with
    ``optimal=False`` and the Dantzig bound as ``upper_bound``.

    Params:
        time_limit: Seconds before the search is cut (default 10).
    """

    name = "bnb"
    PARAMS = MappingProxyType({
        "time_limit": Param(10.0, real_in(0.0, lo_open=True), "seconds before the search is cut"),
    })

    @staticmethod
    def warm_up() -> None:
        """Load OR-Tools and the compiled reduction (used above `_OWN_REDUCTION_N` items) before timing."""
        _knapsack_solver()
        _reduce_warm_up()

    def select(self, problem: Problem) -> Selection:
        begin = time.perf_counter()
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        if not keep:
            return Selection((), optimal=True, upper_bound=0.0, info={"limit_kind": "wall"})
        positions, optimal, err = bnb_knapsack([cands[k].tokens for k in keep],
                                               [cands[k].score for k in keep], room,
                                               self.params["time_limit"] - (time.perf_counter() - begin))
        chosen = tuple(keep[p] for p in positions)
        score = sum(cands[k].score for k in chosen)
        if optimal:
            return Selection(chosen, optimal=True, upper_bound=score + err,
                             info={"scale_error": err, "limit_kind": "wall"})
        bound = dantzig_bound(cands, room)
        return Selection(chosen, optimal=False, upper_bound=max(bound, score),
                         info={"scale_error": err, "stopped": "time_limit", "limit_kind": "wall"})
