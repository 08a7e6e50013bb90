"""Exact 0/1 knapsack by an expanding core (Pisinger 1997, "A minimal algorithm for the 0-1 knapsack problem").

Sort by efficiency, start from the break solution, grow the core outward one item at a
time keeping only undominated (weight, profit) states, and drop states whose Dantzig
bound on the items outside the core cannot beat the best set found (`kernel.search`).
Cost follows the states that survive, not n x capacity: uncorrelated and correlated
instances with n = 100,000 and capacities of 10^8 are solved in milliseconds.

The set is rebuilt without storing the states: each state carries the decisions of its
last 64 core steps, and the items of earlier steps are found by the same search on them
alone, with the later decisions fixed and the profit they must reach as the bar.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .bounds import _AFFINE_TRIES, affine_step
from .clock import CLOCK_ID, to_clock
from .heavy import HEAVY_ITEM_BYTES, HEAVY_STATE_BYTES, MAX_CLASS, weight_classes
from .kernel import STATE_BYTES, greedy_rest, search, surrogate_bound
from .pairing import PAIR_BYTES, PAIR_BYTES_PER_ITEM
from .lex import lex_first, tree_in_order
from .witness import QUERY_SHARE, WITNESS_SHARE, advance, item_kinds

__all__ = ["MEMORY_LIMIT", "PROVEN", "TIME_LIMIT", "WORK_LIMIT", "MinknapResult", "efficiency_order", "lex_by_witness",
           "lex_first_from", "minknap", "minknap_bytes", "warm_up"]

PROVEN, TIME_LIMIT, WORK_LIMIT, MEMORY_LIMIT = "proven", "time_limit", "work_limit", "memory_limit"
_STATUS = (PROVEN, TIME_LIMIT, WORK_LIMIT, MEMORY_LIMIT)
_BITS = 64
# Bytes per item the search allocates besides the states (prefix sums, step records, order, copies).
_ITEM_BYTES = 64
# The search first runs for this many state visits; if it has not proven by then, the
# surrogate cardinality bound (a few sorts of the items) tries to prove its best set
# optimal before the search starts again with the whole budget.
_PROBE_WORK = 10**6
_SURROGATE_ROUNDS = 30


@dataclass(frozen=True)
class MinknapResult:
    """What one `minknap` call found.

    Attributes:
        chosen: Positions of the best set found, increasing (None when none beats `lower`).
        value: Its profit (`lower` when `chosen` is None).
        status: PROVEN (no better set exists), TIME_LIMIT, WORK_LIMIT or MEMORY_LIMIT.
        work: State visits, the deterministic measure `work_limit` caps.
        at: `chosen` as an int64 array (None with it): callers index with it, reading no list.
    """

    chosen: list[int] | None
    value: int
    status: str
    work: int
    at: np.ndarray | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.at is None and self.chosen is not None:  # built from a list alone: the array too
            object.__setattr__(self, "at", np.asarray(self.chosen, dtype=np.int64))

    @property
    def proven(self) -> bool:
        return self.status == PROVEN


def minknap_bytes(n: int, max_states: int, classes: int = 0) -> int:
    """Bytes a search over `n` items may allocate when its lists hold up to `max_states` states.

    `classes`: how many weight classes the class bound tracks (`heavy.weight_classes`; 0 on most instances).
    """
    per_state = STATE_BYTES + (HEAVY_STATE_BYTES if classes else 0)
    return per_state * max_states + (_ITEM_BYTES + PAIR_BYTES_PER_ITEM + HEAVY_ITEM_BYTES * classes) * n + PAIR_BYTES


def _max_states(n: int, classes: int, max_bytes: float) -> int:
    """Most states `minknap_bytes` allows within `max_bytes`."""
    rest = max_bytes - minknap_bytes(n, 0, classes)
    return int(rest // (STATE_BYTES + (HEAVY_STATE_BYTES if classes else 0)))


def minknap(tokens, profits, room: int, *, lower: int = -1, deadline: float | None = None,
            work_limit: int = 0, max_bytes: float = 2**30) -> MinknapResult:
    """Maximise sum(profits[k] x_k) s.t. sum(tokens[k] x_k) <= room over x in {0, 1}^n.

    Args:
        tokens: Positive integer weights, each <= room.
        profits: Positive integer profits, total below 2**53.
        room: Capacity (>= 0).
        lower: Only sets scoring more than this count (-1: any set).
        deadline: A `time.perf_counter()` value, checked inside the compiled loop after each core step.
        work_limit: Stop after this many state visits (0: none): a limit that is the same on every machine.
        max_bytes: Cap on all the search allocates; the lists never grow past it (checked before allocating).

    Returns:
        The `MinknapResult`. The search is deterministic: the same input gives the same set.
    """
    w, p = np.ascontiguousarray(tokens, dtype=np.int64), np.ascontiguousarray(profits, dtype=np.int64)
    order = efficiency_order(w, p)
    return _sorted_search(w[order], p[order], order, int(room), int(lower), to_clock(deadline), int(work_limit),
                          max_bytes)


def efficiency_order(w: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Positions by profit/weight, best first, equal ratios by position: the order the search visits items in.

    The order of a subset of the items is this one restricted to it, so a caller asking many
    searches over subsets (`lex_by_witness`) sorts once.
    """
    return np.argsort(-(p / np.maximum(w, 1)), kind="stable")


def _classes(w: np.ndarray, room: int) -> np.ndarray:
    """`heavy.weight_classes`, skipped where at most one item weighs over room / (MAX_CLASS + 1).

    A class j needs more than j >= 1 such items, so that one count proves there are none (the usual case).
    """
    if np.count_nonzero(w > room // (MAX_CLASS + 1)) <= 1:
        return np.zeros(0, dtype=np.int64)
    return weight_classes(w, room)


def _sorted_search(ws: np.ndarray, ps: np.ndarray, order: np.ndarray, room: int, lower: int, clock_deadline: float,
                   work_limit: int, max_bytes: float) -> MinknapResult:
    """`minknap` on int64 items already in `efficiency_order`; `order[q]`: the position reported for item q."""
    n = len(ws)
    classes = _classes(ws, room)
    n_classes = len(classes)
    max_states = _max_states(n, n_classes, max_bytes)
    if max_states < 2:
        return MinknapResult(None, lower, MEMORY_LIMIT, 0)
    taken, free = np.zeros(n, dtype=bool), np.ones(n, dtype=bool)  # free: decisions still open (sorted positions)
    need_room, need_value, total_work, first = room, lower, 0, None
    probe = _PROBE_WORK if not work_limit or work_limit > _PROBE_WORK else 0
    while True:
        idx = np.flatnonzero(free)
        if len(idx) < n and n_classes:  # a rebuild (less room: maybe other classes), never more than counted
            classes = weight_classes(ws[idx], need_room)[:n_classes]
        out = search(ws[idx], ps[idx], need_room, need_value, CLOCK_ID, clock_deadline,
                     int(probe or work_limit), max_states, classes)
        status, value, step, bits, seq, adds, brk, work, swap_out, swap_in, paired = out
        total_work += int(work)
        # The probe ran out of work. Past the deadline that is a time limit: the surrogate bound
        # (30 sorts of the items) would run past it under load.
        if probe and first is None and status == 2 and time.clock_gettime(CLOCK_ID) >= clock_deadline:
            status = 1
        if probe and first is None and status == 2:
            most = int(np.searchsorted(np.cumsum(np.sort(ws)), need_room, side="right"))  # largest set size
            total_work += _SURROGATE_ROUNDS * n
            if surrogate_bound(ws, ps, need_room, most, value, _SURROGATE_ROUNDS) <= value:
                status = 0
            else:
                status, value, step, bits, seq, adds, brk, work, swap_out, swap_in, paired = search(
                    ws[idx], ps[idx], need_room, need_value, CLOCK_ID, clock_deadline, int(work_limit), max_states,
                    classes)
                total_work += int(work)
        if first is None:
            first = (int(value), _STATUS[status])
            # A rebuild searches a few core items against a bar their set reaches: no limits
            # (the probe's work cap too: a rebuild stopped by it would lose the set).
            clock_deadline, work_limit, probe = to_clock(None), 0, 0
        if step == -2:
            if len(idx) == n:  # nothing beats `lower`
                return MinknapResult(None, int(lower), first[1], total_work)
            raise RuntimeError("minknap: a rebuild lost the set it was rebuilding")  # pragma: no cover
        part = np.zeros(len(idx), dtype=bool)
        part[:brk] = True  # the break solution, then the decisions the bits know
        if step == -1:  # the greedy set: the break prefix, then every later item that fits
            greedy_rest(ws[idx], brk, need_room, part)
            taken[idx[part]] = True
            break
        if step == -3:  # the break solution with one item swapped out for one after it
            part[swap_out], part[swap_in] = False, True
            taken[idx[part]] = True
            break
        known_from = max(0, step + 1 - _BITS)
        for q in range(known_from, step + 1):
            bit = (int(bits) >> (step - q)) & 1
            part[seq[q]] = bool(bit) if adds[q] else not bit
        part[paired] = ~part[paired]  # the state's items outside the core (`pairing`): not in the window, fixed below
        if known_from == 0:
            taken[idx[part]] = True
            break
        # The items of the steps before the window are searched again, everything else fixed.
        open_ = np.zeros(len(idx), dtype=bool)
        open_[seq[:known_from]] = True
        fixed = part & ~open_
        taken[idx[fixed]] = True
        free[idx[~open_]] = False
        need_room -= int(ws[idx[fixed]].sum())
        need_value = int(value) - int(ps[idx[fixed]].sum()) - 1  # the open items must reach the rest
    at = np.sort(order[taken])
    return MinknapResult(at.tolist(), first[0], first[1], total_work, at)


def lex_by_witness(w: np.ndarray, p: np.ndarray, room: int, target: int, witness: np.ndarray,
                   work: int, deadline: float | None = None) -> list[int] | None:
    """The lexicographically first set reaching `target`, given `witness` (a bool mask of one); None past `work`.

    See `witness` for the rule; `_witness_pass` also says why it gave up.
    """
    return _witness_pass(w, p, room, target, witness, work, deadline)[0]


def _witness_pass(w: np.ndarray, p: np.ndarray, room: int, target: int, witness: np.ndarray,
                  work: int, deadline: float | None = None) -> tuple[list[int] | None, bool]:
    """(`lex_by_witness`'s answer, True when one search alone outran its share of `work`).

    Args:
        w, p: int64 weights (each <= room) and profits, in position order.
        room: Capacity.
        target: The profit to reach (the optimum's value).
        witness: A set that fits and reaches `target`.
        work: State visits the searches may spend together (each at most half of it, `witness.QUERY_SHARE`).
        deadline: A `time.perf_counter()` value for the searches.

    Returns:
        (increasing positions, or None when the searches would need more than `work` visits;
        whether one search alone needed more than 1/QUERY_SHARE of it).

    Raises:
        TimeoutError: The deadline passed.
    """
    n, budget = len(w), work
    chosen = np.array(witness, dtype=np.bool_)
    kind, n_kinds = item_kinds(w, p)
    # The tree and each search run on the items (after k, that fit) in the efficiency order: sorted once here.
    order, clock_deadline = efficiency_order(w, p), to_clock(deadline)
    items_tree = tree_in_order(w, p, order)
    acc = np.array([0, 0, int(w[chosen].sum()), int(p[chosen].sum()), 0, 0], dtype=np.int64)
    slope, ga = affine_step(w, p, int(np.gcd.reduce(p)), _AFFINE_TRIES) if n else (0, 1)
    w_sorted, p_sorted, k = w[order], p[order], 0
    while True:
        k = advance(w, p, kind, n_kinds, int(room), int(target), chosen, k, items_tree, acc, slope, ga, order)
        if k >= n:
            return np.flatnonzero(chosen).tolist(), False
        if work <= 0:
            return None, False
        left, need = int(room) - int(acc[0]) - int(w[k]), int(target) - int(acc[1]) - int(p[k])
        keep = (order > k) & (w_sorted <= left)
        res = _sorted_search(w_sorted[keep], p_sorted[keep], order[keep], left, need - 1, clock_deadline,
                             max(1, min(work, budget // QUERY_SHARE)), 2**30) if keep.any() else None
        work -= int(np.count_nonzero(keep))  # the search's setup (its items' order) counts as a visit per item
        if res is not None:
            work -= res.work
            if res.status == TIME_LIMIT:
                raise TimeoutError("lex_by_witness: deadline passed")
        if need <= 0 or (res is not None and res.chosen is not None):
            chosen[k:] = False
            chosen[k] = True
            if res is not None and res.chosen is not None:
                chosen[res.chosen] = True  # positions into w: `order` maps the search's items back
            acc[0] += w[k]
            acc[1] += p[k]
            acc[2], acc[3] = int(w[chosen].sum()), int(p[chosen].sum())
        elif res is not None and res.status != PROVEN:
            return None, res.work >= budget // QUERY_SHARE
        k += 1  # item k left the tree in `advance`; its decision is made


def lex_first_from(tokens, profits, room: int, target: int, max_states: int, witness,
                   deadline: float | None = None) -> list[int] | None:
    """`lex.lex_first`, given positions of a set reaching `target`: the same set, usually far cheaper.

    The witness pass (`lex_by_witness`) runs first on a quarter of `max_states` state visits; past
    that, `lex_first`'s lists with `max_states` (None past their cap, as there). Where one search of
    the pass alone outran half of its budget, it is as hard as the proof was (circle), and the
    lists are not tried: None. On the hard families' seed 0 the lists failed their cap on every
    instance where the pass gave up, after 15-80 ms.

    Raises:
        ValueError: No set reaches `target` (from `lex_first`).
        TimeoutError: The deadline passed.
    """
    w, p = np.ascontiguousarray(tokens, dtype=np.int64), np.ascontiguousarray(profits, dtype=np.int64)
    mask = np.zeros(len(w), dtype=np.bool_)
    mask[np.asarray(witness, dtype=np.int64)] = True
    if len(w) and int(w[mask].sum()) <= room and int(p[mask].sum()) >= target:
        found, hopeless = _witness_pass(w, p, int(room), int(target), mask, int(max_states) // WITNESS_SHARE, deadline)
        if found is not None or hopeless:
            return found
    return lex_first(w, p, room, target, max_states, deadline)


def warm_up() -> None:
    """Load the compiled kernels (from numba's cache, or compile them on a first install).

    The first call in a process costs about half a second with the cache on disk, tens of
    seconds without it; call this before timing anything. Later calls cost microseconds.
    """
    minknap([2, 3, 4], [3, 4, 5], 5)
    greedy_rest(np.array([2, 3, 1], dtype=np.int64), 1, 3, np.zeros(3, dtype=np.bool_))
    lex_first([2, 3, 4], [3, 4, 5], 5, 7, 100)
    lex_first_from([2, 3, 4, 3], [3, 4, 5, 4], 5, 7, 100, [0, 1])  # the witness pass, with one search
    surrogate_bound(np.arange(1, 9), np.arange(1, 9) + 3, 12, 3, 0, 2)
