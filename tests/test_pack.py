"""`pack`: validation, pinned handling, dedupe reporting, routing of parameters."""

import time

import pytest

from packbench.algorithms import STRATEGIES, Item, Packing, pack
from packbench.algorithms.pack import stage_calls
from packbench.algorithms.peers import PEER_STRATEGIES

OWN_STRATEGIES = sorted(set(STRATEGIES) - {cls.name for cls in PEER_STRATEGIES})  # peers: tests/test_peers.py

SYS = Item("sys", "You are a helpful assistant.", 0.5, 10, pinned=True)
Q = Item("q", "what is the refund window", 0.0, 6, pinned=True)


def test_empty_input_returns_an_empty_packing():
    res = pack([], 100)
    assert isinstance(res, Packing) and len(res) == 0 and res.score == 0 and res.tokens == 0
    assert res.budget == 100 and not res.over_budget


def test_pinned_items_come_first_in_input_order_and_count_in_the_score():
    a = Item("a", "alpha beta gamma", 3.0, 5)
    res = pack([a, Q, SYS], 30)
    assert res.ids == ["q", "sys", "a"]
    assert res.score == pytest.approx(3.5) and res.tokens == 21


def test_pinned_overflow_raises_by_default_and_names_the_pinned_items():
    with pytest.raises(ValueError, match=r"pinned items need 16 tokens, over the budget of 15 \(pinned: sys, q\)"):
        pack([SYS, Q, Item("a", "x", 1.0, 1)], 15)


def test_pinned_overflow_clamp_returns_pinned_alone_flagged():
    res = pack([SYS, Item("a", "x y z", 1.0, 1), Q], 15, pinned_overflow="clamp")
    assert res.ids == ["sys", "q"] and res.over_budget
    assert res.score == pytest.approx(0.5)


def test_pinned_overflow_must_be_a_known_mode():
    with pytest.raises(ValueError, match=r"pinned_overflow must be one of \['raise', 'clamp'\]"):
        pack([SYS], 100, pinned_overflow="drop")


@pytest.mark.parametrize("strategy", OWN_STRATEGIES)
def test_negative_scores_are_never_chosen(strategy):
    items = [Item("neg", "a lonely negative chunk", -1.0, 1), Item("pos", "positive words here", 1.0, 1)]
    res = pack(items, 10, strategy=strategy)
    assert "neg" not in res.ids


def test_repeated_ids_are_rejected():
    with pytest.raises(ValueError, match=r"item 'a': id is repeated"):
        pack([Item("a", "x", 1, 1), Item("a", "y", 2, 1)], 10)


def test_non_items_are_rejected_with_their_position():
    with pytest.raises(TypeError, match=r"items\[1\] must be an Item, got dict"):
        pack([Item("a", "x", 1, 1), {"id": "b"}], 10)
    with pytest.raises(TypeError, match="items must be an iterable of Item"):
        pack("abc", 10)


@pytest.mark.parametrize("budget, exc", [(-1, ValueError), (1.5, TypeError), (True, TypeError), ("10", TypeError)])
def test_budget_must_be_a_non_negative_int(budget, exc):
    with pytest.raises(exc, match="budget must be a non-negative int"):
        pack([Item("a", "x", 1, 1)], budget)


@pytest.mark.parametrize("near_dup, exc", [(1.5, ValueError), (-0.1, ValueError), ("0.8", TypeError)])
def test_near_dup_must_be_in_unit_interval_or_none(near_dup, exc):
    with pytest.raises(exc, match="near_dup"):
        pack([Item("a", "x", 1, 1)], 10, near_dup)


def test_unknown_names_list_the_valid_choices():
    with pytest.raises(ValueError, match=r"unknown strategy 'fastest'; valid: .*greedy_best_single"):
        pack([], 10, strategy="fastest")
    with pytest.raises(ValueError, match=r"unknown order 'random'; valid: .*lost_in_middle"):
        pack([], 10, order="random")
    with pytest.raises(ValueError, match=r"unknown dedupe method 'fuzzy'; valid: .*exact"):
        pack([], 10, dedupe="fuzzy")


def test_unknown_and_out_of_range_params_are_rejected():
    with pytest.raises(ValueError, match=r"unknown parameter 'time_limit'.*strategy 'greedy': none"):
        pack([], 10, strategy="greedy", time_limit=3)
    with pytest.raises(ValueError, match=r"strategy 'cpsat': parameter 'time_limit' must be > 0.0"):
        pack([], 10, strategy="cpsat", time_limit=0)
    with pytest.raises(ValueError, match=r"strategy 'cpsat': parameter 'workers' must be >= 1"):
        pack([], 10, strategy="cpsat", workers=0)


def test_params_are_validated_before_any_work():
    # Pinned overflow would raise too; the parameter error must come first.
    with pytest.raises(ValueError, match="unknown parameter"):
        pack([SYS], 1, strategy="greedy", nonsense=1)


def test_dropped_maps_each_duplicate_to_the_item_it_duplicated():
    a = Item("a", "the refund window is thirty days from delivery", 5.0, 9)
    a_copy = Item("a_copy", "The refund window is thirty days from delivery!", 4.0, 9)
    echo = Item("echo", "You are a helpful assistant", 9.0, 5)
    res = pack([SYS, a, a_copy, echo], 100)
    assert dict(res.dropped) == {"a_copy": "a", "echo": "sys"}
    assert res.ids == ["sys", "a"]


def test_dedupe_can_be_turned_off():
    a = Item("a", "same words here", 5.0, 3)
    b = Item("b", "same words here", 4.0, 3)
    assert pack([a, b], 10).ids == ["a"]
    res = pack([a, b], 10, None)
    assert res.ids == ["a", "b"] and not res.dropped


def test_result_is_deterministic_and_reports_timing():
    items = [Item(f"i{k}", f"text number {k} with words {k * 7}", (k * 37 % 11) / 3, 1 + k % 5) for k in range(30)]
    first, second = pack(items, 40, strategy="exact_dp"), pack(list(items), 40, strategy="exact_dp")
    assert first.ids == second.ids and first.score == second.score
    assert first.strategy == "exact_dp" and 0 < first.seconds < 60
    # CPU time per stage: every stage that ran, none without a fill; the stages fit in the whole call.
    assert set(first.stages) == {"dedupe", "select", "order", "pack"}
    assert sum(v for k, v in first.stages.items() if k != "pack") <= first.stages["pack"] + 1e-6


def _burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_stage_times_land_on_the_stage_that_spent_them():
    def slow_strategy(items, budget):
        _burn(0.02)
        return [items[0].id]

    items = [Item(f"i{k}", f"text {k} here", 1.0 + k, 2) for k in range(5)]
    res = pack(items, 10, strategy=slow_strategy, fill="truncate")
    assert set(res.stages) == {"dedupe", "select", "order", "fill", "pack"}
    assert res.stages["select"] >= 0.02 and res.stages["pack"] >= res.stages["select"]
    assert max(res.stages["dedupe"], res.stages["order"], res.stages["fill"]) < res.stages["select"]


def test_stage_calls_run_what_pack_runs():
    calls_seen = []

    def picker(items, budget, keep=2):
        calls_seen.append((tuple(it.id for it in items), budget, keep))
        return [it.id for it in items[:keep]]

    items = [SYS, Item("a", "alpha beta gamma", 3.0, 5), Item("b", "alpha beta gamma", 2.0, 5),
             Item("c", "delta epsilon", 1.0, 4)]
    res = pack(items, 30, strategy=picker, keep=2)
    calls = stage_calls(items, 30, strategy=picker, keep=2)
    assert set(calls) == {"dedupe", "select", "order", "pack"}
    # The strategy stage calls the function itself with what pack gave it: "b" is a duplicate, the
    # budget capped at the tokens of what is left (10 + 5 + 4).
    assert calls["select"]() == ["sys", "a"] and calls_seen[-1] == calls_seen[0] == (("sys", "a", "c"), 19, 2)
    assert calls["pack"]().ids == res.ids
    kept, dropped = calls["dedupe"]()
    assert list(kept) == [True, False, True] and dict(dropped) == {"b": "a"}
    assert [it.id for it in calls["order"]()] == ["a"]
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        stage_calls(items, 30, strategy="greedy", nope=1)


def test_upper_bound_includes_the_pinned_score():
    a = Item("a", "alpha", 3.0, 5)
    res = pack([SYS, a], 20, strategy="exact_dp")
    assert res.optimal is True and res.upper_bound == pytest.approx(res.score) == pytest.approx(3.5)


def test_zero_budget_keeps_only_pinned():
    assert pack([Item("a", "x", 1, 1)], 0).ids == []


@pytest.mark.parametrize("strategy", OWN_STRATEGIES)
def test_a_no_limit_budget_takes_everything_with_every_strategy(strategy):
    # sys.maxsize (or larger) as "no limit" once overflowed the DP's memory check and OR-Tools' int64 arguments.
    items = [SYS, Item("a", "alpha beta gamma", 3.0, 5), Item("b", "delta epsilon", 1.0, 4, source="d"),
             Item("c", "zeta eta theta", 2.0, 3)]
    for budget in (2**63 - 1, 10**30):
        res = pack(items, budget, strategy=strategy)
        assert res.ids == ["sys", "a", "b", "c"] and res.budget == budget and res.tokens == 22


def test_token_totals_beyond_int64_headroom_are_rejected_naming_the_item():
    items = [Item("a", "x", 1.0, 2**62), Item("b", "y", 1.0, 3)]
    with pytest.raises(ValueError, match=r"total tokens .* exceed 2\*\*62.*largest item 'a'"):
        pack(items, 10, strategy="cpsat")


@pytest.mark.parametrize("strategy", ["greedy", "exact_dp", "fptas"])
def test_score_totals_that_overflow_a_float_are_rejected_naming_the_item(strategy):
    items = [Item("a", "x y z", 1e308, 3), Item("b", "p q r", 1e308, 3), Item("c", "s t u", 1.0, 1)]
    with pytest.raises(ValueError, match=r"absolute scores add up to more than .* \(largest: item 'a'\)"):
        pack(items, 7, strategy=strategy)
    # Large but summable scores still pack exactly.
    big = [Item("a", "x y z", 1e300, 3), Item("b", "p q r", 2e300, 3), Item("c", "s t u", 5e299, 4)]
    res = pack(big, 7, strategy="exact")
    assert res.ids == ["a", "b"] and res.score == pytest.approx(3e300)
