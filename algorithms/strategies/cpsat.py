"""Exact knapsack with OR-Tools CP-SAT."""

from __future__ import annotations

from types import MappingProxyType

from ..bounds import dantzig_bound, fitting_positive
from ..items import Problem, Selection
from ..params import Param, int_in, real_in
from .base import Strategy
from .greedy import greedy_fill
from ..solvers.scaling import integer_profits

__all__ = ["CPSAT"]


def _cp_model():
    try:
        from ortools.sat.python import cp_model
    except ImportError as exc:  # pragma: no cover - ortools is a declared dependency
        raise ImportError("strategy 'cpsat' needs OR-Tools: pip install ortools") from exc
    return cp_model


class CPSAT(Strategy):
    """0/1 knapsack as a CP-SAT model: maximise sum(p_i x_i) s.t. sum(t_i x_i) <= room.

    Scores are scaled to integers by `integer_profits`: integral scores are used
    as they are; otherwise they are normalised by the largest score, multiplied
    by a power of two keeping the total below 2**50 and rounded, so the returned
    set is within n * (score per profit unit) of the true optimum (relative
    error < n * 2**-49) and ``upper_bound`` adds that error to the solver's bound. The search is seeded and, with more than one
    worker, interleaved, so the same input gives the same set. When
    ``time_limit`` cuts the search the best feasible set comes back with
    ``optimal=False`` and the solver's proven bound (tightened by Dantzig's);
    the search starts from the density-greedy set, and when the limit hits
    before any solution the greedy set comes back with Dantzig's bound.

    Params:
        time_limit: Seconds before the search is cut (default 10).
        workers: Search workers (default 1).
    """

    name = "cpsat"
    PARAMS = MappingProxyType({
        "time_limit": Param(10.0, real_in(0.0, lo_open=True), "seconds before the search is cut"),
        "workers": Param(1, int_in(1, 64), "CP-SAT search workers"),
    })

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        if not keep:
            return Selection((), optimal=True, upper_bound=0.0)
        profits, per_profit, err = integer_profits([cands[k].score for k in keep])
        cp = _cp_model()
        model = cp.CpModel()
        xs = [model.new_bool_var(f"x{k}") for k in keep]
        model.add(sum(cands[k].tokens * x for k, x in zip(keep, xs)) <= room)
        model.maximize(sum(p * x for p, x in zip(profits, xs)))
        # Start from the density-greedy set so a short limit still ends with a good feasible answer.
        start = set(greedy_fill(cands, room))
        for k, x in zip(keep, xs):
            model.add_hint(x, k in start)
        solver = cp.CpSolver()
        solver.parameters.max_time_in_seconds = self.params["time_limit"]
        solver.parameters.num_workers = self.params["workers"]
        solver.parameters.random_seed = 0
        if self.params["workers"] > 1:
            solver.parameters.interleave_search = True
        status = solver.solve(model)
        if status == cp.UNKNOWN:
            # The limit hit before CP-SAT found a solution: the greedy start is feasible, Dantzig's bound holds.
            chosen = tuple(sorted(start))
            bound = max(dantzig_bound(cands, room), sum(cands[k].score for k in chosen))
            return Selection(chosen, optimal=False, upper_bound=bound,
                             info={"scale_error": err, "stopped": "time_limit"})
        if status not in (cp.OPTIMAL, cp.FEASIBLE):
            raise RuntimeError(f"strategy 'cpsat': solver ended with status {solver.status_name(status)}")
        chosen = tuple(k for k, x in zip(keep, xs) if solver.value(x))
        score = sum(cands[k].score for k in chosen)
        if status == cp.OPTIMAL:
            return Selection(chosen, optimal=True, upper_bound=score + err, info={"scale_error": err})
        bound = min(solver.best_objective_bound * per_profit + err, dantzig_bound(cands, room))
        return Selection(chosen, optimal=False, upper_bound=max(bound, score),
                         info={"scale_error": err, "stopped": "time_limit"})
