"""Exact knapsack with OR-Tools CP-SAT."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from types import MappingProxyType

from ..bounds import dantzig_bound, fitting_positive
from ..items import Problem, Selection
from ..params import Param, int_in, real_in
from .base import Strategy
from .greedy import greedy_fill
from ..solvers.scaling import integer_profits

__all__ = ["CPSAT", "cpsat_knapsack"]


def _cp_model():
    try:
        from ortools.sat.python import cp_model
    except ImportError as exc:  # pragma: no cover - ortools is a declared dependency
        raise ImportError("strategy 'cpsat' needs OR-Tools: pip install ortools") from exc
    return cp_model


# Above this many items CP-SAT's presolve (which ignores the time limit) is turned off.
_PRESOLVE_MAX_N = 20_000
# Time kept back per item for reading the solution and computing the bound after the search.
_SEC_AFTER_PER_ITEM = 2e-6


def cpsat_knapsack(tokens: Sequence[int], profits: Sequence[int], room: int, time_limit: float,
                   hint: Sequence[int] = (), deterministic_time: float | None = None,
                   workers: int = 1, stop: threading.Event | None = None,
                   handle: list | None = None) -> tuple[list[int] | None, bool, float | None, str]:
    """Solve the integer knapsack with CP-SAT within `time_limit` wall seconds, model building included.

    Args:
        tokens: Positive token counts.
        profits: Non-negative integer profits (sum below 2**62).
        room: Capacity (> 0).
        time_limit: Wall seconds for building and solving.
        hint: Positions of a feasible set to start from.
        deterministic_time: CP-SAT's deterministic time limit (machine-independent work units), or None.
        workers: Search workers.
        stop: When set (by another thread) before the search starts, nothing is solved.
        handle: A list the `CpSolver` is appended to, so another thread can call its ``stop_search``.

    Returns:
        (chosen positions or None when no solution was found, proven optimal, the solver's bound on the
        profit or None, the limit that stopped it: "" (none), "wall" or "deterministic").
    """
    begin = time.perf_counter()
    cp = _cp_model()
    model = cp.CpModel()
    xs = [model.new_bool_var(f"x{k}") for k in range(len(tokens))]
    room = min(int(room), int(sum(tokens)))  # a larger room is the same constraint and may overflow int64
    model.add(cp.LinearExpr.weighted_sum(xs, list(tokens)) <= room)
    model.maximize(cp.LinearExpr.weighted_sum(xs, list(profits)))
    start = set(hint)
    for k, x in enumerate(xs):
        model.add_hint(x, k in start)
    solver = cp.CpSolver()
    if handle is not None:
        handle.append(solver)
    if stop is not None and stop.is_set():
        return None, False, None, "wall"
    # Model building counts against the limit: at 100,000 candidates it takes seconds.
    left = time_limit - (time.perf_counter() - begin)
    if left <= 0:
        return None, False, None, "wall"
    solver.parameters.max_time_in_seconds = left
    if deterministic_time is not None:
        solver.parameters.max_deterministic_time = deterministic_time
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = 0
    # CP-SAT's presolve does not check the time limit: at 100,000 items it ran 9 s under a 1 s limit.
    solver.parameters.cp_model_presolve = len(tokens) <= _PRESOLVE_MAX_N
    if workers > 1:
        solver.parameters.interleave_search = True
    status = solver.solve(model)
    if status == cp.OPTIMAL:
        return _chosen(solver), True, None, ""
    cut = "deterministic" if (deterministic_time is not None
                              and solver.deterministic_time >= deterministic_time * 0.999) else "wall"
    if status == cp.UNKNOWN:
        return None, False, None, cut
    if status != cp.FEASIBLE:
        raise RuntimeError(f"cpsat: solver ended with status {solver.status_name(status)}")
    return _chosen(solver), False, float(solver.best_objective_bound), cut


def _chosen(solver) -> list[int]:
    """Positions set to 1 in the solution (variables were created in position order)."""
    return [k for k, v in enumerate(solver.response_proto.solution) if v]


class CPSAT(Strategy):
    """0/1 knapsack as a CP-SAT model: maximise sum(p_i x_i) s.t. sum(t_i x_i) <= room.

    Scores are scaled to integers by `integer_profits`: integral scores are used
    as they are; otherwise they are normalised by the largest score, multiplied
    by a power of two keeping the total below 2**50 and rounded, so the returned
    set is within n * (score per profit unit) of the true optimum (relative
    error < n * 2**-49) and ``upper_bound`` adds that error to the solver's
    bound. The search is seeded and, with more than one worker, interleaved.
    The search starts from the density-greedy set; when a limit cuts it the
    best feasible set comes back with ``optimal=False`` and the solver's
    proven bound (tightened by Dantzig's), or the greedy set with Dantzig's
    bound when no solution was found yet.

    Limits: ``time_limit`` is wall-clock and includes building the model.
    ``deterministic_time`` (optional) is CP-SAT's deterministic time limit, in
    work units that do not depend on the machine or its load: with it set, and
    a wall limit high enough not to bind, a cut run gives the same row on any
    machine. ``info["limit_kind"]`` says which limit governs the result
    ("deterministic" or "wall"); a cut run's ``info["stopped"]`` names the
    limit that stopped it ("deterministic_time" or "time_limit").

    Params:
        time_limit: Wall seconds before the search is cut, model building included (default 10).
        deterministic_time: CP-SAT deterministic time limit, or None for none (default None).
        workers: Search workers (default 1).
    """

    name = "cpsat"
    PARAMS = MappingProxyType({
        "time_limit": Param(10.0, real_in(0.0, lo_open=True), "wall seconds, model building included"),
        "deterministic_time": Param(None, real_in(0.0, lo_open=True, allow_none=True),
                                    "CP-SAT deterministic time limit (machine-independent), or none"),
        "workers": Param(1, int_in(1, 64), "CP-SAT search workers"),
    })

    def select(self, problem: Problem) -> Selection:
        begin = time.perf_counter()
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        det = self.params["deterministic_time"]
        kind = "wall" if det is None else "deterministic"
        if not keep:
            return Selection((), optimal=True, upper_bound=0.0, info={"limit_kind": kind})
        profits, per_profit, err = integer_profits([cands[k].score for k in keep])
        # Start from the density-greedy set so a short limit still ends with a good feasible answer.
        start = greedy_fill(cands, room)
        where = {k: pos for pos, k in enumerate(keep)}
        # The preparation above and the bounds below count against the limit too (0.1 s each at 100,000).
        left = self.params["time_limit"] - (time.perf_counter() - begin) - _SEC_AFTER_PER_ITEM * len(keep)
        found, optimal, bound, cut = cpsat_knapsack(
            [cands[k].tokens for k in keep], profits, room, left,
            hint=[where[k] for k in start if k in where], deterministic_time=det, workers=self.params["workers"])
        info: dict = {"scale_error": err, "limit_kind": kind}
        if found is None:
            # The limit hit before CP-SAT found a solution: the greedy start is feasible, Dantzig's bound holds.
            chosen = tuple(sorted(start))
            info.update(stopped=_STOPPED[cut], limit_kind=cut)
            bound = max(dantzig_bound(cands, room), sum(cands[k].score for k in chosen))
            return Selection(chosen, optimal=False, upper_bound=bound, info=info)
        chosen = tuple(keep[p] for p in found)
        score = sum(cands[k].score for k in chosen)
        if optimal:
            return Selection(chosen, optimal=True, upper_bound=score + err, info=info)
        info.update(stopped=_STOPPED[cut], limit_kind=cut)
        bound = min(bound * per_profit + err, dantzig_bound(cands, room))
        return Selection(chosen, optimal=False, upper_bound=max(bound, score), info=info)


_STOPPED = {"wall": "time_limit", "deterministic": "deterministic_time"}
