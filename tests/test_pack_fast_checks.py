"""pack's one-pass input checks raise what the separate checks raise, and its fast paths change no answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.validation import check_totals, validate_items, validate_pack_items


def _error(fn, items):
    try:
        return fn(items)
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)


def _separate(items):
    out = validate_items(items)
    return out, check_totals(out), any(it.pinned for it in out)


BAD = {
    "repeated id": [Item("a", "x", 1.0, 1), Item("b", "y", 1.0, 1), Item("a", "z", 2.0, 1)],
    "two dimensions": [Item("a", "x", 1.0, 1, embedding=[1.0, 0.0]), Item("b", "y", 1.0, 1),
                       Item("c", "z", 1.0, 1, embedding=[1.0, 0.0, 2.0])],
    "tokens overflow": [Item("a", "x", 1.0, 2**61), Item("b", "y", 1.0, 2**61), Item("c", "z", 1.0, 2**61)],
    "scores overflow": [Item("a", "x", 1e308, 1), Item("b", "y", -1e308, 1)],
    "not an item": [Item("a", "x", 1.0, 1), "b"],
    "not a list": "abc",
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_one_pass_checks_raise_the_separate_checks_errors(case):
    got, want = _error(validate_pack_items, BAD[case]), _error(_separate, BAD[case])
    assert isinstance(want, tuple) and got == want
    with pytest.raises(want[0], match="item|items"):
        pack(BAD[case], 10, None)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-2, 3, allow_nan=False), st.integers(1, 9), st.booleans()), max_size=12),
       st.integers(0, 40))
def test_one_pass_totals_and_pinned_flag_match_and_pack_agrees_with_dedupe_on_at_threshold_one(rows, budget):
    items = [Item(f"i{k}", f"text {k}", s, t, pinned=p) for k, (s, t, p) in enumerate(rows)]
    assert validate_pack_items(items) == _separate(items)
    # Dedupe at 1.0 drops nothing here (texts differ), so the dedupe-off fast path must give the same packing.
    try:
        off = pack(items, budget, None, pinned_overflow="clamp")
    except ValueError as exc:
        pytest.skip(str(exc))
    on = pack(items, budget, 1.0, pinned_overflow="clamp")
    assert off.ids == on.ids and off.over_budget == on.over_budget
