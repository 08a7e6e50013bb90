"""`exact`: a portfolio of exact knapsack solvers that returns one canonical proven optimum."""

from __future__ import annotations

import math
import threading
import time
from types import MappingProxyType
from typing import Any

import numpy as np

from ..bounds import dantzig_bound, fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from ..solvers.dp import dp_cost, dp_knapsack, subset_sum_bytes, subset_sum_lex
from ..solvers.pareto import pareto_knapsack, pareto_lex
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
# CP-SAT overshoots its wall limit by up to a tenth of a second on a loaded machine: ask for less.
# Its start-up (model, presolve) takes a few tenths of a second at 2,000 items and ignores the
# limit, so below _CP_MIN_SEC left only branch and bound runs.
_CP_MARGIN = 0.1
_CP_MIN_SEC = 1.0
# Without memory for the DP, the Pareto-list DP gets this share of the limit left after a first
# branch-and-bound slice; the race gets the rest.
_PARETO_SHARE = 0.75
# Cap on the Pareto lists the canonical tie-break stores when the capacity DP does not fit: a
# byte count, not a time, so whether the tie-break is reached does not depend on the machine.
_LEX_MAX_BYTES = 256 * 2**20


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
       DP (`pareto_knapsack`, whose cost does not depend on the room) for 60%
       of what is left, then CP-SAT (in a thread, started from the best set)
       races branch and bound (rerun with doubling slices) for the rest of the
       limit; the first proof stops the other. The canonical set then comes
       from the capacity DP on the V - 1 core, or, when that does not fit
       either, from `pareto_lex` with its lists capped at 256 MiB. Every solver
       checks the clock between items or slices, so the limit is honoured.
    4. If the limit ends the search the best set found comes back with
       ``optimal=False``, ``info["stopped"]`` and a proven bound; if only the
       canonical DP is out of reach (memory or time), branch and bound's
       optimum comes back with ``info["canonical"] = False``.

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
                             info={"solver": "trivial", "free": 0, "canonical": True, "limit_kind": "wall"})
        tokens = np.array([cands[k].tokens for k in keep], dtype=np.int64)
        profits_l, _, err = integer_profits(scores_f)
        profits = np.array(profits_l, dtype=np.float64)  # < 2**50 in total: float sums are exact
        info: dict[str, Any] = {"scale_error": err, "limit_kind": "wall", "canonical": True}
        red = reduce_knapsack(tokens, profits, room, margin=1.0)
        info.update(fixed_in=len(red.fixed_in), free=len(red.free))
        try:
            positions, solver = self._solve(tokens, profits, room, red, deadline, info)
        except _Cut as cut:
            positions = cut.args[0]
            info.update(solver="time_limit", stopped="time_limit", canonical=False)
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
                return self._canonical(best, tokens, profits, room, deadline, info), "bnb"
        until = time.perf_counter() + _PARETO_SHARE * (deadline - time.perf_counter())
        taken = set(best)
        start = [q for q, k in enumerate(core) if k in taken]
        found, proven = pareto_knapsack(core_w, core_p, red.room, incumbent=start, deadline=until, max_bytes=cap)
        best = self._better(fixed + [core[q] for q in found], best, profits)
        if proven:
            return self._canonical(best, tokens, profits, room, deadline, info), "pareto"
        return self._race(core, fixed, tokens, profits, room, red, best, deadline, info)

    def _race(self, core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
              red: Reduction, best: list[int], deadline: float, info: dict[str, Any]) -> tuple[list[int], str]:
        """No memory for the DP: CP-SAT in a thread (it releases the GIL) races branch and bound.

        Branch and bound cannot be resumed, so it reruns with doubling slices and the race is
        checked between them: the total stays within about twice the faster solver's time.
        """
        core_w, core_p = tokens[core].tolist(), [int(p) for p in profits[core]]
        where = {k: q for q, k in enumerate(core)}
        stop, handle, out = threading.Event(), [], {}

        def run_cpsat() -> None:
            try:
                out["cp"] = cpsat_knapsack(core_w, core_p, red.room, deadline - _CP_MARGIN - time.perf_counter(),
                                           hint=[where[k] for k in best if k in where], stop=stop, handle=handle)
            except Exception as exc:  # noqa: BLE001 - re-raised in the calling thread
                out["error"] = exc

        thread = threading.Thread(target=run_cpsat, name="exact-cpsat", daemon=True)
        racing = deadline - time.perf_counter() >= _CP_MIN_SEC
        if racing:
            thread.start()
        # OR-Tools' branch and bound holds the GIL while it searches, so CP-SAT's model (built in
        # Python) would only grow between slices: wait until its solver exists (its search then
        # runs without the GIL).
        while not handle and thread.is_alive() and time.perf_counter() < deadline:
            time.sleep(0.001)
        slice_, winner = _RACE_SLICE, None
        try:
            while (not racing or thread.is_alive()) and (left := deadline - time.perf_counter()) > 0:
                found, proven, _ = bnb_knapsack(core_w, core_p, red.room, min(slice_, left))
                best = self._better(fixed + [core[q] for q in found], best, profits)
                if proven:
                    winner = "bnb"
                    break
                slice_ *= 2
        finally:
            stop.set()
            while thread.is_alive():
                for solver in handle:
                    solver.stop_search()
                thread.join(0.02)
        if "error" in out:
            raise out["error"]
        found_c, proven_c, _, _ = out.get("cp") or (None, False, None, "")
        if found_c is not None:
            best = self._better(fixed + [core[q] for q in found_c], best, profits)
        if winner is None and proven_c:
            winner = "cpsat"
        if winner is None:
            raise _Cut(best)
        return self._canonical(best, tokens, profits, room, deadline, info), winner

    def _canonical(self, best: list[int], tokens: np.ndarray, profits: np.ndarray, room: int,
                   deadline: float, info: dict[str, Any]) -> list[int]:
        """The canonical optimum, given an optimal set `best`: reduce against its value - 1, DP the rest."""
        canon = reduce_knapsack(tokens, profits, room, margin=1.0, known=float(profits[best].sum()))
        core, fixed = list(canon.free), list(canon.fixed_in)
        core_w = tokens[core]
        if not core or int(core_w.sum()) <= canon.room:
            return fixed + core
        cap = self.params["max_memory_mb"] * 2**20
        if dp_cost(core_w, canon.room)[0] <= cap:
            try:
                return fixed + self._dp(core, tokens, profits, canon.room, deadline, best)
            except _Cut:
                pass
        else:
            target = float(profits[best].sum()) - float(profits[fixed].sum())
            try:
                found = pareto_lex(core_w, profits[core], canon.room, target, deadline=deadline,
                                   max_bytes=min(cap, _LEX_MAX_BYTES))
            except TimeoutError:
                found = None
            if found is not None:
                return fixed + [core[q] for q in found]
        info["canonical"] = False  # the optimum stands; only the tie-break is out of reach
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
