"""Metrics on hand-made instances: leakage, score ratio, utility, recall, utilisation, bounds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.experiments.metrics import (LEAK_DETECTOR, LEAK_GROUND_TRUTH, Optimum, answer_recall, budget_utilisation,
                                 certified_bound, containment_leaks, duplicate_leakage, position_weights,
                                 positional_utility, score_ratio)


def item(i, tokens, score=1.0, text=None):
    return Item(i, text or f"unique text number {i} " + " ".join(f"w{i}{k}" for k in range(6)), score, tokens)


def test_leakage_with_ground_truth_counts_later_members_of_a_chosen_group():
    a, b, c, d, e = item("a", 10), item("b", 30), item("c", 20), item("d", 40), item("e", 5)
    groups = {"a": "g1", "b": "g1", "c": "g2", "d": "g1", "e": "g2"}
    out = duplicate_leakage([a, c, b, d, e], groups)
    # b and d repeat g1 (a came first), e repeats g2 (c came first)
    assert out["leak_items"] == pytest.approx(3 / 5)
    assert out["leak_tokens"] == pytest.approx((30 + 40 + 5) / 105)
    assert out["leak_detector"] == LEAK_GROUND_TRUTH
    # the earlier-chosen member decides which tokens leak
    assert duplicate_leakage([b, a], {"a": "g", "b": "g"})["leak_tokens"] == pytest.approx(10 / 40)
    assert duplicate_leakage([a, b], {"a": "g", "b": "g"})["leak_tokens"] == pytest.approx(30 / 40)


def test_leakage_ids_missing_from_groups_are_their_own_group_and_empty_is_zero():
    assert duplicate_leakage([item("x", 3), item("y", 4)], {})["leak_items"] == 0.0
    assert duplicate_leakage([], {"a": "g"}) == {"leak_items": 0.0, "leak_tokens": 0.0,
                                                 "leak_detector": LEAK_GROUND_TRUTH}


def test_containment_detector_without_ground_truth():
    base = "the refund window is thirty days from the delivery date for every order placed online today"
    copy = base + " indeed"  # 12 of its 13 word 5-grams are in base
    other = "shipping is free for orders above fifty dollars within the country on weekdays only"
    chunk = "refund window is thirty days from the delivery date"  # a sub-span of base
    chosen = [Item("a", base, 1, 20), Item("b", copy, 1, 21), Item("c", other, 1, 15), Item("d", chunk, 1, 9)]
    assert containment_leaks(chosen) == {"b", "d"}
    out = duplicate_leakage(chosen, None)
    assert out["leak_detector"] == LEAK_DETECTOR
    assert out["leak_items"] == pytest.approx(2 / 4) and out["leak_tokens"] == pytest.approx(30 / 65)
    # containment is directional: the long text after its own sub-span is new content
    assert containment_leaks([chosen[3], chosen[0]]) == set()


def test_leakage_on_a_packed_instance_matches_a_hand_count():
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    items = [Item("sys", "system prompt", 0, 3, pinned=True), Item("x1", text, 9, 12),
             Item("x2", text.replace("mu", "nu"), 8, 12), Item("y", "completely different words here now", 5, 6)]
    groups = {"x1": "x", "x2": "x", "y": "y"}
    off = pack(items, 40, None, strategy="exact_dp")          # no dedupe: both copies fit and are chosen
    chosen = [it for it in off if not it.pinned]
    assert [it.id for it in chosen] == ["x1", "x2", "y"]
    assert duplicate_leakage(chosen, groups)["leak_tokens"] == pytest.approx(12 / 30)
    on = pack(items, 40, 0.5, strategy="exact_dp")            # dedupe drops x2: nothing leaks
    assert duplicate_leakage([it for it in on if not it.pinned], groups)["leak_tokens"] == 0.0


def test_score_ratio_is_exact_against_a_proven_optimum_else_a_lower_bound():
    assert score_ratio(45.0, Optimum(90.0, True, "exact_dp")) == (0.5, "exact")
    assert score_ratio(45.0, Optimum(100.0, False, "dantzig_bound")) == (0.45, "certified_lower_bound")
    assert score_ratio(0.0, Optimum(0.0, True, "exact_dp")) == (1.0, "exact")


def test_the_old_reference_names_still_work_and_warn():
    from packbench.experiments import metrics
    from packbench.experiments.metrics import Measured

    with pytest.warns(DeprecationWarning, match="use Optimum"):
        old = metrics.Reference
    assert old is Optimum
    with pytest.warns(DeprecationWarning, match="use Optimum.proven"):
        assert Optimum(3.0, False, "dantzig_bound").exact is False
    packing = pack([item("a", 10)], 10, None, strategy="greedy")
    run = Measured(packing, 1, 10, Optimum(1.0, True, "exact_dp"), (0.1,), None, None, "gpt-3.5-turbo-20")
    with pytest.warns(DeprecationWarning, match="use Measured.optimum"):
        assert run.reference is run.optimum
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        metrics.Nothing


def test_certified_bound_is_dantzig_after_dedupe_and_pinned_room():
    items = [Item("p", "pinned words", 0, 10, pinned=True), Item("a", "one two three four", 6, 4),
             Item("b", "one two three four", 5, 4), Item("c", "five six seven eight", 4, 8)]
    # room 20 - 10 = 10; after dedupe (b == a) candidates a (6/4) then c (4/8): 6 + 4 * 6/8 = 9
    assert certified_bound(items, 20, 0.8) == pytest.approx(9.0)
    assert certified_bound(items, 20, None) == pytest.approx(6 + 5 + 4 * 2 / 8)
    assert certified_bound(items, 10, 0.8) == 0.0


def test_position_weights_list_and_preset():
    assert position_weights([1.0, 0.0], 3).tolist() == [1.0, 0.5, 0.0]
    assert position_weights([0.7], 4).tolist() == [0.7] * 4
    w = position_weights("gpt-3.5-turbo-20", 20)
    assert w[0] == pytest.approx(0.758) and w[-1] == pytest.approx(0.632) and w[9] < w[0]
    with pytest.raises(ValueError):
        position_weights([1.0, -1.0], 3)
    with pytest.raises(ValueError):
        position_weights("no-such-model", 3)


def test_positional_utility_and_order_efficiency():
    a, b, c = item("a", 1, 3.0), item("b", 1, 2.0), item("c", 1, 1.0)
    curve = [1.0, 0.0, 1.0]  # ends matter, the middle does not
    assert positional_utility([a, b, c], curve) == (pytest.approx(4.0), pytest.approx(4.0 / 5.0))
    assert positional_utility([a, c, b], curve) == (pytest.approx(5.0), pytest.approx(1.0))
    assert positional_utility([], curve) == (0.0, 1.0)


@given(st.lists(st.floats(0, 100), min_size=1, max_size=8), st.permutations(range(8)))
def test_order_efficiency_in_unit_interval_and_one_for_curve_order(scores, perm):
    items = [item(f"i{k}", 1, s) for k, s in enumerate(scores)]
    shuffled = [items[k] for k in perm if k < len(items)]
    curve = "gpt-3.5-turbo-10"
    util, eff = positional_utility(shuffled, curve)
    assert -1e-9 <= eff <= 1 + 1e-9
    w = position_weights(curve, len(items))
    ranked = sorted(items, key=lambda it: -it.score)
    slots = sorted(range(len(items)), key=lambda j: (-w[j], j))
    best = [None] * len(items)
    for it, j in zip(ranked, slots):
        best[j] = it
    assert positional_utility(best, curve)[1] == pytest.approx(1.0)
    assert util <= positional_utility(best, curve)[0] + 1e-9


def test_answer_recall_is_whether_the_context_holds_an_answer():
    answers = frozenset({"a", "a2", "b"})
    assert answer_recall(["a2", "c"], answers) == 1.0
    assert answer_recall(["c", "d"], answers) == 0.0
    assert answer_recall([], answers) == 0.0
    # A question with no answer-bearing candidate counts as a miss; unlabelled instances have no recall.
    assert answer_recall(["a"], frozenset()) == 0.0
    assert answer_recall(["a"], None) is None


def test_budget_utilisation():
    assert budget_utilisation(75, 100) == 0.75 and budget_utilisation(0, 0) is None
