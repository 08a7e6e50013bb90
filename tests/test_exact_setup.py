"""`exact`'s setup in numpy (candidate arrays, integer profits, the reduction) and the guard before its limit."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, Problem
from packbench.algorithms.bounds import candidate_arrays, fitting_positive
from packbench.algorithms.solvers.reduce import reduce_knapsack
from packbench.algorithms.solvers.scaling import integer_profits, integer_profits_array
from packbench.algorithms.strategies import exact as exact_module
from packbench.algorithms.strategies.exact import Exact

items = st.lists(st.tuples(st.integers(1, 40), st.one_of(st.integers(-5, 50).map(float),
                                                         st.floats(-1, 1e6, allow_nan=False))),
                 max_size=30)


@settings(max_examples=200, deadline=None)
@given(items, st.integers(0, 60))
def test_candidate_arrays_keep_exactly_the_fitting_positive_candidates(pairs, room):
    cands = [Item(f"i{k}", "", s, w) for k, (w, s) in enumerate(pairs)]
    tokens, scores, keep = candidate_arrays(cands, room)
    assert keep.tolist() == fitting_positive(cands, room)
    assert tokens.tolist() == [c.tokens for c in cands]
    assert scores.tolist() == [c.score for c in cands]


def test_candidate_arrays_take_token_counts_past_int64():
    cands = [Item("a", "", 1.0, 3), Item("b", "", 2.0, 2**70)]
    tokens, _, keep = candidate_arrays(cands, 10)
    assert keep.tolist() == [0] and tokens[1] > 10


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 10**6).map(float), st.floats(0, 1e9, allow_nan=False),
                          st.floats(0, 1e-300)), max_size=40))
def test_integer_profits_array_gives_the_same_profits_as_the_list_version(scores):
    profits, unit, err = integer_profits(scores)
    arr, unit_a, err_a = integer_profits_array(np.array(scores, dtype=np.float64))
    assert arr.tolist() == [float(p) for p in profits] and (unit_a, err_a) == (unit, err)


def _greedy_reference(w, p, room):
    """The reduction's incumbent spelled out: density order (stable), take whatever still fits."""
    order = sorted(range(len(w)), key=lambda k: (-p[k] / w[k], k))
    used, taken = 0, []
    for k in order:
        if used + w[k] <= room:
            used += w[k]
            taken.append(k)
    return sorted(taken)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 30), min_size=n, max_size=n),
    st.lists(st.integers(1, 40), min_size=n, max_size=n), st.integers(1, 100))))
def test_reduction_incumbent_is_the_density_greedy_set_and_fixings_are_increasing(case):
    w, p, room = case
    if sum(w) <= room or max(w) > room:
        return
    red = reduce_knapsack(np.array(w), np.array(p, dtype=float), room, margin=1.0)
    assert list(red.incumbent) == _greedy_reference(w, p, room)
    for part in (red.fixed_in, red.free):
        assert list(part) == sorted(set(part))
    best = max(sum(p[k] for k in s) for r in range(len(w) + 1) for s in itertools.combinations(range(len(w)), r)
               if sum(w[k] for k in s) <= room)
    assert red.incumbent_score <= best <= red.upper_bound


@pytest.mark.parametrize("limit", [0.3, 5.0, 60.0])
def test_stages_aim_at_the_limit_minus_the_guard(monkeypatch, limit):
    Exact.warm_up()  # loading the compiled kernels must not eat the limit
    seen = []
    real = exact_module.minknap

    def spy(*args, **kwargs):
        seen.append((time.perf_counter(), kwargs["deadline"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(exact_module, "minknap", spy)
    monkeypatch.setattr(exact_module, "_DP_DIRECT_SEC", 0.0)  # the search runs, so its deadline is seen
    tokens = [int(x) for x in np.random.default_rng(4).integers(20, 60, 300)]
    cands = tuple(Item(f"i{k}", "", float(w + 10), w) for k, w in enumerate(tokens))
    start = time.perf_counter()
    sel = Exact(time_limit=limit).select(Problem(cands, 3000))
    assert sel.optimal and seen
    guard = min(0.1, 0.1 * limit)
    for now, deadline in seen:
        # The deadline was fixed at the call's start: at most limit - guard after it, and later than now.
        assert start + limit - guard - 0.05 <= deadline <= now + limit - guard
