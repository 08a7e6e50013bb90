"""The embeddings in `pack`'s C pass: their lengths checked at every size, and the float32 rows cast in C.

`read_items` no longer runs the Python length check after the C pass, so the C pass itself must
decline a list whose embeddings differ in length (the Python checks then raise); and
`columns.embedding_rows` must give numpy's stack (float32: its cast element for element), or decline.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms import columns
from packbench.algorithms.columns import ARRAYS_MIN, embedding_rows, read_items
from packbench.algorithms.strategies import diversity_kernels


def _items(n, dim, odd_at=None, odd_dim=None):
    rng = np.random.default_rng(n + dim)
    return [Item(f"i{k}", f"t{k}", float(k % 7), 1 + k % 5,
                 embedding=rng.normal(size=odd_dim if k == odd_at else dim).tolist()) for k in range(n)]


@pytest.mark.parametrize("n", [3, ARRAYS_MIN - 1, ARRAYS_MIN, 2 * ARRAYS_MIN])
@pytest.mark.parametrize("native", ["1", "0"])
def test_a_wrong_embedding_length_is_a_value_error_naming_the_item_and_field(n, native, monkeypatch):
    monkeypatch.setenv("PACKBENCH_NATIVE", native)
    items = _items(n, 4, odd_at=n - 1, odd_dim=5)
    with pytest.raises(ValueError, match=rf"item 'i{n - 1}': embedding has 5 dimensions.*'i0' has 4"):
        read_items(items)
    with pytest.raises(ValueError, match=rf"item 'i{n - 1}': embedding"):
        pack(items, 10, None, strategy="mmr", similarity="cosine")


def test_the_c_pass_itself_declines_embeddings_of_two_lengths():
    assert columns._NATIVE is not None
    assert columns._NATIVE.item_columns(_items(5, 4, odd_at=2, odd_dim=3), Item) is None
    found = columns._NATIVE.item_columns(_items(5, 4), Item)
    assert found is not None and found[5] == 4  # the length, reported
    assert columns._NATIVE.item_columns([Item("a", "x", 1.0, 1)], Item)[5] == 0  # no embedding set


def test_small_inputs_run_the_c_pass_and_give_the_python_paths_columns(monkeypatch):
    items = [Item("a", "x", 1.0, 2), Item("s", "y", 0.5, 3, pinned=True)]
    monkeypatch.setattr(columns, "_python_columns", lambda out: pytest.fail("the Python path ran"))
    cols = read_items(items)
    assert cols.scores is None and cols.pinned == [False, True] and cols.total_tokens == 5
    assert cols.min_score == 0.5


FLOATS = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.floats(-3.4e38, 3.4e38, allow_nan=False),
                   st.floats(-1e-40, 1e-40, allow_nan=False))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.integers(1, 12), st.data())
def test_the_c_stack_is_numpys_stack_bit_for_bit(n, dim, data):
    rows = [data.draw(st.lists(FLOATS, min_size=dim, max_size=dim)) for _ in range(n)]
    items = [Item(f"i{k}", "t", 1.0, 1, embedding=r) for k, r in enumerate(rows)]
    for dtype in (np.float32, np.float64):
        got = embedding_rows(items, dtype)
        want = np.array(rows, dtype=dtype)
        assert got is not None and got.dtype == dtype and got.shape == (n, dim)
        assert got.tobytes() == want.tobytes()  # bit for bit, signed zeros and subnormals included
        assert not got.flags.writeable
    with pytest.raises(ValueError, match="float64 or float32"):
        embedding_rows(items, np.int64)


@pytest.mark.parametrize("case", ["over float32", "missing", "other length", "subclass", "int64 behind the checks",
                                  "big-endian behind the checks"])
def test_the_c_cast_declines_what_it_cannot_give_exactly(case):
    class Tagged(Item):
        pass

    items = _items(4, 3)
    if case == "over float32":
        items[2] = Item("big", "t", 1.0, 1, embedding=[1.0, 3.5e38, 0.0])
    elif case == "missing":
        items[1] = Item("none", "t", 1.0, 1)
    elif case == "other length":
        items[3] = Item("long", "t", 1.0, 1, embedding=[1.0, 2.0, 3.0, 4.0])
    elif case == "subclass":
        items[1] = Tagged("sub", "t", 1.0, 1, embedding=[1.0, 2.0, 3.0])
    else:  # 8-byte entries that are not native float64: read as doubles they would be garbage
        dtype = np.int64 if case.startswith("int64") else np.dtype(">f8")
        object.__setattr__(items[2], "embedding", np.array([1, 2, 3], dtype=dtype))
    assert embedding_rows(items, np.float32) is None
    assert (embedding_rows(items, np.float64) is None) == (case != "over float32")  # float64 holds 3.5e38


@pytest.mark.parametrize("n", [40, 300, 500])  # dpp's float32 path from 400
@pytest.mark.parametrize("strategy", ["mmr", "dpp"])
def test_picks_are_the_same_with_the_c_rows_and_numpys(n, strategy, monkeypatch):
    items = _items(n, 16)
    items[5] = Item("pin", "t", 1.0, 2, pinned=True, embedding=items[5].embedding)
    kw = dict(strategy=strategy, similarity="cosine")
    fast = pack(items, 60, None, **kw)
    monkeypatch.setattr(diversity_kernels, "embedding_rows", lambda _items, _dtype: None)
    slow = pack(items, 60, None, **kw)
    assert fast.info["pick_order"] == slow.info["pick_order"] and fast.ids == slow.ids
