"""mmr: the lam = 1 reduction to the score-ordered fill, redundancy handling, budget and errors."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.items import Problem
from packbench.algorithms.strategies.mmr import MMR

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def score_ordered_fill(cands, room):
    """The reference: visit by score descending (ties: lower id first), take each that still fits."""
    chosen, left = [], room
    for k in sorted(range(len(cands)), key=lambda k: (-cands[k].score, cands[k].id)):
        if cands[k].tokens <= left:
            chosen.append(k)
            left -= cands[k].tokens
    return chosen


@st.composite
def problems(draw, max_n=12):
    n = draw(st.integers(0, max_n))
    # Few distinct scores so that ties (broken by id) are common.
    cands = tuple(Item(f"c{draw(st.integers(0, 99)):02d}_{k}",
                       " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=6))),
                       draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25])), draw(st.integers(1, 20)))
                  for k in range(n))
    pinned = tuple(Item(f"p{k}", " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=5))), 0.0, 1,
                        pinned=True) for k in range(draw(st.integers(0, 2))))
    return Problem(cands, draw(st.integers(0, 60)), pinned)


@SETTINGS
@given(problem=problems(), similarity=st.sampled_from(["jaccard", "tfidf"]))
def test_lam_one_is_the_score_ordered_fill(problem, similarity):
    sel = MMR(lam=1.0, similarity=similarity).select(problem)
    expected = score_ordered_fill(problem.candidates, problem.room)
    assert [problem.candidates[k].id for k in expected] == sel.info["pick_order"]
    assert sorted(sel.indices) == sorted(expected)


@SETTINGS
@given(problem=problems(), lam=st.floats(0, 1), c=st.sampled_from([0.0, 0.5, 1.0]))
def test_fits_and_stops_only_when_nothing_fits(problem, lam, c):
    sel = MMR(lam=lam, cost_exponent=c).select(problem)
    cands = problem.candidates
    used = sum(cands[k].tokens for k in sel.indices)
    assert len(set(sel.indices)) == len(sel.indices) and used <= problem.room
    left = problem.room - used
    assert all(cands[k].tokens > left for k in range(len(cands)) if k not in sel.indices)


def test_redundant_item_is_skipped_for_a_diverse_one():
    a = Item("a", "the quick brown fox jumps over the lazy dog", 1.0, 10)
    a2 = Item("a2", "the quick brown fox jumps over the lazy dog again", 0.95, 10)
    b = Item("b", "completely different words about stock markets", 0.5, 10)
    problem = Problem((a, a2, b), 20)
    assert MMR(lam=1.0).select(problem).info["pick_order"] == ["a", "a2"]
    assert MMR(lam=0.5).select(problem).info["pick_order"] == ["a", "b"]


def test_pinned_items_count_as_already_chosen():
    pin = Item("q", "what is the capital of france paris", 0.0, 1, pinned=True)
    echo = Item("echo", "what is the capital of france paris", 1.0, 5)
    other = Item("other", "paris has been the capital since the middle ages", 0.8, 5)
    sel = MMR(lam=0.5).select(Problem((echo, other), 5, (pin,)))
    assert sel.info["pick_order"] == ["other"]


def test_cost_exponent_prefers_cheap_items():
    big = Item("big", "one long document", 1.0, 10)
    small = Item("small", "two short notes", 0.6, 2)
    problem = Problem((big, small), 10)
    assert MMR(lam=1.0).select(problem).info["pick_order"] == ["big"]
    assert MMR(lam=1.0, cost_exponent=1.0).select(problem).info["pick_order"] == ["small"]


def test_no_guarantee_example_from_the_docs():
    w = 50
    items = [Item("big", "big one", 1.0, w)] + [Item(f"s{k}", f"small {k} x{k}", 0.99, 1) for k in range(w)]
    p = pack(items, w, near_dup=None, strategy="mmr", lam=1.0)
    assert p.ids == ["big"] and p.upper_bound >= 0.99 * w


def test_callable_similarity_and_pack_routing():
    calls = []

    def sim(x, y):
        calls.append((x.id, y.id))
        return 1.0 if x.text[0] == y.text[0] else 0.0

    items = [Item("a1", "a one", 1.0, 1), Item("a2", "a two", 0.9, 1), Item("b1", "b one", 0.5, 1)]
    p = pack(items, 2, near_dup=None, strategy="mmr", lam=0.5, similarity=sim)
    assert p.ids == ["a1", "b1"] and p.info["similarity"] == "sim"
    assert calls and all(x != y for x, y in calls)


def test_bad_parameters():
    with pytest.raises(ValueError, match="lam"):
        MMR(lam=1.5)
    with pytest.raises(ValueError, match="similarity"):
        MMR(similarity="nope")
    with pytest.raises(TypeError, match="similarity"):
        MMR(similarity=3)
    with pytest.raises(ValueError, match="cost_exponent"):
        MMR(cost_exponent=-1)
    bad = MMR(lam=0.5, similarity=lambda x, y: 2.0)
    with pytest.raises(ValueError, match="outside"):
        bad.select(Problem((Item("a", "a", 1.0, 1), Item("b", "b", 1.0, 1)), 5))
