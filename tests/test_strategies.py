"""Optimality of the exact strategies and the guarantees of the approximate ones (oracles on small instances)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import STRATEGIES, Item, pack
from tests.oracles import brute_force_best

# The layer's contract (budget, pinned first, determinism, bounds) over every registered strategy and
# order and over outside ones named by import path: tests/test_contracts.py (packbench.testing).
EXACT = [s for s in ("exact_dp", "cpsat", "bnb", "exact") if s in STRATEGIES]
WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw, max_n=10, integral=False):
    """Pinned items and candidates with random texts (some near-duplicates) and a budget."""
    n = draw(st.integers(0, max_n))
    score = st.integers(0, 20) if integral else st.floats(0, 20, allow_nan=False)
    items = []
    for k in range(n):
        text = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)))
        items.append(Item(f"c{k}", text, draw(score), draw(st.integers(1, 30))))
    n_pinned = draw(st.integers(0, 2))
    pinned = [Item(f"p{k}", f"pinned {WORDS[k]} text", 0.0, draw(st.integers(1, 5)), pinned=True)
              for k in range(n_pinned)]
    pos = draw(st.integers(0, len(items)))
    items[pos:pos] = pinned
    budget = sum(p.tokens for p in pinned) + draw(st.integers(0, 80))
    return items, budget


def _candidates(items, budget):
    pinned_tokens = sum(it.tokens for it in items if it.pinned)
    cands = [it for it in items if not it.pinned]
    return [it.score for it in cands], [it.tokens for it in cands], budget - pinned_tokens


@pytest.mark.parametrize("strategy", EXACT)
@SETTINGS
@given(data=instances(max_n=14))
def test_exact_strategies_match_brute_force(strategy, data):
    items, budget = data
    res = pack(items, budget, None, strategy=strategy)
    scores, tokens, room = _candidates(items, budget)
    best = brute_force_best(scores, tokens, room)
    pinned_score = sum(it.score for it in items if it.pinned)
    assert res.optimal is True
    assert res.score == pytest.approx(pinned_score + best, rel=1e-9, abs=1e-9)


@SETTINGS
@given(data=instances(max_n=12))
def test_greedy_best_single_is_at_least_half_the_optimum(data):
    items, budget = data
    res = pack(items, budget, None)
    scores, tokens, room = _candidates(items, budget)
    assert res.score + 1e-9 >= brute_force_best(scores, tokens, room) / 2


def _strongly_correlated(seed, n, R=1000):
    import random
    rng = random.Random(seed)
    items = []
    for k in range(n):
        w = rng.randint(1, R)
        items.append(Item(f"s{k}", f"doc {k}", float(w + R // 10), w))
    return items


@pytest.mark.parametrize("seed", range(4))
def test_exact_strategies_agree_on_strongly_correlated_instances(seed):
    items = _strongly_correlated(seed, 40)
    budget = sum(it.tokens for it in items) // 2
    results = {s: pack(items, budget, None, strategy=s, **({"time_limit": 20.0} if s in ("cpsat", "bnb") else {}))
               for s in EXACT}
    scores = {s: r.score for s, r in results.items() if r.optimal}
    assert "exact_dp" in scores
    assert max(scores.values()) - min(scores.values()) <= 1e-9
    for s, r in results.items():  # a solver cut by its limit must say so and still bound the optimum
        assert r.optimal or r.upper_bound >= scores["exact_dp"] - 1e-9


def test_density_trap():
    items = [Item("A", "small cheap item", 2, 1), Item("B", "big valuable item", 90, 100)]
    assert pack(items, 100, None, strategy="greedy").score == 2
    for s in EXACT + ["greedy_best_single"]:
        assert pack(items, 100, None, strategy=s).score == 90


def test_value_trap():
    items = [Item("B", "one big item", 10, 100)] + [Item(f"C{k}", f"small item {k}", 9, 10) for k in range(10)]
    assert pack(items, 100, None, strategy="prefix").score == 10
    for s in EXACT:
        assert pack(items, 100, None, strategy=s).score == 90


def test_exact_dp_refuses_above_its_memory_cap_and_suggests_another_solver():
    items = [Item(f"i{k}", f"t{k}", 1.0, 1 + k) for k in range(50)]
    with pytest.raises(ValueError, match=r"above max_memory_mb=0.001; use strategy 'bnb' or 'cpsat'"):
        pack(items, 1000, None, strategy="exact_dp", max_memory_mb=0.001)


def test_bnb_cut_by_time_limit_reports_not_optimal_with_a_bound():
    items = _strongly_correlated(7, 400, R=10000)
    budget = sum(it.tokens for it in items) // 2
    res = pack(items, budget, None, strategy="bnb", time_limit=0.01)
    exact = pack(items, budget, None, strategy="exact_dp")
    assert res.tokens <= budget
    if res.optimal:  # the solver may still prove it in time; then it must be right
        assert res.score == pytest.approx(exact.score)
    else:
        assert res.optimal is False and res.info["stopped"] == "time_limit"
        assert res.upper_bound >= exact.score - 1e-9


def test_cpsat_cut_before_any_solution_returns_a_feasible_set_and_a_bound():
    import random
    rng = random.Random(1)
    items = [Item(f"s{k}", f"d{k}", float(w + 1000), w) for k, w in ((k, rng.randint(1, 10000)) for k in range(2000))]
    budget = sum(it.tokens for it in items) // 2
    res = pack(items, budget, None, strategy="cpsat", time_limit=0.001)
    exact = pack(items, budget, None, strategy="exact")
    assert res.tokens <= budget and res.score > 0
    if res.optimal:  # the solver may still prove it in time; then it must be right
        assert res.score == pytest.approx(exact.score)
    else:
        assert res.optimal is False and res.info["stopped"] == "time_limit"
        assert res.upper_bound >= exact.score - 1e-9


def test_cpsat_without_any_solution_returns_the_greedy_start_and_dantzig_bound(monkeypatch):
    # The test above cannot force this path (the solver may finish in time): stub the solver's answer.
    from ortools.sat.python import cp_model

    from packbench.algorithms.bounds import dantzig_bound
    from packbench.algorithms.strategies.greedy import greedy_fill

    class NoSolution(cp_model.CpSolver):
        def solve(self, model, *args, **kwargs):
            return cp_model.UNKNOWN

    monkeypatch.setattr(cp_model, "CpSolver", NoSolution)
    items = [Item("a", "a", 2.0, 1), Item("b", "b", 90.0, 100), Item("c", "c", 5.0, 3)]
    res = pack(items, 100, None, strategy="cpsat", time_limit=1.0)
    greedy = [items[k].id for k in greedy_fill(tuple(items), 100)]
    assert res.ids == greedy == ["a", "c"]
    assert res.optimal is False and res.info["stopped"] == "time_limit"
    assert res.upper_bound == pytest.approx(dantzig_bound(items, 100)) and res.upper_bound >= 90.0


@pytest.mark.parametrize("strategy", EXACT)
@pytest.mark.parametrize("unit", [1e-300, 5e-324, 1e300])
def test_exact_strategies_handle_extreme_score_scales(strategy, unit):
    # Scores far from 1 must not vanish or overflow when scaled to integers.
    items = [Item("a", "one", 3 * unit, 2), Item("b", "two", 2 * unit, 1), Item("c", "three", 2 * unit, 1)]
    res = pack(items, 2, None, strategy=strategy)
    assert res.optimal is True
    assert res.ids == ["b", "c"] and res.score == 4 * unit
    assert res.upper_bound >= res.score
