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
from ..params import Param, int_in, real_in
from ..solvers.core.lex import LEX_STATE_BYTES, lex_first
from ..solvers.core.minknap import minknap, warm_up
from ..solvers.dp import canonical_dp, dp_cost, is_subset_sum
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
# Where the Pareto lists look cheap, `pareto_lex` gets this share of the DP's estimate (in bytes)
# to find the canonical optimum in one pass, before any probe.
_LEX_FIRST_SHARE = _PROBE_SHARE
# Without memory for the DP, branch and bound races CP-SAT with slices doubling from this.
_RACE_SLICE = 0.05
# Without memory for the DP, the Pareto-list DP gets this share of the limit left after a first
# branch-and-bound slice; the race gets the rest.
_PARETO_SHARE = 0.75
# Cap on the Pareto lists the canonical tie-break stores when the capacity DP does not fit: a
# byte count, not a time, so whether the tie-break is reached does not depend on the machine.
# On Jooken's class lists past it took seconds where the Pareto-list proof took a tenth of that.
_LEX_MAX_BYTES = 64 * 2**20
# `pareto_lex`'s cost, measured on the hard families: about 40 us per item plus 4-28 ns per byte of
# lists (the budget uses 8 ns). Used only to choose between two routes to the same set.
_LEX_ITEM_SEC = 4e-5
_LEX_BYTE_SEC = 8e-9
# State visits the expanding-core search gets before the other stages take over (about 30 ns
# each): a count, not a time, so which stage proves does not depend on the machine.
_CORE_WORK = 10**8
# Where most core items weigh more than 1/64 of the room (Jooken's class: a few heavy size
# classes), the Pareto lists behind the search prove faster: the search gets 10^6 visits there.
_HEAVY_SHARE, _HEAVY_PART, _HEAVY_WORK = 0.5, 64, 10**6
# The lexicographic tie-break after the search (`lex_first`) may store this many states, or
# this many per state visit of the search, up to the most; past it the search's own set, the
# same on every run, stands in (``tie_break = "core"``). Counts, not times.
_LEX_MIN_STATES, _LEX_PER_VISIT, _LEX_MAX_STATES = 5 * 10**5, 0.5, 10**7


def _lex_bytes(w: np.ndarray, p: np.ndarray, need: int, est: float, cap: float, share: float) -> float:
    """Bytes the lexicographic Pareto lists may store on a core (0: not worth trying).

    Without memory for the capacity DP, `_LEX_MAX_BYTES`. Where the DP fits, what should cost
    `share` of its estimated time (few distinct sizes, as in Jooken's class at small n): the cap
    makes a wrong guess cheap. Never on subset sum: the bitset DP is far below `est` there, and
    every state is on the front.
    """
    if need > cap:
        return min(cap, _LEX_MAX_BYTES)
    if is_subset_sum(w, p) or len(w) * _LEX_ITEM_SEC >= share * est:
        return 0.0
    return min(cap, share * est / _LEX_BYTE_SEC)


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
    3. A core whose capacity DP is estimated under 20 ms goes to that DP at
       once (the canonical set in one pass). Otherwise the expanding-core
       search (`minknap`, compiled, Pisinger 1997) runs, for up to a fixed
       number of state visits (``work_limit`` when set, else 10^8, some 3 s; 10^6 where most core items weigh over 1/64
       of the room, as in Jooken's class, which the Pareto lists below prove
       faster): if it proves the optimum V, a reduction against V - 1 leaves
       a core, which the DP below settles where it is estimated under 20 ms;
       elsewhere compiled Pareto lists in candidate order (`lex_first`)
       find the lexicographically first set of value V, storing up to
       max(5 * 10^5, half the search's state visits, capped at 10^7)
       states; past that the search's optimum stands in
       (``info["tie_break"] = "core"``), the same on every run: the search is
       deterministic and ran within a fixed work count.
    4. Where the search runs out of work: where the Pareto lists look
       cheap, `pareto_lex` tries to find the canonical set in one pass, aiming at the greedy
       profit (lists capped at a quarter of the DP's estimate; 64 MiB without
       the DP). Next OR-Tools branch and bound probes for a quarter of the
       DP's estimate; if it proves the optimum V, the DP picks the canonical
       set on the core left by a reduction against V - 1, else the DP solves
       the core. Without memory for the DP (rooms of 10^8 and more): a short
       branch-and-bound slice, the Pareto-list DP (`pareto_knapsack`, cost
       independent of the room, started from the greedy set) for 75% of what
       is left, then CP-SAT racing branch and bound. Solvers check the clock
       between items or slices.
    5. Where no lexicographic tie-break fits (many optimal sets, as in
       Jooken's class with c = 10^9), the optimum the Pareto-list DP proves
       stands in (``info["tie_break"] = "pareto"``): also the same on every run.
    6. At the limit (or past ``work_limit``) the best set found comes back with ``optimal=False``,
       ``info["stopped"]`` and a proven bound; if only the tie-break is out of
       reach, ``info["canonical"] = False`` and ``info["tie_break"] = "none"``:
       the one case where the set can differ between runs.

    ``info["solver"]`` names the stage that proved the optimum ("trivial",
    "reduction", "minknap", "exact_dp", "pareto_lex", "bnb", "pareto", "cpsat" or
    "time_limit"); it can differ between runs on a loaded machine, the chosen
    set does not. ``info["limit_kind"]`` is "wall": the time limit is wall-clock;
    with ``work_limit`` set it is "work": only the expanding-core search runs (for
    that many state visits), so whether the optimum is proven is the same on every
    machine as long as the time limit is not reached first.

    Params:
        time_limit: Total seconds for the solvers (default 60).
        max_memory_mb: Cap on everything the DP or the search's state lists allocate, in MiB (default 1024).
        work_limit: State visits for the expanding-core search, the only stage then run besides a
            tiny DP (0: no such limit; the search gets 10^8 and the other stages follow).
    """

    name = "exact"
    PARAMS = MappingProxyType({
        "time_limit": Param(60.0, real_in(0.0, lo_open=True), "total seconds for the solvers (wall clock)"),
        "max_memory_mb": Param(1024.0, real_in(0.0, lo_open=True), "cap on all DP memory (MiB)"),
        "work_limit": Param(0, int_in(0, 10**15), "state visits for the core search alone (0: none)"),
    })

    @staticmethod
    def warm_up() -> None:
        """Load the compiled search before anything is timed (`minknap.warm_up`)."""
        warm_up()

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
        kind = "work" if self.params["work_limit"] else "wall"
        info: dict[str, Any] = {"scale_error": err, "limit_kind": kind, "canonical": True, "tie_break": "lex"}
        red = reduce_knapsack(tokens, profits, room, margin=1.0)
        info.update(fixed_in=len(red.fixed_in), free=len(red.free))
        try:
            positions, solver = self._solve(tokens, profits, room, red, deadline, info)
        except _Cut as cut:
            positions = cut.args[0]
            stopped = cut.args[1] if len(cut.args) > 1 else "time_limit"
            info.update(solver=stopped, stopped=stopped, canonical=False, tie_break="none")
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
        core, fixed = list(red.free), list(red.fixed_in)
        core_w = tokens[core]
        if not core or int(core_w.sum()) <= red.room:
            return fixed + core, "reduction"
        need, est = dp_cost(core_w, red.room)
        info["dp_estimate"] = round(est, 6)
        dp_fits = need <= cap
        if dp_fits and est <= _DP_DIRECT_SEC:  # a tiny DP: the canonical set in one pass
            return fixed + self._dp(core, tokens, profits, red.room, deadline, red.incumbent), "exact_dp"
        found = self._core_search(core, fixed, tokens, profits, red, deadline, info, cap)
        if found is not None:
            states = int(min(_LEX_MAX_STATES, max(_LEX_MIN_STATES, _LEX_PER_VISIT * info["core_work"])))
            return self._canonical(found, tokens, profits, room, deadline, info, core_set=found,
                                   lex_states=states), "minknap"
        lex_bytes = _lex_bytes(core_w, profits[core], need, est, cap, _LEX_FIRST_SHARE)
        found = self._lex_first(core, tokens, profits, red, deadline, lex_bytes) if lex_bytes else None
        if found is not None:
            return fixed + found, "pareto_lex"
        if not dp_fits:
            return self._no_dp(core, fixed, tokens, profits, room, red, deadline, info, cap, lex=not lex_bytes)
        slice_ = min(deadline - time.perf_counter(), max(_MIN_SLICE, _PROBE_SHARE * est))
        if slice_ <= 0:
            raise _Cut(list(red.incumbent))
        found, proven, _ = bnb_knapsack(core_w.tolist(), profits[core].tolist(), red.room, slice_)
        best = self._better(fixed + [core[q] for q in found], list(red.incumbent), profits)
        if proven:
            return self._canonical(best, tokens, profits, room, deadline, info), "bnb"
        return fixed + self._dp(core, tokens, profits, red.room, deadline, best), "exact_dp"

    def _core_search(self, core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray,
                     red: Reduction, deadline: float, info: dict[str, Any], cap: float) -> list[int] | None:
        """An optimal set from the expanding-core search, or None where its work budget ran out first.

        With ``work_limit`` set nothing else runs: past it `_Cut` returns the best set found.
        """
        limit = self.params["work_limit"]
        core_w = tokens[core]
        heavy = np.count_nonzero(core_w * _HEAVY_PART > red.room) >= _HEAVY_SHARE * len(core)
        res = minknap(core_w, profits[core].astype(np.int64), red.room, deadline=deadline,
                      work_limit=limit or (_HEAVY_WORK if heavy else _CORE_WORK), max_bytes=cap)
        info["core_work"] = res.work
        best = fixed + [core[q] for q in res.chosen] if res.chosen is not None else list(red.incumbent)
        best = self._better(best, list(red.incumbent), profits)
        if res.proven:
            return best
        if res.status == "time_limit" or limit:
            raise _Cut(best, res.status)
        return None

    @staticmethod
    def _lex_first(core: list[int], tokens: np.ndarray, profits: np.ndarray, red: Reduction, deadline: float,
                   max_bytes: float) -> list[int] | None:
        """The canonical optimum in one pass of `pareto_lex`, aiming at the greedy set's profit; None past the cap.

        No proof first: the lists kept for the greedy profit hold the optimum too. Where they stay
        short (few distinct sizes, as in Jooken's class) this beats branch and bound plus the tie-break.
        """
        # Every set scoring at least the greedy one contains the fixed items, so the core can reach this.
        target = float(profits[list(red.incumbent)].sum()) - float(profits[list(red.fixed_in)].sum())
        try:
            found = pareto_lex(tokens[core], profits[core], red.room, target, deadline=deadline, max_bytes=max_bytes)
        except TimeoutError:
            raise _Cut(list(red.incumbent)) from None
        return None if found is None else [core[q] for q in found]

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
                   core_set: list[int] | None = None, lex_states: int = 0) -> list[int]:
        """The canonical optimum, given an optimal set `best`: reduce against its value - 1, DP the rest.

        Where the lexicographic tie-break does not fit, the optimum the Pareto-list DP meets first
        (`settled`, or what `settle` proves) stands in for it: not the lexicographically first, but
        the same on every run. After the expanding-core search the tie-break is `lex_first`, whose
        lists may hold `lex_states` states (and the memory cap); past that `core_set`, the search's
        optimum, stands in. Only when none is reached (the time limit) does the set depend on the solver.
        """
        info["tie_break"] = "lex"
        canon = reduce_knapsack(tokens, profits, room, margin=1.0, known=float(profits[best].sum()))
        core, fixed = list(canon.free), list(canon.fixed_in)
        core_w = tokens[core]
        if not core or int(core_w.sum()) <= canon.room:
            return fixed + core
        cap = self.params["max_memory_mb"] * 2**20
        need, est = dp_cost(core_w, canon.room)
        if core_set is not None and not (need <= cap and est <= _DP_DIRECT_SEC):
            return self._core_lex(core, fixed, core_set, tokens, profits, canon.room, deadline, info,
                                  min(lex_states, cap // LEX_STATE_BYTES))
        # Where the DP fits, the lists go first when they should cost under half of it.
        lex_bytes = _lex_bytes(core_w, profits[core], need, est, cap, 0.5) if lex else 0.0
        if lex_bytes > 0:
            target = float(profits[best].sum()) - float(profits[fixed].sum())
            try:
                found = pareto_lex(core_w, profits[core], canon.room, target, deadline=deadline, max_bytes=lex_bytes)
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

    @staticmethod
    def _core_lex(core: list[int], fixed: list[int], core_set: list[int], tokens: np.ndarray, profits: np.ndarray,
                  room: int, deadline: float, info: dict[str, Any], states: float) -> list[int]:
        """The lexicographic optimum by `lex_first` on the re-reduced core; the search's set past `states`."""
        target = int(profits[core_set].sum()) - int(profits[fixed].sum())
        try:
            found = lex_first(tokens[core], profits[core].astype(np.int64), room, target, int(states), deadline)
        except TimeoutError:
            info.update(canonical=False, tie_break="none")  # the optimum stands; the tie-break ran out of time
            return core_set
        if found is None:
            info["tie_break"] = "core"
            return core_set
        return fixed + [core[q] for q in found]

    def _dp(self, core: list[int], tokens: np.ndarray, profits: np.ndarray, room: int, deadline: float,
            fallback) -> list[int]:
        """`canonical_dp` on the core (positions into `tokens`); `_Cut` with `fallback` at the limit."""
        try:
            found = canonical_dp(tokens[core], profits[core], room, deadline, self.params["max_memory_mb"] * 2**20)
        except TimeoutError:
            raise _Cut(list(fallback)) from None
        return [core[q] for q in found]

    @staticmethod
    def _better(a: list[int], b: list[int], profits: np.ndarray) -> list[int]:
        return a if float(profits[a].sum()) >= float(profits[b].sum()) else b
