"""Lost-in-the-Middle presets, interpolation, expected utility and the `curve` order."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.orders import CurveOrder
from packbench.algorithms.orders.curves import PRESETS, curve_points, expected_utility, position_weights


def test_issue_row_gpt35_20_documents():
    p = PRESETS["gpt-3.5-turbo-20"]
    assert (p.documents, p.table, p.indices) == (20, 6, (0, 4, 9, 14, 19))
    assert p.accuracy == (75.8, 57.2, 53.8, 55.4, 63.2)


def test_presets_cover_both_models_at_each_size_that_the_paper_measured():
    assert {"gpt-3.5-turbo-10", "gpt-3.5-turbo-20", "gpt-3.5-turbo-16k-30",
            "claude-1.3-10", "claude-1.3-20", "claude-1.3-30"} <= set(PRESETS)
    # Table 7 has no 4K GPT-3.5-Turbo row; it must not be invented.
    assert "gpt-3.5-turbo-30" not in PRESETS
    for p in PRESETS.values():
        assert p.table == {10: 5, 20: 6, 30: 7}[p.documents]
        assert len(p.indices) == len(p.accuracy) and p.indices[-1] == p.documents - 1
        assert all(0 < a < 100 for a in p.accuracy)
        # Every measured curve is U-shaped: the ends beat the worst middle position.
        assert min(p.accuracy[0], p.accuracy[-1]) > min(p.accuracy[1:-1])


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_weights_at_measured_positions_are_the_table_values(name):
    p = PRESETS[name]
    w = position_weights(name, p.documents)
    assert np.allclose(w[list(p.indices)], np.array(p.accuracy) / 100)


def test_linear_interpolation_of_a_weight_list():
    assert np.allclose(position_weights([1, 0, 1], 5), [1, 0.5, 0, 0.5, 1])
    assert np.allclose(position_weights([4, 2], 3), [4, 3, 2])
    assert np.allclose(position_weights([0.3], 4), [0.3] * 4)
    assert np.allclose(position_weights([2, 1], 1), [2])
    assert position_weights("claude-1.3-20", 0).shape == (0,)
    x, y = curve_points("gpt-3.5-turbo-10")
    assert np.allclose(x, [0, 4 / 9, 1]) and np.allclose(y, [0.768, 0.612, 0.624])


def test_expected_utility():
    assert expected_utility([3.0, 1.0, 2.0], [1, 0, 1]) == pytest.approx(5.0)
    items = [Item("a", "a", 2.0, 1), Item("b", "b", 4.0, 1)]
    assert expected_utility(items, [0.5, 1.0]) == pytest.approx(1.0 + 4.0)
    assert expected_utility([], "gpt-3.5-turbo-20") == 0.0
    # A NaN score used to come back as a NaN utility; a str as float()'s message without the position.
    for bad in (float("nan"), "a", None, True):
        with pytest.raises(TypeError, match=r"ordered\[1\] must be an Item or a finite score"):
            expected_utility([1.0, bad], "gpt-3.5-turbo-20")


@settings(max_examples=60, deadline=None)
@given(scores=st.lists(st.floats(0, 10, allow_nan=False), min_size=0, max_size=6),
       curve=st.one_of(st.sampled_from(sorted(PRESETS)),
                       st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=6)))
def test_curve_order_maximises_expected_utility(scores, curve):
    items = [Item(f"i{k}", f"t{k}", s, 1) for k, s in enumerate(scores)]
    arranged = CurveOrder(curve=curve).arrange(items)
    assert sorted(it.id for it in arranged) == sorted(it.id for it in items)
    best = max((expected_utility(p, curve) for p in itertools.permutations(items)), default=0.0)
    assert expected_utility(arranged, curve) >= best - 1e-9


def test_curve_order_puts_weakest_in_the_middle_for_lost_in_the_middle():
    items = [Item(f"i{k}", f"t{k}", float(k), 1) for k in range(5)]
    ids = [it.id for it in CurveOrder(curve="gpt-3.5-turbo-20").arrange(items)]
    assert ids[0] == "i4" and ids[-1] == "i3"
    assert ids[2] == "i0"  # 53.8 % at the centre is the lowest measured value


def test_curve_order_through_pack_keeps_pinned_first():
    items = [Item("p", "question", 0.0, 1, pinned=True)] + [
        Item(f"i{k}", f"text {k}", float(k), 1) for k in range(4)]
    p = pack(items, 10, near_dup=None, order="curve", curve=[0, 1, 2, 3])
    assert p.ids == ["p", "i0", "i1", "i2", "i3"]


@pytest.mark.parametrize("bad,exc", [("gpt-3.5-turbo-30", ValueError), ([], ValueError),
                                     ([1, -1], ValueError), ([1, float("nan")], TypeError),
                                     (3, TypeError), (["a"], TypeError)])
def test_bad_curve_is_rejected_with_a_clear_error(bad, exc):
    with pytest.raises(exc, match="curve"):
        CurveOrder(curve=bad)
