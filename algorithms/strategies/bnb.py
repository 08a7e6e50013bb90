"""Exact knapsack with OR-Tools' dedicated branch-and-bound solver."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from ..bounds import dantzig_bound, fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from .base import Strategy
from ..solvers.scaling import integer_profits

__all__ = ["BranchAndBound", "bnb_knapsack"]


def _knapsack_solver():
    try:
        from ortools.algorithms.python import knapsack_solver
    except ImportError as exc:  # pragma: no cover - ortools is a declared dependency
        raise ImportError("strategy 'bnb' needs OR-Tools: pip install ortools") from exc
    return knapsack_solver


def bnb_knapsack(tokens: Sequence[int], scores: Sequence[float], room: int,
                 time_limit: float) -> tuple[list[int], bool, float]:
    """Run OR-Tools' knapsack branch and bound on one constraint.

    Args:
        tokens: Positive token counts.
        scores: Non-negative finite scores (scaled by `integer_profits`).
        room: Capacity.
        time_limit: Seconds before the search is cut.

    Returns:
        (chosen positions in increasing order, proven optimal, scaling error bound on the total).
    """
    profits, _, err = integer_profits(scores)
    ks = _knapsack_solver()
    solver = ks.KnapsackSolver(ks.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER, "bnb")
    solver.init(profits, [list(tokens)], [room])
    solver.set_time_limit(time_limit)
    solver.solve()
    chosen = [pos for pos in range(len(profits)) if solver.best_solution_contains(pos)]
    return chosen, bool(solver.is_solution_optimal()), err


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

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        if not keep:
            return Selection((), optimal=True, upper_bound=0.0)
        positions, optimal, err = bnb_knapsack([cands[k].tokens for k in keep],
                                               [cands[k].score for k in keep], room, self.params["time_limit"])
        chosen = tuple(keep[p] for p in positions)
        score = sum(cands[k].score for k in chosen)
        if optimal:
            return Selection(chosen, optimal=True, upper_bound=score + err, info={"scale_error": err})
        bound = dantzig_bound(cands, room)
        return Selection(chosen, optimal=False, upper_bound=max(bound, score),
                         info={"scale_error": err, "stopped": "time_limit"})
