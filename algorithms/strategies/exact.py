"""`exact`: a portfolio of exact knapsack solvers that returns one canonical proven optimum."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import numpy as np

from ..bounds import dantzig_bound_arrays, problem_arrays
from ..items import Problem, Selection
from ..params import Param, int_in, real_in
# The portfolio's budgets, under private names here: the tests patch them on this module.
from ..solvers.budgets import (CORE_WORK as _CORE_WORK, DP_DIRECT_SEC as _DP_DIRECT_SEC, GUARD_SEC as _GUARD_SEC,
                               GUARD_SHARE as _GUARD_SHARE, HEAVY_PART as _HEAVY_PART, HEAVY_SHARE as _HEAVY_SHARE,
                               HEAVY_WORK as _HEAVY_WORK, LEX_BYTE_SEC as _LEX_BYTE_SEC,
                               LEX_FIRST_SHARE as _LEX_FIRST_SHARE, LEX_ITEM_SEC as _LEX_ITEM_SEC,
                               LEX_MAX_BYTES as _LEX_MAX_BYTES, LEX_MAX_STATES as _LEX_MAX_STATES,
                               LEX_MIN_STATES as _LEX_MIN_STATES, LEX_PER_VISIT as _LEX_PER_VISIT,
                               MIN_SLICE as _MIN_SLICE, PARETO_SHARE as _PARETO_SHARE, PROBE_SHARE as _PROBE_SHARE,
                               RACE_SLICE as _RACE_SLICE, SHARPEN_MIN_SEC as _SHARPEN_MIN_SEC,
                               SHARPEN_SHARE as _SHARPEN_SHARE, SHARPEN_WORK as _SHARPEN_WORK)
from ..solvers.core.lex import LEX_STATE_BYTES
from ..solvers.core.minknap import minknap
from ..solvers.dp import dp_cost, is_subset_sum
from ..solvers.pareto import pareto_lex
from ..solvers.race import race_bnb_cpsat
from ..solvers.reduce import Reduction, density_order, reduce_knapsack
from ..solvers.scaling import integer_profits_array
from ..solvers.stages import VISIT_SEC as _VISIT_SEC, WITNESS_MIN_SEC as _WITNESS_MIN_SEC, Cut as _Cut
from ..solvers.stages import WITNESS_SHARE as _WITNESS_SHARE, better, core_lex, dp_core, dp_reduced, lex_first_pass
from ..solvers.stages import pareto_from_greedy, reduce_again, sharpen, witness_lex
from ..solvers.warm import warm_up_kernels
from .base import Strategy
from .bnb import _knapsack_solver, bnb_knapsack
from .cpsat import _cp_model, cpsat_knapsack

__all__ = ["Exact"]

def _lex_bytes(w: np.ndarray, p: np.ndarray, need: int, est: float, cap: float, share: float) -> float:
    """Bytes the lexicographic Pareto lists may store on a core (0: not worth trying).

    Without memory for the capacity DP, `_LEX_MAX_BYTES`. Where the DP fits, what should cost `share`
    of its estimated time (few distinct sizes, as in Jooken's class at small n): the cap makes a wrong
    guess cheap. Never on subset sum: the bitset DP is far below `est` there, every state on the front.
    """
    if need > cap:
        return min(cap, _LEX_MAX_BYTES)
    if is_subset_sum(w, p) or len(w) * _LEX_ITEM_SEC >= share * est:
        return 0.0
    return min(cap, share * est / _LEX_BYTE_SEC)


class Exact(Strategy):
    """Proven optimum, the same set on every run, from whichever exact solver is fast on the instance.

    Scores become integer profits (`integer_profits`: integral scores as they are, others scaled so
    the error is below n * 2**-49 relative, in ``info["scale_error"]``). Among all sets with the
    optimal profit the lexicographically first is returned (the one taking the earliest candidates):
    a canonical choice, so the answer does not depend on which solver proved it or the machine's speed.

    The stages, in order (each in docs/exact.md): items that cannot fit or score <= 0 dropped, all
    taken if the rest fit; Dantzig-bound reduction against (greedy incumbent - 1), so only a free
    core is open; a core whose capacity DP is estimated under 60 ms goes to that DP (the canonical
    set in one pass; over 1 ms, 2,000 search visits first: their proof goes to the tie-break, else
    their best set shrinks its core: `stages.sharpen`); else the compiled expanding-core search
    (`minknap`, Pisinger 1997) for a fixed number of visits (``work_limit``, else 10^8; 10^6 on Jooken
    cores), whose optimum V then gets the lexicographic tie-break (where the DP is small, the witness
    pass `stages.witness_lex` on a share of its estimate, then the DP; else `lex_first` Pareto lists up
    to a state cap; past it the search's own set, ``info["tie_break"] = "core"``); where the search runs out of work,
    `pareto_lex`, a branch-and-bound probe and the DP, or without memory for the DP the Pareto-list
    DP and CP-SAT racing branch and bound (``tie_break = "pareto"`` where no tie-break fits). At the
    limit the best set comes back with ``optimal=False``, ``info["stopped"]`` and a proven bound; if
    only the tie-break is out of reach, ``info["canonical"] = False`` and ``tie_break = "none"``: the
    one case where the set can differ between runs. Every choice between stages rests on counts and
    byte caps (`solvers.budgets`), never on measured time.

    ``info["solver"]`` names the stage that proved the optimum ("trivial", "reduction", "minknap",
    "exact_dp", "pareto_lex", "bnb", "pareto", "cpsat" or "time_limit"); it can differ between runs
    on a loaded machine, the chosen set does not. ``info["limit_kind"]`` is "wall": the time limit is
    wall-clock; with ``work_limit`` set it is "work": only the expanding-core search runs (for that
    many state visits), so whether the optimum is proven is the same on every machine as long as the
    time limit is not reached first.

    Params:
        time_limit: Total seconds for the solvers (default 60).
        max_memory_mb: Cap on everything the DP or the search's state lists allocate, in MiB (default 1024).
        work_limit: State visits for the expanding-core search, the only stage then run besides a
            tiny DP (0: no such limit; the search gets 10^8 and the other stages follow).
    """

    name = "exact"
    # Stages without solver state live in `solvers.stages`; kept as methods so the portfolio reads as one.
    _lex_first = staticmethod(lex_first_pass)
    _pareto = staticmethod(pareto_from_greedy)
    _core_lex = staticmethod(core_lex)
    _better = staticmethod(better)
    _sharpen = staticmethod(sharpen)
    PARAMS = MappingProxyType({
        "time_limit": Param(60.0, real_in(0.0, lo_open=True), "total seconds for the solvers (wall clock)"),
        "max_memory_mb": Param(1024.0, real_in(0.0, lo_open=True), "cap on all DP memory (MiB)"),
        "work_limit": Param(0, int_in(0, 10**15), "state visits for the core search alone (0: none)"),
    })

    @staticmethod
    def warm_up() -> None:
        """Compile the search, reduction, DP and Pareto lists and load OR-Tools (0.2-0.25 s) before any timing."""
        warm_up_kernels()
        _knapsack_solver()
        _cp_model()

    def select(self, problem: Problem) -> Selection:
        start, limit = time.perf_counter(), self.params["time_limit"]
        deadline = start + limit - min(_GUARD_SEC, _GUARD_SHARE * limit)
        room = problem.room
        all_tokens, all_scores, keep = problem_arrays(problem)
        tokens, scores = all_tokens[keep], all_scores[keep]
        if int(tokens.sum()) <= room:
            return Selection(tuple(keep.tolist()), optimal=True, upper_bound=math.fsum(scores.tolist()),
                             info={"solver": "trivial", "free": 0, "canonical": True, "tie_break": "lex",
                                   "limit_kind": "wall"})
        profits, _, err = integer_profits_array(scores)  # < 2**50 in total: float sums are exact
        kind = "work" if self.params["work_limit"] else "wall"
        info: dict[str, Any] = {"scale_error": err, "limit_kind": kind, "canonical": True, "tie_break": "lex"}
        order = density_order(tokens, profits)  # for this reduction and the tie-break's
        red = reduce_knapsack(tokens, profits, room, margin=1.0, order=order)
        info.update(fixed_in=len(red.fixed_array), free=len(red.free_array))
        try:
            positions, solver = self._solve(tokens, profits, room, red, deadline, info, order)
        except _Cut as cut:
            positions, stopped = cut.args[0], (cut.args[1] if len(cut.args) > 1 else "time_limit")
            info.update(solver=stopped, stopped=stopped, canonical=False, tie_break="none")
            chosen = keep[np.asarray(positions, dtype=np.int64)]
            score = math.fsum(all_scores[chosen].tolist())
            # From the arrays at hand: past the limit no pass over the candidates in Python (the same float).
            bound = dantzig_bound_arrays(scores, tokens, room)
            return Selection(tuple(chosen.tolist()), optimal=False, upper_bound=max(score, bound), info=info)
        info["solver"] = solver
        chosen = keep[np.sort(np.asarray(positions, dtype=np.int64))]
        score = math.fsum(all_scores[chosen].tolist())
        return Selection(tuple(chosen.tolist()), optimal=True, upper_bound=score + err, info=info)

    def _solve(self, tokens: np.ndarray, profits: np.ndarray, room: int, red: Reduction, deadline: float,
               info: dict[str, Any], order: np.ndarray | None = None) -> tuple[list[int], str]:
        """(positions of the canonical optimum, the stage that proved it); raises `_Cut` at the limit."""
        cap = self.params["max_memory_mb"] * 2**20
        at = red.free_array  # arrays on the search's route; lists only where a list-based stage runs
        core_w = tokens[at]
        if not len(at) or int(core_w.sum()) <= red.room:
            return np.concatenate((red.fixed_array, at)), "reduction"
        need, est = dp_cost(core_w, red.room)
        info["dp_estimate"], dp_fits = round(est, 6), need <= cap
        if dp_fits and est <= _DP_DIRECT_SEC:  # a tiny DP: the canonical set in one pass
            best = red.incumbent_array
            if est > _SHARPEN_MIN_SEC:  # a short probe: it often proves at once, else sharpens the DP's core
                probe = max(_SHARPEN_WORK, int(_SHARPEN_SHARE * est / _VISIT_SEC))  # a count from the DP's cells
                red, best, work = self._sharpen(at, tokens, profits, room, red, deadline, cap, probe, order)
                if work is not None:  # proven: the witness tie-break (the DP where it gives up)
                    info["core_work"] = work
                    return self._canonical(best, tokens, profits, room, deadline, info, core_set=best,
                                           lex_states=_LEX_MIN_STATES, order=order, first=red), "minknap"
            return dp_reduced(red, tokens, profits, deadline, best, cap), "exact_dp"
        found = self._core_search(at, tokens, profits, red, deadline, info, cap)
        if found is not None:
            states = int(min(_LEX_MAX_STATES, max(_LEX_MIN_STATES, _LEX_PER_VISIT * info["core_work"])))
            return self._canonical(found, tokens, profits, room, deadline, info, core_set=found,
                                   lex_states=states, order=order, first=red), "minknap"
        core, fixed = list(red.free), list(red.fixed_in)
        lex_bytes = _lex_bytes(core_w, profits[at], need, est, cap, _LEX_FIRST_SHARE)
        found = self._lex_first(core, tokens, profits, red, deadline, lex_bytes) if lex_bytes else None
        if found is not None:
            return fixed + found, "pareto_lex"
        if not dp_fits:
            return self._no_dp(core, fixed, tokens, profits, room, red, deadline, info, cap, lex=not lex_bytes)
        slice_ = min(deadline - time.perf_counter(), max(_MIN_SLICE, _PROBE_SHARE * est))
        if slice_ <= 0:
            raise _Cut(list(red.incumbent))
        found, proven, _ = bnb_knapsack(core_w.tolist(), profits[at].tolist(), red.room, slice_)
        best = self._better(fixed + [core[q] for q in found], list(red.incumbent), profits)
        if proven:
            return self._canonical(best, tokens, profits, room, deadline, info), "bnb"
        return fixed + dp_core(core, tokens, profits, red.room, deadline, best, cap), "exact_dp"

    def _core_search(self, core: np.ndarray, tokens: np.ndarray, profits: np.ndarray, red: Reduction,
                     deadline: float, info: dict[str, Any], cap: float) -> np.ndarray | None:
        """An optimal set from the expanding-core search, or None where its work budget ran out first.

        With ``work_limit`` set nothing else runs: past it `_Cut` returns the best set found.
        """
        limit, at, inc = self.params["work_limit"], red.free_array, red.incumbent_array
        core_w = tokens[at]
        heavy = np.count_nonzero(core_w * _HEAVY_PART > red.room) >= _HEAVY_SHARE * len(core)
        res = minknap(core_w, profits[at].astype(np.int64), red.room, deadline=deadline,
                      work_limit=limit or (_HEAVY_WORK if heavy else _CORE_WORK), max_bytes=cap)
        info["core_work"] = res.work
        best = inc if res.chosen is None else np.concatenate((red.fixed_array, at[res.at]))  # arrays: no list reads
        best = self._better(best, inc, profits)
        if res.proven:
            return best
        if res.status == "time_limit" or limit:
            raise _Cut(best, res.status)
        return None

    def _no_dp(self, core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
               red: Reduction, deadline: float, info: dict[str, Any], cap: float,
               lex: bool = True) -> tuple[list[int], str]:
        """No memory for the capacity DP: a branch-and-bound slice, the Pareto-list DP, then the race.

        The Pareto DP's cost depends on how many partial solutions survive, not on the room, so it
        proves instances with capacities of 10^9 whose LP bound is too weak for branch and bound.
        `lex` False: the lexicographic tie-break already failed its memory cap at the greedy
        profit, so it is not tried again at the optimum (lists of about the same size).
        """
        core_w, core_p = tokens[core], profits[core]
        best = list(red.incumbent)
        slice_ = min(deadline - time.perf_counter(), _RACE_SLICE)
        if slice_ > 0:
            found, proven, _ = bnb_knapsack(core_w.tolist(), core_p.tolist(), red.room, slice_)
            best = self._better(fixed + [core[q] for q in found], best, profits)
            if proven:
                settle = functools.partial(self._pareto, core, fixed, tokens, profits, red, deadline, cap)
                return self._canonical(best, tokens, profits, room, deadline, info, settle=settle, lex=lex), "bnb"
        until = time.perf_counter() + _PARETO_SHARE * (deadline - time.perf_counter())
        found, proven = self._pareto(core, fixed, tokens, profits, red, until, cap)
        if proven:
            return self._canonical(found, tokens, profits, room, deadline, info, settled=found, lex=lex), "pareto"
        best = self._better(found, best, profits)
        return self._race(core, fixed, tokens, profits, room, red, best, deadline, info, lex)

    def _race(self, core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
              red: Reduction, best: list[int], deadline: float, info: dict[str, Any],
              lex: bool = True) -> tuple[list[int], str]:
        """No memory for the DP: CP-SAT races branch and bound (`race_bnb_cpsat`) for the rest of the limit."""
        where = {k: q for q, k in enumerate(core)}
        found_sets, winner = race_bnb_cpsat(tokens[core].tolist(), [int(p) for p in profits[core]], red.room,
                                            [where[k] for k in best if k in where], deadline, _RACE_SLICE,
                                            bnb=bnb_knapsack, cpsat=cpsat_knapsack)
        for found in found_sets:
            best = self._better(fixed + [core[q] for q in found], best, profits)
        if winner is None:
            raise _Cut(best)
        return self._canonical(best, tokens, profits, room, deadline, info, lex=lex), winner

    def _canonical(self, best: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
                   deadline: float, info: dict[str, Any], settled: list[int] | None = None,
                   settle: Callable[[], tuple[list[int], bool]] | None = None, lex: bool = True,
                   core_set: list[int] | None = None, lex_states: int = 0,
                   order: np.ndarray | None = None, first: Reduction | None = None) -> list[int]:
        """The canonical optimum, given an optimal set `best`: reduce against its value - 1, DP the rest.

        Where the lexicographic tie-break does not fit, the optimum the Pareto-list DP meets first
        (`settled`, or what `settle` proves) stands in for it: not the lexicographically first, but
        the same on every run. After the expanding-core search the tie-break is `lex_first`, whose
        lists may hold `lex_states` states (and the memory cap); past that `core_set`, the search's
        optimum, stands in. Only when none is reached (the time limit) does the set depend on the solver.
        """
        info["tie_break"] = "lex"
        known = float(profits[best].sum())
        canon = reduce_again(tokens, profits, room, known, order, first)
        at, fixed = canon.free_array, canon.fixed_array
        core_w = tokens[at]
        if not len(at) or int(core_w.sum()) <= canon.room:
            return np.concatenate((fixed, at))
        cap = self.params["max_memory_mb"] * 2**20
        need, est = dp_cost(core_w, canon.room)
        if core_set is not None and not (need <= cap and est <= _DP_DIRECT_SEC):
            return self._core_lex(at, fixed, core_set, tokens, profits, canon.room, deadline, info,
                                  min(lex_states, cap // LEX_STATE_BYTES))
        # Where the DP fits, the lists go first when they should cost under half of it.
        lex_bytes = _lex_bytes(core_w, profits[at], need, est, cap, 0.5) if lex else 0.0
        if lex_bytes > 0:
            target = float(profits[best].sum()) - float(profits[fixed].sum())
            try:
                found = pareto_lex(core_w, profits[at], canon.room, target, deadline=deadline, max_bytes=lex_bytes)
            except TimeoutError:
                found = None
            if found is not None:
                return np.concatenate((fixed, at[np.asarray(found, dtype=np.int64)]))
        if need <= cap and est > _WITNESS_MIN_SEC:  # first the witness pass from `best`: often no DP
            found = witness_lex(at, fixed, best, tokens, profits, canon.room, deadline,
                                int(_WITNESS_SHARE * est / _VISIT_SEC))
            if found is not None:
                return found
        if need <= cap:
            try:
                return dp_reduced(canon, tokens, profits, deadline, best, cap)
            except _Cut:
                pass
        if settled is None and settle is not None and time.perf_counter() < deadline:
            found, proven = settle()
            settled = found if proven else None
        if settled is not None:
            info["tie_break"] = "pareto"
            return settled
        info.update(canonical=False, tie_break="none")  # the optimum stands; only the tie-break is out of reach
        return best
