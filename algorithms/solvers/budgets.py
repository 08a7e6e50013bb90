"""The budgets of `exact`'s portfolio: shares of an estimate, slices, caps and work counts.

Counts and byte caps (not times) decide which stage proves an instance wherever the answer must not
depend on the machine; the time shares only split a wall-clock limit among stages that return the same
set. `strategies.exact` reads them under its own private names (tests patch them there).
"""

from __future__ import annotations

__all__ = ["DP_DIRECT_SEC", "PROBE_SHARE", "MIN_SLICE", "LEX_FIRST_SHARE", "RACE_SLICE", "PARETO_SHARE",
           "LEX_MAX_BYTES", "LEX_ITEM_SEC", "LEX_BYTE_SEC", "CORE_WORK", "HEAVY_SHARE", "HEAVY_PART",
           "HEAVY_WORK", "LEX_MIN_STATES", "LEX_PER_VISIT", "LEX_MAX_STATES", "GUARD_SEC", "GUARD_SHARE",
           "SHARPEN_MIN_SEC", "SHARPEN_SHARE", "SHARPEN_WORK"]

# A DP estimated below this runs at once: a branch-and-bound probe would cost as much. In the units of
# `dp.dp_cost`'s model, which the compiled DP beats 3.0-3.7x on the hard families' cores (2.0-2.8x on
# Jooken's): 60 ms there is about 20 ms of DP. Raised from 20 ms, it sends two seed-0 cores the search
# proved slowly to the DP (spanner_weakly n = 500: 14.4 -> 9.7 ms CPU; circle n = 500: 41.7 -> 16.6 ms,
# and the tie-break "core" -> "lex"); on seed 5 no choice changed.
DP_DIRECT_SEC = 0.06
# Otherwise branch and bound probes first, for this share of the DP's estimate (at least the
# minimum slice); the DP, if it fits, then finishes within about (1 + share) times its own time.
PROBE_SHARE = 0.25
MIN_SLICE = 0.005
# Where the Pareto lists look cheap, `pareto_lex` gets this share of the DP's estimate (in bytes)
# to find the canonical optimum in one pass, before any probe.
LEX_FIRST_SHARE = PROBE_SHARE
# Without memory for the DP, branch and bound races CP-SAT with slices doubling from this.
RACE_SLICE = 0.05
# Without memory for the DP, the Pareto-list DP gets this share of the limit left after a first
# branch-and-bound slice; the race gets the rest.
PARETO_SHARE = 0.75
# Cap on the Pareto lists the canonical tie-break stores when the capacity DP does not fit: a
# byte count, not a time, so whether the tie-break is reached does not depend on the machine.
# On Jooken's class lists past it took seconds where the Pareto-list proof took a tenth of that.
LEX_MAX_BYTES = 64 * 2**20
# `pareto_lex`'s cost, measured on the hard families: about 40 us per item plus 4-28 ns per byte of
# lists (the budget uses 8 ns). Used only to choose between two routes to the same set.
LEX_ITEM_SEC = 4e-5
LEX_BYTE_SEC = 8e-9
# State visits the expanding-core search gets before the other stages take over (about 30 ns
# each): a count, not a time, so which stage proves does not depend on the machine.
CORE_WORK = 10**8
# Where most core items weigh more than 1/64 of the room (Jooken's class: a few heavy size
# classes), the Pareto lists behind the search prove faster: the search gets 10^6 visits there.
HEAVY_SHARE, HEAVY_PART, HEAVY_WORK = 0.5, 64, 10**6
# The lexicographic tie-break after the search (`lex_first`) may store this many states, or
# this many per state visit of the search, up to the most; past it the search's own set, the
# same on every run, stands in (``tie_break = "core"``). Counts, not times.
LEX_MIN_STATES, LEX_PER_VISIT, LEX_MAX_STATES = 5 * 10**5, 0.5, 10**7
# The stages aim at the time limit minus a guard: this share of it, at most GUARD_SEC. Steps that
# cannot be cut (a Pareto merge, OR-Tools' clock checks at growing intervals, the result's assembly)
# then end within the limit even when a loaded machine stretches them (0.2-0.25 s past it before).
GUARD_SEC, GUARD_SHARE = 0.1, 0.1
# Before a direct DP estimated above SHARPEN_MIN_SEC the expanding-core search runs for SHARPEN_WORK
# state visits (a count: the same on every machine). Where that proves the optimum (the bound meets the
# greedy set at once on the spanner classes and profit_ceiling: 0-2 visits), the witness tie-break
# gives the canonical set without the DP (profit_ceiling n = 1,000: 12.1 -> 1.5 ms CPU; spanner_strongly
# n = 500: 15.5 -> 1.2 ms). Otherwise the reduction against its best set leaves a smaller core to the DP
# (multiple_strongly_correlated, n = 200: an estimate of 5.2 ms became 0.6 ms); where it finds nothing
# better (circle, spanner_weakly) the probe costs about 0.2 ms.
# The probe gets more where the DP is dearer: SHARPEN_SHARE of its estimate in visits of `stages.VISIT_SEC`
# (about 40,000 at the 60 ms cut-off), so an instance the search proves in a few thousand visits is not left
# to a DP ten times its cost. (Larger probes were measured and dropped: at n = 100-200 the compiled DP beats
# the search and its tie-break, e.g. circle n = 100 0.66 -> 1.8 ms with 10^5 visits.)
SHARPEN_MIN_SEC, SHARPEN_WORK, SHARPEN_SHARE = 1e-3, 2000, 0.02
