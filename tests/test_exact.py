"""The `exact` portfolio, its reduction, and the optimised DP: proven optima, every path."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import STRATEGIES, Item, Problem, pack
from packbench.algorithms.solvers import stages as stages_module
from packbench.algorithms.strategies import exact as exact_module
from packbench.algorithms.strategies.exact import Exact
from packbench.algorithms.strategies.exact_dp import ExactDP, dp_knapsack
from packbench.algorithms.solvers.core.minknap import WORK_LIMIT, MinknapResult
from packbench.algorithms.solvers.reduce import reduce_knapsack


def _brute(tokens, scores, room):
    best = 0.0
    for r in range(len(tokens) + 1):
        for combo in itertools.combinations(range(len(tokens)), r):
            if sum(tokens[k] for k in combo) <= room:
                best = max(best, sum(scores[k] for k in combo))
    return best


def _problem(tokens, scores, room):
    return Problem(tuple(Item(f"i{k}", "", s, w) for k, (w, s) in enumerate(zip(tokens, scores))), room)


def _check(sel, prob, best):
    chosen = sel.indices
    assert len(set(chosen)) == len(chosen)
    assert sum(prob.candidates[k].tokens for k in chosen) <= prob.room
    score = sum(prob.candidates[k].score for k in chosen)
    assert score == pytest.approx(best, abs=1e-9)
    assert sel.optimal is True
    assert sel.upper_bound >= score - 1e-9


knapsacks = st.integers(0, 10).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 25), min_size=n, max_size=n),
    st.one_of(st.lists(st.integers(-3, 30).map(float), min_size=n, max_size=n),
              st.lists(st.floats(-1, 30, allow_nan=False), min_size=n, max_size=n)),
    st.integers(0, 80)))


@settings(max_examples=300, deadline=None)
@given(knapsacks)
def test_exact_matches_brute_force(case):
    tokens, scores, room = case
    prob = _problem(tokens, scores, room)
    best = _brute(tokens, [max(s, 0.0) for s in scores], room)
    _check(Exact().select(prob), prob, best)
    # Without memory for the DP: the reduction and branch-and-bound paths.
    _check(Exact(max_memory_mb=1e-9).select(prob), prob, best)


@settings(max_examples=200, deadline=None)
@given(knapsacks)
def test_dp_knapsack_matches_brute_force(case):
    tokens, scores, room = case
    pairs = [(w, s) for w, s in zip(tokens, scores) if s > 0 and w <= room]
    w = [p[0] for p in pairs]
    s = [p[1] for p in pairs]
    positions, best = dp_knapsack(w, s, room)
    assert best == pytest.approx(_brute(w, s, room), abs=1e-9)
    assert sum(s[k] for k in positions) == pytest.approx(best, abs=1e-9)
    assert sum(w[k] for k in positions) <= room


@settings(max_examples=200, deadline=None)
@given(st.integers(4, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 30), min_size=n, max_size=n),
    st.lists(st.integers(1, 40), min_size=n, max_size=n),
    st.integers(1, 120))))
def test_reduction_fixings_keep_an_optimum(case):
    tokens, scores, room = case
    if sum(tokens) <= room or max(tokens) > room:
        return
    red = reduce_knapsack(np.array(tokens), np.array(scores, dtype=float), room)
    best = _brute(tokens, scores, room)
    assert sum(tokens[k] for k in red.incumbent) <= room
    assert red.incumbent_score == sum(scores[k] for k in red.incumbent)
    assert red.upper_bound >= best
    # Solving the reduced problem and keeping the incumbent must give the optimum.
    fixed = sum(scores[k] for k in red.fixed_in)
    assert red.room == room - sum(tokens[k] for k in red.fixed_in) >= 0
    sub = _brute([tokens[k] for k in red.free], [scores[k] for k in red.free], red.room)
    assert max(red.incumbent_score, fixed + sub) == best
    assert set(red.fixed_in).isdisjoint(red.free)


@pytest.mark.parametrize("cls_name", ["uncorrelated", "strongly_correlated", "subset_sum",
                                      "inverse_strongly_correlated", "almost_strongly_correlated"])
def test_reduction_path_agrees_with_the_dp_on_pisinger_instances(cls_name):
    from packbench.experiments.families.pisinger import pisinger_weights_profits

    w, p = pisinger_weights_profits(cls_name, 2500, 100, np.random.default_rng(3))
    prob = _problem(w.tolist(), [float(x) for x in p], 20_000)
    ref = ExactDP().select(prob)
    sel = Exact().select(prob)
    best = sum(prob.candidates[k].score for k in ref.indices)
    _check(sel, prob, best)
    assert sel.info["solver"] in ("reduction", "minknap", "bnb", "exact_dp")
    assert "fixed_in" in sel.info  # above 2,000 candidates the reduction always runs


def test_every_path_proves_the_same_canonical_optimum(monkeypatch):
    rng = random.Random(5)
    tokens = [rng.randint(1, 60) for _ in range(400)]
    scores = [float(w + 10) for w in tokens]  # strongly correlated
    prob = _problem(tokens, scores, 3000)
    ref = ExactDP().select(prob)
    best = sum(prob.candidates[k].score for k in ref.indices)
    first = Exact().select(prob)
    _check(first, prob, best)
    assert first.indices == ref.indices  # the DP's lexicographic optimum is the canonical one
    # The core search runs out of work and branch and bound "times out": the DP takes over, same set.
    out_of_work = lambda *a, **k: MinknapResult(None, -1, WORK_LIMIT, 0)  # noqa: E731
    monkeypatch.setattr(exact_module, "minknap", out_of_work)
    monkeypatch.setattr(stages_module, "minknap", out_of_work)  # the probe before a direct DP too
    monkeypatch.setattr(exact_module, "bnb_knapsack", lambda w, s, room, limit: ([], False, 0.0))
    sel = Exact().select(prob)
    assert sel.optimal and sel.info["solver"] == "exact_dp" and sel.indices == first.indices


def test_bnb_proof_without_memory_for_the_tie_break_says_not_canonical():
    rng = random.Random(5)
    tokens = [rng.randint(1, 60) for _ in range(400)]
    prob = _problem(tokens, [float(w + 10) for w in tokens], 3000)
    best = sum(prob.candidates[k].score for k in ExactDP().select(prob).indices)
    sel = Exact(max_memory_mb=1e-6).select(prob)
    _check(sel, prob, best)
    assert sel.info["solver"] in ("bnb", "cpsat", "reduction")
    assert sel.info["canonical"] is (sel.info["solver"] == "reduction")


def test_time_limit_cut_reports_not_optimal_with_a_valid_bound(monkeypatch):
    monkeypatch.setattr(exact_module, "bnb_knapsack", lambda w, s, room, limit: ([0], False, 0.0))
    monkeypatch.setattr(exact_module, "cpsat_knapsack", lambda *a, **k: (None, False, None, "wall"))
    rng = random.Random(2)
    tokens = [rng.randint(1, 60) for _ in range(500)]
    prob = _problem(tokens, [float(w + 10) for w in tokens], 3000)
    best = sum(prob.candidates[k].score for k in ExactDP().select(prob).indices)
    sel = Exact(max_memory_mb=1e-6).select(prob)
    score = sum(prob.candidates[k].score for k in sel.indices)
    assert sel.optimal is False and sel.info["solver"] == "time_limit" and sel.info["stopped"] == "time_limit"
    assert sum(prob.candidates[k].tokens for k in sel.indices) <= 3000
    assert sel.upper_bound >= best >= score


def test_exact_is_registered_and_solves_the_trap_instances():
    assert STRATEGIES["exact"] is Exact
    a = [Item("A", "a", 2.0, 1), Item("B", "b", 90.0, 100)]
    assert pack(a, 100, strategy="exact").score == 90.0
    b = [Item("B", "b", 10.0, 100)] + [Item(f"C{k}", f"c{k}", 9.0, 10) for k in range(10)]
    p = pack(b, 100, strategy="exact", near_dup=None)
    assert p.score == 90.0 and p.optimal is True


def test_exact_rejects_bad_params():
    with pytest.raises(ValueError, match="time_limit"):
        Exact(time_limit=0)
    with pytest.raises(ValueError, match="unknown"):
        Exact(limit=3)


def test_exact_dp_refusal_names_other_exact_strategies():
    prob = _problem([5, 6, 7], [1.0, 2.0, 3.0], 10)
    with pytest.raises(ValueError, match="'exact'"):
        ExactDP(max_memory_mb=1e-9).select(prob)


def test_work_limit_stops_the_search_the_same_way_on_every_run():
    from packbench.experiments.bench.hard import hard_cases

    # circle: hard for the search (the spanner classes fall to the run bound in a few state visits).
    (_, _, _, prob), = hard_cases([1000], 1, only=("circle",))
    runs = [Exact(work_limit=20_000, time_limit=600).select(prob) for _ in range(3)]
    first = runs[0]
    assert first.optimal is False and first.info["stopped"] == "work_limit" and first.info["limit_kind"] == "work"
    assert all(r.indices == first.indices and r.info["core_work"] == first.info["core_work"] for r in runs)
    score = sum(prob.candidates[k].score for k in first.indices)
    assert sum(prob.candidates[k].tokens for k in first.indices) <= prob.room
    assert score <= ExactDP().select(prob).upper_bound <= first.upper_bound
    with pytest.raises(ValueError, match="work_limit"):
        Exact(work_limit=-1)
