"""Orders: input order, score descending, lost in the middle."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.orders import LostInMiddle, ScoreDesc, lost_in_middle_slots, place


def _items(scores):
    return [Item(f"i{k}", f"item number {k}", s, 1) for k, s in enumerate(scores)]


def test_original_keeps_input_order_after_pinned():
    sys_p = Item("sys", "system", 0, 1, pinned=True)
    items = _items([1, 5, 3]) + [sys_p]
    assert pack(items, 10).ids == ["sys", "i0", "i1", "i2"]


def test_score_desc_breaks_ties_by_input_order():
    assert [i.id for i in ScoreDesc().arrange(_items([1, 5, 3, 5]))] == ["i1", "i3", "i2", "i0"]


@pytest.mark.parametrize("n, expected", [
    (1, ["s0"]), (2, ["s0", "s1"]), (3, ["s0", "s2", "s1"]),
    (4, ["s0", "s2", "s3", "s1"]), (5, ["s0", "s2", "s4", "s3", "s1"]),
])
def test_lost_in_middle_puts_best_first_second_last(n, expected):
    # sK has the K-th highest score; inputs shuffled so input order cannot explain the result.
    items = [Item(f"s{k}", f"text {k}", float(n - k), 1) for k in reversed(range(n))]
    assert [i.id for i in LostInMiddle().arrange(items)] == expected


@given(st.integers(0, 60))
def test_lost_in_middle_slots_are_a_permutation_with_best_first(n):
    slots = lost_in_middle_slots(n)
    assert sorted(slots) == list(range(n))
    if n:
        assert slots[0] == 0
    if n >= 2:
        assert slots[1] == n - 1


def test_pack_applies_the_order_after_pinned_items():
    sys_p = Item("sys", "system", 0, 1, pinned=True)
    items = [sys_p] + _items([1, 4, 2, 3])
    assert pack(items, 10, order="score_desc").ids == ["sys", "i1", "i3", "i2", "i0"]
    assert pack(items, 10, order="lost_in_middle").ids == ["sys", "i1", "i2", "i0", "i3"]


def test_place_puts_each_ranked_item_at_its_slot_and_rejects_a_non_permutation():
    ranked = _items([3, 2, 1])
    assert [i.id for i in place(ranked, [2, 0, 1])] == ["i1", "i2", "i0"]
    with pytest.raises(ValueError, match="permutation of range"):
        place(ranked, [0, 0, 1])
