"""The search's shortcuts for repeated calls: one sort per witness pass, the class test's early exit, the greedy fill.

`lex_by_witness` sorts the items once and hands each search the sorted items after k that fit;
that must be exactly the search `minknap` runs on those items (same set, value, status, work),
since the pass's work count decides whether it gives up. The one-count exit of the class test
must give the classes `heavy.weight_classes` gives, and the compiled greedy fill the first-fit set.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packbench.algorithms.solvers.core.clock import to_clock
from packbench.algorithms.solvers.core.heavy import weight_classes
from packbench.algorithms.solvers.core.kernel import greedy_rest
from packbench.algorithms.solvers.core.minknap import (_classes, _sorted_search, efficiency_order,
                                                       minknap)

items_case = st.tuples(
    st.lists(st.tuples(st.integers(1, 40), st.integers(1, 40)), min_size=1, max_size=24),
    st.integers(0, 23), st.floats(0.0, 1.0), st.integers(-1, 60))


@settings(max_examples=400, deadline=None)
@given(case=items_case)
def test_a_search_on_presorted_items_after_k_is_minknaps_search_on_them(case):
    pairs, k, frac, lower = case
    w = np.array([x for x, _ in pairs], np.int64)
    p = np.array([y for _, y in pairs], np.int64)
    k = min(k, len(w) - 1)
    left = int(frac * int(w.sum()))
    order = efficiency_order(w, p)
    keep = (order > k) & (w[order] <= left)
    later = np.array([q for q in range(k + 1, len(w)) if w[q] <= left], np.int64)
    if not len(later):
        assert not keep.any()
        return
    got = _sorted_search(w[order][keep], p[order][keep], order[keep], left, lower, to_clock(None), 0, 2**30)
    want = minknap(w[later], p[later], left, lower=lower)
    assert (got.value, got.status, got.work) == (want.value, want.status, want.work)
    assert got.chosen == (None if want.chosen is None else [int(later[q]) for q in want.chosen])


def test_the_efficiency_order_breaks_ties_by_position():
    w = np.array([2, 1, 4, 3, 2], np.int64)
    p = np.array([4, 2, 4, 9, 4], np.int64)  # ratios 2, 2, 1, 3, 2
    assert efficiency_order(w, p).tolist() == [3, 0, 1, 4, 2]
    assert efficiency_order(w, p).tolist() == np.lexsort((np.arange(5), -(p / w))).tolist()


@settings(max_examples=600, deadline=None)
@given(w=st.lists(st.integers(1, 100), min_size=0, max_size=12), c=st.integers(1, 120))
def test_the_class_tests_early_exit_gives_the_same_classes(w, c):
    arr = np.array([x for x in w if x <= c], np.int64)
    assert _classes(arr, c).tolist() == weight_classes(arr, c).tolist()


def test_two_items_over_half_the_room_make_a_class():
    # The exit must not fire on two heavy items: no set holds both (class 1).
    arr = np.array([6, 7, 1], np.int64)
    assert _classes(arr, 10).tolist() == weight_classes(arr, 10).tolist() == [1]


@settings(max_examples=300, deadline=None)
@given(w=st.lists(st.integers(1, 30), min_size=1, max_size=20), brk=st.integers(0, 20), extra=st.integers(0, 60))
def test_the_greedy_fill_takes_every_later_item_that_fits_in_order(w, brk, extra):
    arr = np.array(w, np.int64)
    brk = min(brk, len(arr))
    room = int(arr[:brk].sum()) + extra
    part = np.zeros(len(arr), dtype=np.bool_)
    part[:brk] = True
    greedy_rest(arr, brk, room, part)
    used, want = int(arr[:brk].sum()), [True] * brk
    for x in w[brk:]:
        want.append(used + x <= room)
        used += x if want[-1] else 0
    assert part.tolist() == want


@settings(max_examples=300, deadline=None)
@given(w=st.lists(st.integers(1, 10**6), min_size=0, max_size=30), room=st.integers(0, 3 * 10**6))
def test_dp_costs_byte_count_is_dp_memory_bytes(w, room):
    from packbench.algorithms.solvers.dp import dp_cost, dp_memory_bytes

    kept = [x for x in w if x <= room]
    assert dp_cost(np.array(kept, np.int64), room)[0] == dp_memory_bytes(kept, room)
    assert dp_cost(kept, room) == dp_cost(np.array(kept, np.int64), room)
    from packbench.algorithms.solvers import dp

    cells = int(dp._spans(np.array(kept, np.int64), room).sum())  # the cells the DP's updates touch
    assert dp_cost(kept, room)[1] == pytest.approx(dp._SEC_PER_ITEM * len(kept) + dp._SEC_PER_CELL * cells)
