"""pack's fast paths (dedupe off, nothing pinned) change no answer and no error."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.validation import check_totals, validate_items


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
def test_bad_input_gets_the_same_clear_error_with_dedupe_off_and_on(case):
    with pytest.raises((TypeError, ValueError)) as off:
        pack(BAD[case], 10, None, strategy="mmr", similarity="cosine")
    with pytest.raises((TypeError, ValueError)) as on:
        pack(BAD[case], 10, 0.8)
    assert type(off.value) is type(on.value) and str(off.value) == str(on.value)
    assert "item" in str(off.value)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(-2, 3, allow_nan=False), st.integers(1, 9), st.booleans()), max_size=12),
       st.integers(0, 40))
def test_totals_and_pack_with_dedupe_off_agree_with_dedupe_on_at_threshold_one(rows, budget):
    items = [Item(f"i{k}", f"text {k}", s, t, pinned=p) for k, (s, t, p) in enumerate(rows)]
    assert check_totals(validate_items(items)) == (sum(t for _, t, _ in rows), min((s for s, _, _ in rows), default=0.0))
    # Dedupe at 1.0 drops nothing here (texts differ), so the dedupe-off fast path must give the same packing.
    try:
        off = pack(items, budget, None, pinned_overflow="clamp")
    except ValueError as exc:
        pytest.skip(str(exc))
    on = pack(items, budget, 1.0, pinned_overflow="clamp")
    assert off.ids == on.ids and off.over_budget == on.over_budget
