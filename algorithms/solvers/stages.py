"""Stages of `exact`'s portfolio that need no solver state: the Pareto-list passes and the tie-breaks.

Each works on a core (positions into the items' arrays) left by a reduction; `Cut` carries the best
set found when a deadline ends a stage.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .core.minknap import lex_by_witness, lex_first_from, minknap
from .dp import canonical_dp
from .pareto import pareto_knapsack, pareto_lex
from .reduce import Reduction, reduce_knapsack

__all__ = ["Cut", "dp_core", "dp_reduced", "lex_first_pass", "pareto_from_greedy", "core_lex", "witness_lex",
           "better", "reduce_again", "sharpen", "VISIT_SEC", "WITNESS_SHARE", "WITNESS_MIN_SEC"]

# Before a small capacity DP breaks the tie among optima, the witness pass (`witness_lex`) from the
# proven optimum may spend WITNESS_SHARE of the DP's estimate, in state visits of the compiled search
# (about VISIT_SEC each): a count derived from the DP's size, so whether it succeeds is the same on
# every machine; where it gives up the DP runs as before, after about half its cost again. A few swaps
# and bounds give the canonical set where the DP took 11 ms (multiple_strongly_correlated, n = 1,000).
# (A probe of half the estimate before the direct DP, instead of `budgets.SHARPEN_WORK` visits, was
# measured and dropped: it proves circle at n = 100, but its tie-break and the DP after the failed
# probes cost more than it saves: circle n = 100 2.1 -> 4.2 ms, multiple_strongly 1.7 -> 2.7 ms.)
# Below WITNESS_MIN_SEC the DP goes first: its cost (0.2-0.4 ms at n = 40-70) is then below the pass's
# Python overhead per search (multiple_strongly_correlated and circle, n = 100-200: 0.4-0.7 ms).
# `exact` reads them under private names (tests patch them there).
VISIT_SEC = 3e-8
WITNESS_SHARE = 0.5
WITNESS_MIN_SEC = 1e-3


class Cut(Exception):
    """The time limit ended the search; ``args`` hold the best set found (and a status)."""


def dp_core(core: list[int], tokens: np.ndarray, profits: np.ndarray, room: int, deadline: float,
            fallback: list[int], cap: float) -> list[int]:
    """`canonical_dp` on the core (positions into `tokens`), allocating at most `cap` bytes.

    Raises:
        Cut: The deadline passed; it carries `fallback`.
    """
    try:
        at = np.asarray(core, dtype=np.int64)
        found = canonical_dp(tokens[at], profits[at], room, deadline, cap)
    except TimeoutError:
        raise Cut(list(fallback)) from None
    return [core[q] for q in found]


def dp_reduced(red: Reduction, tokens: np.ndarray, profits: np.ndarray, deadline: float, fallback,
               cap: float) -> list[int]:
    """The reduction's fixed items plus `dp_core` on its free ones (`fallback`: a set, list or array, for `Cut`)."""
    return list(red.fixed_in) + dp_core(list(red.free), tokens, profits, red.room, deadline,
                                        np.asarray(fallback).tolist(), cap)


def lex_first_pass(core: list[int], tokens: np.ndarray, profits: np.ndarray, red: Reduction, deadline: float,
                   max_bytes: float) -> list[int] | None:
    """The canonical optimum in one pass of `pareto_lex`, aiming at the greedy set's profit; None past the cap.

    No proof first: the lists kept for the greedy profit hold the optimum too. Where they stay
    short (few distinct sizes, as in Jooken's class) this beats branch and bound plus the tie-break.
    """
    # Every set scoring at least the greedy one contains the fixed items, so the core can reach this.
    target = float(profits[red.incumbent_array].sum()) - float(profits[red.fixed_array].sum())
    try:
        found = pareto_lex(tokens[core], profits[core], red.room, target, deadline=deadline, max_bytes=max_bytes)
    except TimeoutError:
        raise Cut(list(red.incumbent)) from None
    return None if found is None else [core[q] for q in found]


def pareto_from_greedy(core: list[int], fixed: list[int], tokens: np.ndarray, profits: np.ndarray,
                       red: Reduction, deadline: float, cap: float) -> tuple[list[int], bool]:
    """The Pareto-list DP on the core, started from the reduction's greedy set.

    Not from branch and bound's set: how far a wall-clock slice got must not change which
    optimum the search meets first, since that set is the tie-break of last resort.
    """
    taken = set(red.incumbent)
    start = [q for q, k in enumerate(core) if k in taken]
    found, proven = pareto_knapsack(tokens[core], profits[core], red.room, incumbent=start,
                                    deadline=deadline, max_bytes=cap)
    return fixed + [core[q] for q in found], proven


def core_lex(core: np.ndarray, fixed: np.ndarray, core_set: np.ndarray, tokens: np.ndarray, profits: np.ndarray,
             room: int, deadline: float, info: dict[str, Any], states: float) -> np.ndarray:
    """The lexicographic optimum by `lex_first` on the re-reduced core; the search's set past `states`.

    Positions as int64 arrays in and out (`core`, `fixed`: the reduction's): at 10,000 items
    reading lists into numpy and back took about a quarter of `exact`'s call (cProfile).
    """
    at, fixed = np.asarray(core, dtype=np.int64), np.asarray(fixed, dtype=np.int64)
    core_set = np.asarray(core_set, dtype=np.int64)
    target = int(profits[core_set].sum()) - int(profits[fixed].sum())
    try:
        inside = np.zeros(len(tokens), dtype=np.bool_)
        inside[core_set] = True  # the search's optimum, a witness for the tie-break
        found = lex_first_from(tokens[at], profits[at].astype(np.int64), room, target, int(states),
                               np.flatnonzero(inside[at]), deadline)
    except TimeoutError:
        info.update(canonical=False, tie_break="none")  # the optimum stands; the tie-break ran out of time
        return core_set
    if found is None:
        info["tie_break"] = "core"
        return core_set
    return np.concatenate((fixed, at[np.asarray(found, dtype=np.int64)]))


def witness_lex(core: np.ndarray, fixed: np.ndarray, core_set, tokens: np.ndarray, profits: np.ndarray,
                room: int, deadline: float, work: int) -> np.ndarray | None:
    """The lexicographic optimum from the witness `core_set` within `work` visits; None past them or the deadline.

    Args:
        core: Positions (into `tokens`, int64) a reduction against the optimum's value - 1 left open.
        fixed: The positions it fixed in (every optimum holds them).
        core_set: An optimal set (positions), containing `fixed`.
        tokens, profits: The items' weights and integral profits.
        room: The core's capacity.
        deadline: A `time.perf_counter()` value.
        work: State visits the pass may spend.

    Returns:
        `fixed` plus the lexicographically first optimal core set (an int64 array), or None (the caller's DP decides).
    """
    at, fixed = np.asarray(core, dtype=np.int64), np.asarray(fixed, dtype=np.int64)
    inside = np.zeros(len(tokens), dtype=np.bool_)
    inside[np.asarray(core_set, dtype=np.int64)] = True
    mask = inside[at]  # the witness's core items (a scatter: no sort, as `np.isin` would)
    target = int(profits[core_set].sum()) - int(profits[fixed].sum())
    w, p = tokens[at].astype(np.int64, copy=False), profits[at].astype(np.int64)
    if int(w[mask].sum()) > room or int(p[mask].sum()) < target:
        return None  # not a witness on this core (cannot happen after a reduction against its value)
    try:
        found = lex_by_witness(w, p, int(room), target, mask, int(work), deadline)
    except TimeoutError:
        return None
    return None if found is None else np.concatenate((fixed, at[np.asarray(found, dtype=np.int64)]))


def better(a, b, profits: np.ndarray):
    """The set of the two (lists or int64 arrays of positions) with the higher profit (`a` on a tie)."""
    return a if float(profits[a].sum()) >= float(profits[b].sum()) else b


def sharpen(core: np.ndarray, tokens: np.ndarray, profits: np.ndarray, room: int, red: Reduction,
            deadline: float, cap: float, work: int,
            order: np.ndarray | None = None) -> tuple[Reduction, np.ndarray, int | None]:
    """`work` visits of the expanding-core search: (reduction, best set, visits if that set is proven optimal).

    Proven (the third entry not None): the set is an optimum; the reduction is `red` unchanged.
    Otherwise every optimum scores at least as much as any set found, so the reduction against it
    (margin 1) keeps every optimum: the DP on its core finds the same canonical set, on fewer items.
    Where the search finds nothing better than the greedy set, `red` and that set come back.
    `order`: `reduce.density_order(tokens, profits)` where the caller has it (that reduction sorts nothing).
    """
    at = np.asarray(core, dtype=np.int64)
    res = minknap(tokens[at], profits[at].astype(np.int64), red.room, deadline=deadline,
                  work_limit=work, max_bytes=cap)
    best = red.incumbent_array
    if res.chosen is None:
        return red, best, None
    found = np.concatenate((red.fixed_array, at[res.at]))
    known = float(profits[found].sum())
    if res.proven:
        return red, (found if known >= red.incumbent_score else best), res.work
    if known <= red.incumbent_score:
        return red, best, None
    return reduce_knapsack(tokens, profits, room, margin=1.0, known=known, order=order), found, None


def reduce_again(tokens: np.ndarray, profits: np.ndarray, room: int, known: float, order: np.ndarray | None,
                 first: Reduction | None) -> Reduction:
    """`reduce_knapsack` at margin 1 against `known`, or `first` (that call with no known score) where equal.

    The fixings hold against max(incumbent, known) - 1, so where `known` is no higher than `first`'s
    incumbent score every output is the same, bit for bit. On most hard families the greedy set is
    optimal: that saves the second reduction (at n = 10,000, spanner_uncorrelated: 0.6 ms of 2.4 when
    measured; 0.1 ms since the kernel's LP value is inlined, plus the sort of its inputs).
    """
    if first is not None and known <= first.incumbent_score:
        return first
    return reduce_knapsack(tokens, profits, room, margin=1.0, known=known, order=order)
