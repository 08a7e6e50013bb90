"""The expanding-core solver alone (`solvers.core.minknap`): optimal, feasible, deterministic, limits honoured."""

from __future__ import annotations

import itertools
import math
import random
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packbench.algorithms.solvers.core.lex import lex_first
from packbench.algorithms.solvers.core.minknap import (
    MEMORY_LIMIT,
    PROVEN,
    TIME_LIMIT,
    WORK_LIMIT,
    minknap,
    minknap_bytes,
)
from packbench.algorithms.solvers.dp import dp_knapsack

from tests.oracles import lex_first_optimum as _lex_first_optimum


def _brute(w, p, c):
    best = 0
    for bits in itertools.product((0, 1), repeat=len(w)):
        if sum(a for a, b in zip(w, bits) if b) <= c:
            best = max(best, sum(a for a, b in zip(p, bits) if b))
    return best


def _check(res, w, p, c, opt):
    assert res.status == PROVEN and res.value == opt
    assert len(set(res.chosen)) == len(res.chosen) and res.chosen == sorted(res.chosen)
    assert sum(w[k] for k in res.chosen) <= c and sum(p[k] for k in res.chosen) == opt


small = st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 30), min_size=n, max_size=n),
    st.lists(st.integers(1, 30), min_size=n, max_size=n),
    st.floats(0.0, 1.0)))


@settings(max_examples=400, deadline=None)
@given(case=small)
def test_matches_brute_force_on_small_instances(case):
    w, p, frac = case
    c = max(w) + int(frac * (sum(w) - max(w)))
    _check(minknap(w, p, c), w, p, c, _brute(w, p, c))


@settings(max_examples=150, deadline=None)
@given(case=st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 6), min_size=n, max_size=n), st.integers(1, 3), st.integers(1, 40))))
def test_equal_efficiencies_and_correlated_profits(case):
    w, k, c = case  # p = k * w (every set on the front) and p = w + k (strongly correlated)
    c = max(c, max(w))
    for p in ([k * x for x in w], [x + k for x in w]):
        _check(minknap(w, p, c), w, p, c, _brute(w, p, c))


@pytest.mark.parametrize("kind", ["uncorrelated", "weakly", "strongly", "subset_sum"])
def test_matches_the_dp_past_the_64_step_window(kind):
    # Cores of hundreds of steps: the set is rebuilt from the bits plus searches on the earlier steps.
    rng = random.Random(kind)
    for _ in range(25):
        n, R = rng.randint(150, 500), rng.choice([100, 1000])
        w = [rng.randint(1, R) for _ in range(n)]
        if kind == "uncorrelated":
            p = [rng.randint(1, R) for _ in w]
        elif kind == "weakly":
            p = [max(1, x + rng.randint(-R // 10, R // 10)) for x in w]
        else:
            p = [x + R // 10 for x in w] if kind == "strongly" else list(w)
        c = rng.randint(max(w), sum(w) - 1)
        _check(minknap(w, p, c), w, p, c, int(dp_knapsack(w, [float(x) for x in p], c)[1]))


def test_lower_bar_only_sets_above_it_count():
    w, p, c = [4, 5, 6], [5, 6, 8], 10
    res = minknap(w, p, c, lower=12)  # the optimum 13 is reached only by {0, 2}
    assert res.chosen == [0, 2] and res.value == 13 and res.status == PROVEN
    none = minknap(w, p, c, lower=13)  # nothing beats 13
    assert none.chosen is None and none.value == 13 and none.status == PROVEN


def test_same_input_same_set():
    rng = np.random.default_rng(7)
    w = rng.integers(1, 100, 3000)
    p = w + 10  # strongly correlated: many optimal sets
    c = int(w.sum()) // 2
    sets = {tuple(minknap(w, p, c).chosen) for _ in range(5)}
    assert len(sets) == 1


def _hard():
    rng = np.random.default_rng(1)
    w = rng.integers(1, 10**4, 20000)
    # Strongly correlated with offsets 1000 and 1001: the shifted profits' gcd is 1 (no `affine_step` cut).
    return w, w + 1000 + (w % 7 == 0), int(w.sum()) // 2


def test_work_limit_is_deterministic_and_reported():
    w, p, c = _hard()
    a, b = minknap(w, p, c, work_limit=200_000), minknap(w, p, c, work_limit=200_000)
    assert a.status == WORK_LIMIT and (a.chosen, a.value, a.work) == (b.chosen, b.value, b.work)
    assert sum(int(w[k]) for k in a.chosen) <= c and sum(int(p[k]) for k in a.chosen) == a.value


def test_deadline_stops_inside_the_search_with_a_feasible_set():
    w, p, c = _hard()
    res = minknap(w, p, c, deadline=time.perf_counter() + 0.05)
    assert res.status in (TIME_LIMIT, PROVEN)
    assert sum(int(w[k]) for k in res.chosen) <= c and sum(int(p[k]) for k in res.chosen) == res.value


def test_memory_cap_refuses_before_the_lists_outgrow_it():
    w, p, c = _hard()
    cap = minknap_bytes(len(w), 5000)
    res = minknap(w, p, c, max_bytes=cap)
    assert res.status == MEMORY_LIMIT and sum(int(w[k]) for k in res.chosen) <= c
    assert minknap(w, p, c, max_bytes=100).status == MEMORY_LIMIT


tied = st.integers(1, 11).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 5), min_size=n, max_size=n),
    st.lists(st.integers(1, 4), min_size=n, max_size=n),
    st.integers(1, 30)))


@settings(max_examples=400, deadline=None)
@given(case=tied)
def test_lex_first_is_the_lexicographically_first_optimum(case):
    w, p, c = case
    first = list(_lex_first_optimum(w, p, c))
    assert lex_first(w, p, c, sum(p[k] for k in first), 10**6) == first


def test_lex_first_matches_the_dp_on_larger_cores_and_gives_up_past_its_cap():
    rng = random.Random(11)
    for _ in range(30):
        n, R = rng.randint(60, 300), rng.choice([10, 100])
        w = [rng.randint(1, R) for _ in range(n)]
        p = [x + R // 10 for x in w] if rng.random() < 0.5 else [rng.randint(1, R) for _ in w]
        c = rng.randint(max(w), sum(w))
        chosen, value = dp_knapsack(w, [float(x) for x in p], c)
        assert lex_first(w, p, c, int(value), 10**7) == chosen
    assert lex_first(w, p, c, int(value), 4) is None
    with pytest.raises(ValueError, match="target"):
        lex_first([2, 3], [2, 3], 4, 6, 100)


def test_a_rebuild_is_not_cut_by_the_probes_work_cap(monkeypatch):
    # A tiny probe makes every search past the 64-step window need rebuilds longer than the probe:
    # they must run to the end, not stop at the probe's cap and lose the set.
    import packbench.algorithms.solvers.core.minknap as minknap_module

    monkeypatch.setattr(minknap_module, "_PROBE_WORK", 50)
    rng = random.Random(5)
    for _ in range(10):
        n = rng.randint(200, 400)
        w = [rng.randint(1, 1000) for _ in range(n)]
        p = [x + 100 for x in w]
        c = rng.randint(max(w), sum(w) - 1)
        _check(minknap(w, p, c, work_limit=10**9), w, p, c, int(dp_knapsack(w, [float(x) for x in p], c)[1]))


def _completions_best(w, p, c, s, t, weight, profit):
    """Brute force: the best profit of the state after removing items up to s and adding items from t."""
    outside = list(range(s + 1)) + list(range(t, len(w)))
    best = None
    for mask in itertools.product((0, 1), repeat=len(outside)):
        dw = sum((w[k] if k >= t else -w[k]) for k, m in zip(outside, mask) if m)
        dp = sum((p[k] if k >= t else -p[k]) for k, m in zip(outside, mask) if m)
        if weight + dw <= c:
            best = profit + dp if best is None else max(best, profit + dp)
    return best


runs_case = st.tuples(
    st.lists(st.tuples(st.integers(1, 12), st.integers(1, 12)), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(0, 3), st.integers(1, 4), st.integers(1, 30), st.integers(1, 30)),
             min_size=1, max_size=9),
    st.floats(0.0, 1.0), st.integers(0, 2**31))


@settings(max_examples=400, deadline=None)
@given(case=runs_case)
def test_the_state_bound_never_cuts_a_better_completion(case):
    # Multiples of a few base items (long runs of one efficiency, as in the spanner classes) and
    # some free items: for every state of the search, if the bound says "no completion beats z",
    # none does, for z just below the best completion.
    from packbench.algorithms.solvers.core.bounds import _bound
    from packbench.algorithms.solvers.core.runs import run_bound, run_tables

    base, picks, frac, seed = case
    items = [(base[b % len(base)][0] * m, base[b % len(base)][1] * m) if b < 3 else (x, y) for b, m, x, y in picks]
    w = np.array([x for x, _ in items], np.int64)
    p = np.array([y for _, y in items], np.int64)
    order = np.lexsort((np.arange(len(w)), -(p / w)))
    w, p = w[order], p[order]
    n = len(w)
    c = int(w.max()) + int(frac * (int(w.sum()) - int(w.max())))
    cw, cp = np.concatenate([[0], np.cumsum(w)]), np.concatenate([[0], np.cumsum(p)])
    tables = run_tables(w, p)
    rng = random.Random(seed)
    for _ in range(6):
        s = rng.randint(-1, n - 1)
        t = rng.randint(s + 1, n)
        core = [k for k in range(s + 1, t) if rng.random() < 0.5]
        weight, profit = int(cw[s + 1] + w[core].sum()), int(cp[s + 1] + p[core].sum())
        best = _completions_best(w.tolist(), p.tolist(), c, s, t, weight, profit)
        if best is None:
            continue
        for z in {best - 1, best - 5, min(0, best - 1)}:
            assert run_bound(p / w, tables, n, c, s, t, weight, profit, z) > z  # alone, and with Dantzig's
            gp = math.gcd(*p.tolist())
            assert _bound(cw, cp, w, p, n, c, s, t, weight, profit, gp, 0, gp) > z  # Dantzig's, rounded to the profits' gcd
            both = min(_bound(cw, cp, w, p, n, c, s, t, weight, profit, gp, 0, gp), run_bound(p / w, tables, n, c, s, t, weight, profit, z))
            assert both - both % gp > z  # as the search combines them
