"""Exact 0/1 knapsack by dynamic programming over the token budget (seed 001's recurrence)."""

from __future__ import annotations

from types import MappingProxyType

from ..bounds import fitting_positive
from ..items import Problem, Selection
from ..params import Param, real_in
from ..solvers.dp import dp_knapsack, dp_memory_bytes
from ..solvers.dp_kernel import warm_up as _warm_up
from .base import Strategy

# dp_knapsack and dp_memory_bytes live in solvers.dp; re-exported for existing imports.
__all__ = ["ExactDP", "dp_memory_bytes", "dp_knapsack"]


class ExactDP(Strategy):
    """Exact DP: ``dp[j] = max(dp[j], dp[j - tokens] + score)`` over capacities 0..room.

    Each item's update is one compiled pass over the capacity array (see
    `dp_knapsack`). To reconstruct the chosen set the DP keeps, per item, one
    bit per capacity saying whether taking the item is at least as good,
    packed 8 to a byte: about n * room / 8 bytes (n = 1,000, room = 32,768:
    4 MiB), plus one row of min(room, total tokens) + 1 entries (8 bytes
    each). ``max_memory_mb`` caps all of it (`dp_memory_bytes`), checked
    before anything is allocated: above it a ValueError suggests 'bnb',
    'cpsat' or 'exact'. Time is O(n * room). Scores are summed in float64;
    among optimal sets the lexicographically first one (earliest candidates
    taken) is returned, the same set `exact` returns on integral scores.

    Params:
        max_memory_mb: Cap on the decision bits, in MiB.
    """

    name = "exact_dp"
    PARAMS = MappingProxyType({
        "max_memory_mb": Param(1024.0, real_in(0.0, lo_open=True), "cap on all DP memory (MiB)"),
    })

    @staticmethod
    def warm_up() -> None:
        """Load the compiled DP (`dp_kernel.warm_up`) before anything is timed."""
        _warm_up()

    def skip(self, problem: Problem) -> str | None:
        """The memory cap is a declared refusal: the reason when the DP would need more than it."""
        keep = fitting_positive(problem.candidates, problem.room)
        weights = [problem.candidates[k].tokens for k in keep]
        if sum(weights) <= problem.room:
            return None  # everything fits: no DP
        need = dp_memory_bytes(weights, problem.room)
        if need <= self.params["max_memory_mb"] * 2**20:
            return None
        return (f"strategy 'exact_dp': needs {need / 2**20:.6g} MiB (decision bits and DP rows) for "
                f"{len(keep)} items and room {problem.room}, above max_memory_mb="
                f"{self.params['max_memory_mb']:g}; use strategy 'bnb' or 'cpsat' (or 'exact', "
                f"which reduces the instance first), or raise max_memory_mb")

    def select(self, problem: Problem) -> Selection:
        refusal = self.skip(problem)
        if refusal is not None:  # called directly, not through pack
            raise ValueError(refusal)
        cands, room = problem.candidates, problem.room
        keep = fitting_positive(cands, room)
        weights = [cands[k].tokens for k in keep]
        if sum(weights) <= room:  # everything fits: no DP, nothing to allocate
            return Selection(tuple(keep), optimal=True, upper_bound=sum(cands[k].score for k in keep),
                             info={"dp_bytes": 0})
        need = dp_memory_bytes(weights, room)
        positions, best = dp_knapsack(weights, [cands[k].score for k in keep], room)
        chosen = tuple(keep[p] for p in positions)
        return Selection(chosen, optimal=True, upper_bound=best, info={"dp_bytes": need})
