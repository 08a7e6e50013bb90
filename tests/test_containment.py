"""Outside strategies are contained: what they return is checked, they cannot change the caller's items,
and a function strategy with a `timeout` is stopped from outside when it hangs, exits or kills itself."""

from __future__ import annotations

import time

import pytest
from packbench.algorithms import Item, StrategyContractError, pack
from packbench.algorithms.strategies.function import StrategyTimeout

ITEMS = [Item("a", "alpha text", 10, 3), Item("b", "beta text", 9, 3), Item("p", "system", 1, 2, pinned=True)]


@pytest.mark.parametrize("strategy, field", [
    ("tests.rogue:NanBound", r"upper_bound=nan; it must be finite"),
    ("tests.rogue:BoolIndex", r"chose index True, a bool, not an int index"),
    ("tests.rogue:EmptyOptimal", r"optimal=True, but candidate 'a' .* fits in the 6 tokens left"),
    ("tests.rogue:LowBound", r"upper_bound=-5.0, below the score 10.0 of its own choice"),
])
def test_a_selection_that_breaks_its_claims_names_the_strategy_and_the_field(strategy, field):
    with pytest.raises(StrategyContractError, match=rf"strategy '{strategy}' .*{field}"):
        pack(ITEMS, 8, None, strategy=strategy)


def test_optimal_true_is_accepted_when_nothing_that_scores_more_fits():
    from packbench.algorithms import Selection, Strategy

    class Full(Strategy):
        def select(self, problem):
            return Selection((0,), optimal=True, upper_bound=10.0)

    assert pack(ITEMS, 5, None, strategy=Full).optimal is True  # room 3: only one of a, b fits
    with pytest.raises(StrategyContractError, match="optimal=True, but candidate 'b'"):
        pack(ITEMS, 8, None, strategy=Full)


@pytest.mark.parametrize("strategy", ["tests.rogue:mutates", "tests.rogue:MutatesClass"])
def test_outside_code_cannot_change_the_callers_items(strategy):
    before = [(it.id, it.text, it.score, it.tokens, it.pinned) for it in ITEMS]
    packing = pack(ITEMS, 8, None, strategy=strategy)
    assert [(it.id, it.text, it.score, it.tokens, it.pinned) for it in ITEMS] == before
    # and the packing is built from the caller's items, not from what the plug-in did to its copies
    assert all(it.score < 1e9 for it in packing)


def test_a_function_strategy_timeout_stops_a_hang_from_outside():
    start = time.monotonic()
    with pytest.raises(StrategyTimeout, match=r"strategy 'tests.rogue:hangs' ran over its time limit of 0.5 s"):
        pack(ITEMS, 8, None, strategy="tests.rogue:hangs", timeout=0.5)
    assert time.monotonic() - start < 30  # returned: the hang was stopped, not waited for


@pytest.mark.parametrize("strategy, message", [
    ("tests.rogue:exits", r"called sys.exit\(3\) instead of returning"),
    ("tests.rogue:kills", r"ended its process \(exit code 7\) without returning"),
])
def test_a_function_strategy_that_exits_costs_only_its_call(strategy, message):
    with pytest.raises(StrategyContractError, match=message):
        pack(ITEMS, 8, None, strategy=strategy, timeout=30.0)


def test_a_timeout_gives_the_same_packing_and_errors_cross_back():
    def top(items, budget, k=1):
        return sorted((it.id for it in items if not it.pinned), key=lambda i: i)[:k]

    plain = pack(ITEMS, 8, None, strategy=top, k=2)
    limited = pack(ITEMS, 8, None, strategy=top, k=2, timeout=30.0)
    assert [it.id for it in limited] == [it.id for it in plain] == ["p", "a", "b"]
    with pytest.raises(ZeroDivisionError, match="bug in the plug-in"):
        pack(ITEMS, 8, None, strategy="tests.rogue:raises", timeout=30.0)


@pytest.mark.parametrize("value", [0, -1.0, float("nan"), "2", True])
def test_a_bad_timeout_is_refused(value):
    with pytest.raises((TypeError, ValueError), match="parameter 'timeout'"):
        pack(ITEMS, 8, None, strategy="tests.rogue:mutates", timeout=value)


def test_an_unset_timeout_leaves_the_params_and_so_the_run_ids_as_they_were():
    from packbench.algorithms import STRATEGIES

    _, cls = STRATEGIES.resolve("tests.rogue:mutates")
    assert "timeout" not in cls().params
    assert cls(timeout=2.0).params == {"timeout": 2.0}
