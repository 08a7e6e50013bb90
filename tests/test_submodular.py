"""submodular: the objective's formula and properties, and the 0.405 guarantee against brute force."""

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.items import Problem
from packbench.algorithms.strategies.submodular import Submodular, SubmodularObjective, lazy_greedy, objective_value

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TANG_2021 = 0.405


@st.composite
def pools(draw, max_n=12):
    n = draw(st.integers(0, max_n))
    cands = tuple(Item(f"c{k}", " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=6))),
                       draw(st.floats(0, 10, allow_nan=False)), draw(st.integers(1, 25)),
                       source=draw(st.sampled_from([None, "s1", "s2", "s3"]))) for k in range(n))
    pinned = tuple(Item(f"p{k}", " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=5))), 0.0, 1,
                        pinned=True) for k in range(draw(st.integers(0, 1))))
    return cands, pinned


def brute_force(f, cands, room):
    n = len(cands)
    return max(f.value(s) for m in range(n + 1) for s in itertools.combinations(range(n), m)
               if sum(cands[k].tokens for k in s) <= room)


@SETTINGS
@given(pool=pools(), room=st.integers(0, 60), lam=st.sampled_from([0.0, 0.3, 1.0, 3.0]),
       objective=st.sampled_from(["sqrt", "linear"]), similarity=st.sampled_from(["jaccard", "tfidf"]))
def test_at_least_0405_of_the_brute_force_optimum(pool, room, lam, objective, similarity):
    cands, pinned = pool
    sel = Submodular(lam=lam, objective=objective, similarity=similarity).select(Problem(cands, room, pinned))
    assert sum(cands[k].tokens for k in sel.indices) <= room
    f = SubmodularObjective(cands, pinned, lam=lam, similarity=similarity, objective=objective)
    assert sel.info["objective"] == pytest.approx(f.value(sel.indices), abs=1e-9)
    empty = f.value([])
    best = brute_force(f, cands, room)
    # The guarantee is for f - f(empty) (normalised), which implies it for f itself.
    assert sel.info["objective"] - empty >= TANG_2021 * (best - empty) - 1e-9
    assert sel.info["objective"] >= TANG_2021 * best - 1e-9


@SETTINGS
@given(small=st.floats(0.01, 5), big=st.floats(5, 100), n_big=st.integers(1, 4), room=st.integers(2, 50),
       lam=st.sampled_from([0.0, 0.5]), objective=st.sampled_from(["sqrt", "linear"]))
def test_guarantee_on_the_greedy_trap(small, big, n_big, room, lam, objective):
    """A dense 1-token item beside items that fill the whole room: cost-scaled greedy alone fails here."""
    cands = (Item("small", "tiny dense note", small, 1),) + tuple(
        Item(f"big{k}", f"large report number {k}", big, room) for k in range(n_big))
    sel = Submodular(lam=lam, objective=objective).select(Problem(cands, room))
    f = SubmodularObjective(cands, lam=lam, objective=objective)
    assert sel.info["objective"] >= TANG_2021 * brute_force(f, cands, room) - 1e-9


@SETTINGS
@given(pool=pools(max_n=10), data=st.data(), lam=st.sampled_from([0.0, 0.5, 2.0]),
       objective=st.sampled_from(["sqrt", "linear"]))
def test_diminishing_returns_on_nested_sets(pool, data, lam, objective):
    cands, pinned = pool
    n = len(cands)
    if n == 0:
        return
    f = SubmodularObjective(cands, pinned, lam=lam, objective=objective)
    big = data.draw(st.sets(st.integers(0, n - 1)))
    small = data.draw(st.sets(st.sampled_from(sorted(big)))) if big else set()
    rest = [k for k in range(n) if k not in big]
    if not rest:
        return
    x = data.draw(st.sampled_from(rest))
    gain_small = f.value(small | {x}) - f.value(small)
    gain_big = f.value(big | {x}) - f.value(big)
    assert gain_small >= gain_big - 1e-9
    assert f.value(big) >= f.value(small) - 1e-9  # monotone
    assert gain_big >= -1e-9


def plain_greedy(f, tokens, room, r):
    """Non-lazy reference: re-evaluate every fitting candidate each step; ties to the lower index."""
    sums, cover = f.state()
    chosen, left = [], room
    while True:
        ratios = [(f.gain(k, sums, cover) / tokens[k] ** r, -k) for k in range(f.n)
                  if k not in chosen and tokens[k] <= left]
        if not ratios or max(ratios)[0] <= 0:
            return chosen
        k = -max(ratios)[1]
        chosen.append(k)
        f.add(k, sums, cover)
        left -= tokens[k]


@SETTINGS
@given(pool=pools(max_n=30), room=st.integers(0, 120), lam=st.sampled_from([0.0, 0.5, 2.0]),
       r=st.sampled_from([0.0, 1.0]), batch=st.sampled_from([1, 2, 5, 16]))
def test_lazy_evaluation_picks_what_plain_greedy_picks(pool, room, lam, r, batch):
    cands, pinned = pool
    f = SubmodularObjective(cands, pinned, lam=lam)
    tokens = [c.tokens for c in cands]
    assert lazy_greedy(f, tokens, room, r, batch=batch) == plain_greedy(f, tokens, room, r)


def test_formula_relevance_per_source():
    a = Item("a", "a", 4.0, 1, source="doc1")
    b = Item("b", "b", 2.0, 1, source="doc1")
    c = Item("c", "c", 2.0, 1)
    d = Item("d", "d", 1.0, 1)
    pool = [a, b, c, d]
    # rel = score / 4; a and b share a source; c and d (source None) are each their own.
    assert objective_value([a, b], pool, lam=0) == pytest.approx(math.sqrt(1.0 + 0.5))
    assert objective_value([c, d], pool, lam=0) == pytest.approx(math.sqrt(0.5) + math.sqrt(0.25))
    assert objective_value([a, b, c], pool, lam=0, objective="linear") == pytest.approx(2.0)


def test_formula_coverage_with_pinned():
    table = {frozenset("ab"): 0.5, frozenset("ac"): 0.0, frozenset("bc"): 0.2,
             frozenset("ap"): 0.1, frozenset("bp"): 0.0, frozenset("cp"): 0.9}

    def sim(x, y):
        return table[frozenset((x.id, y.id))]

    a, b, c = (Item(k, k, 0.0, 1) for k in "abc")
    p = Item("p", "p", 0.0, 1, pinned=True)
    # Coverage targets a, b, c; maxima over {a} ∪ {p}: a: 1, b: 0.5, c: 0.9.
    assert objective_value([p, a], [a, b, c], lam=2.0, similarity=sim) == pytest.approx(2.0 * 2.4)
    # Empty choice: pinned alone covers a: 0.1, b: 0, c: 0.9.
    assert objective_value([p], [a, b, c], lam=1.0, similarity=sim) == pytest.approx(1.0)


def test_prefers_a_second_source_over_a_second_item_of_the_same_source():
    x1 = Item("x1", "first passage of x", 1.0, 1, source="x")
    x2 = Item("x2", "second passage of x", 1.0, 1, source="x")
    y = Item("y", "only passage of y", 0.8, 1, source="y")
    p = pack([x1, x2, y], 2, near_dup=None, strategy="submodular", lam=0.0)
    assert sorted(p.ids) == ["x1", "y"]
    assert p.info["objective"] == pytest.approx(1.0 + math.sqrt(0.8))
    assert p.info["objective"] == pytest.approx(objective_value(list(p), [x1, x2, y], lam=0.0))
    additive = pack([x1, x2, y], 2, near_dup=None, strategy="greedy")
    assert sorted(additive.ids) == ["x1", "x2"]


def test_best_single_item_rescues_the_cost_scaled_greedy():
    small = Item("small", "small note", 0.2, 1)
    big = Item("big", "big report", 10.0, 100)
    p = pack([small, big], 100, near_dup=None, strategy="submodular", lam=0.0, objective="linear")
    assert p.ids == ["big"]


def test_errors():
    with pytest.raises(ValueError, match="objective"):
        Submodular(objective="log")
    with pytest.raises(ValueError, match="lam"):
        Submodular(lam=-1)
    with pytest.raises(ValueError, match="'r'"):
        Submodular(r=3)
    a = Item("a", "a", 1.0, 1)
    with pytest.raises(ValueError, match="not among the candidates"):
        objective_value([a], [Item("b", "b", 1.0, 1)])
    with pytest.raises(ValueError, match="objective"):
        objective_value([a], objective="cube")


def test_objective_value_rejects_negative_scores_and_bad_lam():
    # A negative score once gave relevance < 0 and a silent NaN from the square root.
    neg, pos = Item("neg", "x", -1.0, 1), Item("pos", "y", 2.0, 1)
    with pytest.raises(ValueError, match=r"candidate\(s\) \['neg'\] have negative scores"):
        objective_value([neg, pos])
    with pytest.raises(ValueError, match=r"\['neg'\] have negative scores"):
        objective_value([pos], [neg, pos])
    for lam in (float("nan"), float("inf"), "1", None):
        with pytest.raises(TypeError, match="parameter 'lam' must be a finite number"):
            objective_value([pos], lam=lam)
    with pytest.raises(ValueError, match="parameter 'lam' must be >= 0"):
        objective_value([pos], lam=-0.5)
    # Pinned items may have any score: they only enter through coverage.
    assert objective_value([Item("p", "y", -5.0, 1, pinned=True), pos], lam=0.0) == pytest.approx(1.0)


@pytest.mark.parametrize("batch, error", [(0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_lazy_greedy_rejects_a_batch_that_could_not_refresh(batch, error):
    f = SubmodularObjective((Item("a", "x y z", 1.0, 1),), lam=0.5)
    with pytest.raises(error, match="batch must be an int >= 1"):
        lazy_greedy(f, [1], 1, 1.0, batch=batch)
