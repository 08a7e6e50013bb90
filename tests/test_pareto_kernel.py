"""The compiled lexicographic Pareto lists (`solvers.pareto_kernel`): brute-force answers, its bounds, caps, deadline."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.solvers.pareto import pareto_lex
from packbench.algorithms.solvers.core.fenwick import add
from packbench.algorithms.solvers.pareto_kernel import _most_profit, _ranks, warm_up
from tests.oracles import lex_first as _lex_first


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    warm_up()



# Jooken-like: a few heavy items just over a share of the room (few fit, the LP bound takes
# fractions of more) and light ones; few distinct values, so many optima and equal states.
jooken_like = st.tuples(st.integers(2, 4), st.integers(0, 5), st.integers(0, 6)).flatmap(
    lambda g: st.tuples(
        st.lists(st.tuples(st.integers(1, g[0]), st.integers(0, 3), st.integers(0, 3)),
                 min_size=g[1] + 1, max_size=g[1] + 1),
        st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=g[2], max_size=g[2])))


def _jooken_case(case, room=1000):
    heavy, light = case
    tokens = [room // (2 ** j) + 1 + dw for j, dw, _ in heavy] + [w for w, _ in light]
    profits = [room // (2 ** j) + 1 + dp for j, _, dp in heavy] + [p for _, p in light]
    return tokens, profits, room


@settings(max_examples=400, deadline=None)
@given(case=jooken_like, below=st.integers(0, 600))
def test_lists_with_the_cardinality_bound_give_the_brute_force_lexicographic_optimum(case, below):
    tokens, profits, room = _jooken_case(case)
    value, lex = _lex_first(tokens, profits, room)
    assert pareto_lex(tokens, profits, room, value) == lex
    assert pareto_lex(tokens, profits, room, max(0, value - below)) == lex  # a greedy set's lower target


small = st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 9), min_size=n, max_size=n),
    st.lists(st.integers(1, 5), min_size=n, max_size=n),
    st.integers(0, 40)))


@settings(max_examples=300, deadline=None)
@given(case=small, cap=st.sampled_from([16, 200, 600, 2000, 2**30]))
def test_a_capped_run_returns_the_canonical_set_or_none(case, cap):
    tokens, profits, room = case
    room = max([room] + tokens)
    value, lex = _lex_first(tokens, profits, room)
    found = pareto_lex(tokens, profits, room, value, max_bytes=cap)
    assert found is None or found == lex
    if cap == 2**30:
        assert found == lex


@settings(max_examples=300, deadline=None)
@given(items=st.lists(st.tuples(st.integers(1, 9), st.integers(1, 9), st.booleans()), min_size=1, max_size=9),
       cap=st.integers(0, 40))
def test_most_profit_is_the_best_profit_of_as_many_items_as_fit(items, cap):
    w = np.array([a for a, _, _ in items], dtype=np.int64)
    p = np.array([b for _, b, _ in items], dtype=np.float64)
    alive = [k for k, (_, _, on) in enumerate(items) if on]
    n = len(w)
    rank_w, rank_p = _ranks(w), _ranks(-p)
    wn, wsum = np.zeros(n + 1, dtype=np.int64), np.zeros(n + 1, dtype=np.int64)
    pn, psum = np.zeros(n + 1, dtype=np.int64), np.zeros(n + 1)
    for k in range(n):  # every item in, then the dead ones out, as the lists drop items
        add(wn, wsum, rank_w[k], 1, w[k])
        add(pn, psum, rank_p[k], 1, p[k])
    for k in set(range(n)) - set(alive):
        add(wn, wsum, rank_w[k], -1, -w[k])
        add(pn, psum, rank_p[k], -1, -p[k])
    top = 1
    while top * 2 <= n:
        top *= 2
    fits = 0
    for x in sorted(int(w[k]) for k in alive):
        if x > cap - sum(sorted(int(w[j]) for j in alive)[:fits]):
            break
        fits += 1
    expect = sum(sorted((float(p[k]) for k in alive), reverse=True)[:fits])
    assert _most_profit(wn, wsum, pn, psum, top, n, cap) == expect
    # It bounds every set of the alive items within cap.
    for r in range(len(alive) + 1):
        for subset in itertools.combinations(alive, r):
            if sum(int(w[k]) for k in subset) <= cap:
                assert sum(float(p[k]) for k in subset) <= expect


def test_the_compiled_lists_keep_the_caps_and_the_deadline():
    tokens = [7 * k % 23 + 5 for k in range(40)]
    profits = [w + 3 for w in tokens]
    assert pareto_lex(tokens, profits, 200, 1, max_bytes=1) is None
    with pytest.raises(TimeoutError):
        pareto_lex(tokens, profits, 200, 1, deadline=time.perf_counter() - 1e-3)
    with pytest.raises(ValueError, match="target"):
        pareto_lex(tokens, profits, 200, 10**6)  # above every set
    assert pareto_lex([], [], 10, 0) == []
