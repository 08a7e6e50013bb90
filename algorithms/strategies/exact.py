"""`exact`: a portfolio of exact knapsack solvers that returns one canonical proven optimum."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import numpy as np

from ..bounds import dantzig_bound, fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from ..solvers.dp import dp_cost, dp_knapsack, subset_sum_bytes, subset_sum_lex
from ..solvers.pareto import pareto_knapsack, pareto_lex
from ..solvers.race import race_bnb_cpsat
from ..solvers.reduce import Reduction, reduce_knapsack
from ..solvers.scaling import integer_profits
from .base import Strategy
from .bnb import bnb_knapsack
from .cpsat import cpsat_knapsack

__all__ = ["Exact"]

# A DP estimated below this runs at once: a branch-and-bound probe would cost as much.
_DP_DIRECT_SEC = 0.02
# Otherwise branch and bound probes first, for this share of the DP's estimate (at least the
# minimum slice); the DP, if it fits, then finishes within about (1 + share) times its own time.
_PROBE_SHARE = 0.25
_MIN_SLICE = 0.005
# Without memory for the DP, branch and bound races CP-SAT with slices doubling from this.
_RACE_SLICE = 0.05
# Without memory for the DP, the Pareto-list DP gets this share of the limit left after a first
# branch-and-bound slice; the race gets the rest.
_PARETO_SHARE = 0.75
# Cap on the Pareto lists the canonical tie-break stores when the capacity DP does not fit: a
# byte count, not a time, so whether the tie-break is reached does not depend on the machine.
_LEX_MAX_BYTES = 256 * 2**20
# `pareto_lex`'s cost, measured on the hard families: about 40 us per item plus 4-28 ns per byte of
# lists (the budget uses 8 ns). Used only to choose between two routes to the same set.
_LEX_ITEM_SEC = 4e-5
_LEX_BYTE_SEC = 8e-9


def _lex_budget(n: int, dp_seconds: float) -> float:
    """Bytes of Pareto lists expected to cost half the capacity DP's estimated time (0: not worth trying)."""
    if n * _LEX_ITEM_SEC >= 0.5 * dp_seconds:
        return 0.0
    return 0.5 * dp_seconds / _LEX_BYTE_SEC


def _proportional(tokens: np.ndarray, profits: np.ndarray) -> bool:
    """True when every profit is the same multiple of its tokens (checked exactly, in integers)."""
    if not len(tokens):
        return False
    w0, p0 = int(tokens[0]), int(profits[0])
    density = profits / tokens
    if np.ptp(density) > 1e-12 * float(density.max()):
        return False
    return all(int(p) * w0 == p0 * int(w) for w, p in zip(tokens.tolist(), profits.tolist()))


class _Cut(Exception):
    """The time limit ended the search."""


class Exact(Strategy):
    """Proven optimum, the same set on every run, from whichever exact solver is fast on the instance.

    Scores become integer profits (`integer_profits`: integral scores as they
    are, others scaled so the error is below n * 2**-49 relative, in
    ``info["scale_error"]``). Among all sets with the optimal profit the
    lexicographically first is returned (the one taking the earliest
    candidates): a canonical choice, so the answer does not depend on which
    solver proved the optimum or how fast the machine was.

    1. Items that cannot fit or have score <= 0 are dropped; if the rest fit
       together they are all taken.
    2. Dantzig-bound reduction against (greedy incumbent - 1): the items it
       fixes agree with *every* optimum, so only the free "core" is open.
    3. The core goes to the lexicographic DP (`dp_knapsack`) at once when its
       estimated time is tiny; otherwise OR-Tools branch and bound probes for
       a quarter of the DP's estimate. When it proves the optimum V, the
       reduction is redone against V - 1, which usually leaves a tiny core,
       and the DP picks the canonical set there. Otherwise the DP solves the
       core. When the DP would exceed ``max_memory_mb`` (rooms of 10^8 and
       more), a short branch-and-bound slice comes first, then the Pareto-list
       DP (`pareto_knapsack`, whose cost does not depend on the room, started
       from the greedy set) for 75% of what is left, then CP-SAT (in a thread,
       started from the best set) races branch and bound (rerun with doubling
       slices) for the rest of the limit; the first proof stops the other. The
       canonical set then comes from the capacity DP on the V - 1 core, or,
       when that does not fit either, from `pareto_lex` with its lists capped
       at 256 MiB. Every solver checks the clock between items or slices, so
       the limit is honoured.
    4. Where even `pareto_lex` does not fit (many optimal sets, as in Jooken's
       class with c = 10^9), the optimum the Pareto-list DP proves stands in
       (``info["tie_break"] = "pareto"`` instead of "lex"): not the
       lexicographically first, but also the same on every run; the DP is run
       for it if branch and bound proved first.
    5. If the limit ends the search the best set found comes back with
       ``optimal=False``, ``info["stopped"]`` and a proven bound; if only the
       tie-break is out of reach (memory or time), the proving solver's
       optimum comes back with ``info["canonical"] = False`` and
       ``info["tie_break"] = "none"``: the one case where the set can differ
       between runs.

    ``info["solver"]`` names the stage that proved the optimum ("trivial",
    "reduction", "exact_dp", "bnb", "pareto", "cpsat" or "time_limit"); it can differ between
    runs on a loaded machine, the chosen set does not. ``info["limit_kind"]``
    is "wall": the time limit is wall-clock.

    Params:
        time_limit: Total seconds for the solvers (default 60).
        max_memory_mb: Cap on everything the DP allocates, in MiB (default 1024).
    """

    name = "exact"
    PARAMS = MappingProxyType({
        "time_limit": Param(60.0, real_in(0.0, lo_open=True), "total seconds for the solvers (wall clock)"),
        "max_memory_mb": Param(1024.0, real_in(0.0, lo_open=True), "cap on all DP memory (MiB)"),
    })

    def select(self, problem: Problem) -> Selection:
        start = time.perf_counter()
        deadline = start + self.params["time_limit"]
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        scores_f = [cands[k].score for k in keep]
        if sum(cands[k].tokens for k in keep) <= room:
            return Selection(tuple(keep), optimal=True, upper_bound=math.fsum(scores_f),
                             info={"solver": "trivial", "free": 0, "canonical": True, "tie_break": "lex",
                                   "limit_kind": "wall"})
        tokens = np.array([cands[k].tokens for k in keep], dtype=np.int64)
        profits_l, _, err = integer_profits(scores_f)
        profits = np.array(profits_l, dtype=np.float64)  # < 2**50 in total: float sums are exact
        info: dict[str, Any] = {"scale_error": err, "limit_kind": "wall", "canonical": True, "tie_break": "lex"}
        red = reduce_knapsack(tokens, profits, room, margin=1.0)
        info.update(fixed_in=len(red.fixed_in), free=len(red.free))
        try:
            positions, solver = self._solve(tokens, profits, room, red, deadline, info)
        except _Cut as cut:
            positions = cut.args[0]
            info.update(solver="time_limit", stopped="time_limit", canonical=False, tie_break="none")
            chosen = tuple(keep[p] for p in positions)
            score = math.fsum(cands[k].score for k in chosen)
            return Selection(chosen, optimal=False, upper_bound=max(score, dantzig_bound(cands, room)), info=info)
        info["solver"] = solver
        chosen = tuple(keep[p] for p in sorted(positions))
        score = math.fsum(cands[k].score for k in chosen)
        return Selection(chosen, optimal=True, upper_bound=score + err, info=info)

    def _solve(self, tokens: np.ndarray, profits: np.ndarray, room: int, red: Reduction, deadline: float,
               info: dict[str, Any]) -> tuple[list[int], str]:
        """(positions of the canonical optimum, the stage that proved it); raises `_Cut` at the limit."""
        cap = self.params["max_memory_mb"] * 2**20
        core = list(red.free)
        fixed = list(red.fixed_in)
        core_w = tokens[core]
        if not core or int(core_w.sum()) <= red.room:
            return fixed + core, "reduction"
        need, est = dp_cost(core_w, red.room)
        info["dp_estimate"] = round(est, 6)
        dp_fits = need <= cap
        if dp_fits and est <= _DP_DIRECT_SEC:
            return fixed + self._dp(core, tokens, profits, red.room, deadline, red.incumbent), "exact_dp"
        if not dp_fits:
            return self._no_dp(core, fixed, tokens, profits, room, red, deadline, info, cap)
        slice_ = min(deadline - time.perf_counter(), max(_MIN_SLICE, _PROBE_SHARE * est))
        if slice_ <= 0:
            raise _Cut(list(red.incumbent))
        found, proven, _ = bnb_knapsack(core_w.tolist(), profits[core].tolist(), red.room, slice_)
        best = self._better(fixed + [core[q] for q in found], list(red.incumbent), profits)
        if proven:
            return self._canonical(best, tokens, profits, room, deadline, info), "bnb"
        return fixed + self._dp(core, tokens, profits, red.room, deadline, best), "exact_dp"

    def _no_dp(self, core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
               red: Reduction, deadline: float, info: dict[str, Any], cap: float) -> tuple[list[int], str]:
        """No memory for the capacity DP: a branch-and-bound slice, the Pareto-list DP, then the race.

        The Pareto DP's cost depends on how many partial solutions survive, not on the room, so it
        proves instances with capacities of 10^9 whose LP bound is too weak for branch and bound.
        """
        core_w, core_p = tokens[core], profits[core]
        best = list(red.incumbent)
        slice_ = min(deadline - time.perf_counter(), _RACE_SLICE)
        if slice_ > 0:
            found, proven, _ = bnb_knapsack(core_w.tolist(), core_p.tolist(), red.room, slice_)
            best = self._better(fixed + [core[q] for q in found], best, profits)
            if proven:
                settle = functools.partial(self._pareto, core, fixed, tokens, profits, red, deadline, cap)
                return self._canonical(best, tokens, profits, room, deadline, info, settle=settle), "bnb"
        until = time.perf_counter() + _PARETO_SHARE * (deadline - time.perf_counter())
        found, proven = self._pareto(core, fixed, tokens, profits, red, until, cap)
        if proven:
            return self._canonical(found, tokens, profits, room, deadline, info, settled=found), "pareto"
        best = self._better(found, best, profits)
        return self._race(core, fixed, tokens, profits, room, red, best, deadline, info)

    @staticmethod
    def _pareto(core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray, red: Reduction,
                deadline: float, cap: float) -> tuple[list[int], bool]:
        """The Pareto-list DP on the core, started from the reduction's greedy set.

        Not from branch and bound's set: how far a wall-clock slice got must not change which
        optimum the search meets first, since that set is the tie-break of last resort.
        """
        taken = set(red.incumbent)
        start = [q for q, k in enumerate(core) if k in taken]
        found, proven = pareto_knapsack(tokens[core], profits[core], red.room, incumbent=start,
                                        deadline=deadline, max_bytes=cap)
        return fixed + [core[q] for q in found], proven

    def _race(self, core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
              red: Reduction, best: list[int], deadline: float, info: dict[str, Any]) -> tuple[list[int], str]:
        """No memory for the DP: CP-SAT races branch and bound (`race_bnb_cpsat`) for the rest of the limit."""
        where = {k: q for q, k in enumerate(core)}
        found_sets, winner = race_bnb_cpsat(tokens[core].tolist(), [int(p) for p in profits[core]], red.room,
                                            [where[k] for k in best if k in where], deadline, _RACE_SLICE,
                                            bnb=bnb_knapsack, cpsat=cpsat_knapsack)
        for found in found_sets:
            best = self._better(fixed + [core[q] for q in found], best, profits)
        if winner is None:
            raise _Cut(best)
        return self._canonical(best, tokens, profits, room, deadline, info), winner

    def _canonical(self, best: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
                   deadline: float, info: dict[str, Any], settled: list[int] | None = None,
                   settle: Callable[[], tuple[list[int], bool]] | None = None) -> list[int]:
        """The canonical optimum, given an optimal set `best`: reduce against its value - 1, DP the rest.

        Where the lexicographic tie-break does not fit, the optimum the Pareto-list DP meets first
        (`settled`, or what `settle` proves) stands in for it: not the lexicographically first, but
        the same on every run. Only when neither is reached does the set depend on the solver.
        """
        info["tie_break"] = "lex"
        canon = reduce_knapsack(tokens, profits, room, margin=1.0, known=float(profits[best].sum()))
        core, fixed = list(canon.free), list(canon.fixed_in)
        core_w = tokens[core]
        if not core or int(core_w.sum()) <= canon.room:
            return fixed + core
        cap = self.params["max_memory_mb"] * 2**20
        need, est = dp_cost(core_w, canon.room)
        # Where the DP fits, the Pareto lists go first only when they should cost under half of it
        # (few distinct sizes, as in Jooken's class at small n); their cap makes a wrong guess cheap.
        # Not on subset sum: the bitset DP is far below `est` there, and every state is on the front.
        if need > cap:
            lex_bytes = _LEX_MAX_BYTES
        elif _proportional(core_w, profits[core]):
            lex_bytes = 0.0
        else:
            lex_bytes = _lex_budget(len(core), est)
        if lex_bytes > 0:
            target = float(profits[best].sum()) - float(profits[fixed].sum())
            try:
                found = pareto_lex(core_w, profits[core], canon.room, target, deadline=deadline,
                                   max_bytes=min(cap, lex_bytes))
            except TimeoutError:
                found = None
            if found is not None:
                return fixed + [core[q] for q in found]
        if need <= cap:
            try:
                return fixed + self._dp(core, tokens, profits, canon.room, deadline, best)
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

    def _dp(self, core: list[int], tokens: np.ndarray, profits: np.ndarray, room: int, deadline: float,
            fallback) -> list[int]:
        """The lexicographic DP on the core (positions into `tokens`); `_Cut` with `fallback` at the limit.

        When every profit is the same multiple of its tokens (subset sum), the bitset DP gives the
        same set far faster.
        """
        w, p = tokens[core], profits[core]
        try:
            if _proportional(w, p) and subset_sum_bytes(w, room) <= self.params["max_memory_mb"] * 2**20:
                found, _ = subset_sum_lex(w.tolist(), room, deadline=deadline)
            else:
                found, _ = dp_knapsack(w.tolist(), p.tolist(), room, deadline=deadline)
        except TimeoutError:
            raise _Cut(list(fallback)) from None
        return [core[q] for q in found]

    @staticmethod
    def _better(a: list[int], b: list[int], profits: np.ndarray) -> list[int]:
        return a if float(profits[a].sum()) >= float(profits[b].sum()) else b
