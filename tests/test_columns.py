"""`pack`'s one pass over the items (`columns.read_items`) and the arrays it hands on: same answers, same errors.

The C pass and the Python checks must agree on every input: the columns, the totals, and each
error with its message. The arrays the strategies read (`Problem.arrays`), the greedy fill on them
and the Dantzig bound from the shared density order must give what the item-by-item code gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, Problem, pack
from packbench.algorithms.bounds import dantzig_bound, dantzig_bound_arrays
from packbench.algorithms.columns import ARRAYS_MIN, native_columns_available, read_items, take_in_order
from packbench.algorithms.strategies.greedy import _python_fill, density_order, density_orders

ROWS = st.lists(st.tuples(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"]),
                          st.floats(-5, 5, allow_nan=False), st.integers(1, 40), st.booleans()), max_size=30)


class _Tagged(Item):
    """A subclass: the C pass declines it, the Python checks accept it."""


def _padded(items):
    """`items` and enough plain ones after them for `read_items` to build arrays (the C pass runs)."""
    return [*items, *(Item(f"pad{k}", "p", 0.5, 1) for k in range(ARRAYS_MIN))]


def _columns_both_ways(items, monkeypatch):
    """(read_items with the C pass, read_items without), or the two errors."""
    out = []
    for native in ("1", "0"):
        monkeypatch.setenv("PACKBENCH_NATIVE", native)
        try:
            out.append(read_items(items))
        except (TypeError, ValueError) as exc:
            out.append(exc)
    monkeypatch.delenv("PACKBENCH_NATIVE")
    return out


def _same(a, b):
    if isinstance(a, Exception) or isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b)
        return
    assert a.items == b.items and a.total_tokens == b.total_tokens and a.min_score == b.min_score
    assert a.scores.tolist() == b.scores.tolist() and a.tokens.tolist() == b.tokens.tolist()
    assert a.scores.dtype == np.float64 and a.tokens.dtype == np.int64
    assert (a.pinned is None) == (b.pinned is None)
    if a.pinned is not None:
        assert a.pinned.tolist() == b.pinned.tolist()
    assert len(a.items) >= ARRAYS_MIN  # the path with arrays, where the C pass runs
    for arr in (a.scores, a.tokens, b.scores, b.tokens):
        assert not arr.flags.writeable


def test_the_c_pass_is_built_and_is_what_pack_reads():
    assert native_columns_available()
    items = _padded([Item("a", "x", 1.5, 3), Item("s", "sys", 0.0, 2, pinned=True), Item("b", "y", -1.0, 4)])
    cols = read_items(items)
    assert cols.scores.tolist()[:3] == [1.5, 0.0, -1.0] and cols.tokens.tolist()[:3] == [3, 2, 4]
    assert cols.pinned.tolist()[:3] == [False, True, False] and cols.total_tokens == 9 + ARRAYS_MIN
    assert cols.min_score == -1.0
    small = read_items(items[:3])  # few items: the plain checks, no arrays
    assert small.scores is None and small.pinned == [False, True, False] and small.total_tokens == 9


@settings(max_examples=200, deadline=None)
@given(ROWS, st.booleans())
def test_c_pass_and_python_checks_agree_on_columns_and_errors(rows, subclass):
    # Ids drawn from 8 letters: about half the lists repeat one, which must give the same error.
    items = [(_Tagged if subclass and k == 0 else Item)(i, f"t{k}", s, t, pinned=p)
             for k, (i, s, t, p) in enumerate(rows)]
    with pytest.MonkeyPatch.context() as mp:
        _same(*_columns_both_ways(_padded(items), mp))


BAD = {
    "repeated id": [Item("a", "x", 1.0, 1), Item("b", "y", 1.0, 1), Item("a", "z", 2.0, 1)],
    "two dimensions": [Item("a", "x", 1.0, 1, embedding=[1.0, 0.0]), Item("b", "y", 1.0, 1),
                       Item("c", "z", 1.0, 1, embedding=[1.0, 0.0, 2.0])],
    "tokens over 2**62": [Item("a", "x", 1.0, 2**61), Item("b", "y", 1.0, 2**61), Item("c", "z", 1.0, 2**61)],
    "one item's tokens over int64": [Item("a", "x", 1.0, 2**64)],
    "scores overflow": [Item("a", "x", 1e308, 1), Item("b", "y", -1e308, 1)],
    "not an item": [Item("a", "x", 1.0, 1), "b"],
    "not a list": "abc",
    "none": None,
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_each_error_is_the_python_checks_error_naming_the_item(case, monkeypatch):
    bad = BAD[case] if not isinstance(BAD[case], list) else _padded(BAD[case])
    native, python = _columns_both_ways(bad, monkeypatch)
    assert isinstance(native, Exception), f"{case}: the C pass let it through"
    _same(native, python)
    assert "item" in str(native)


def test_an_item_changed_behind_its_checks_is_left_to_the_python_path(monkeypatch):
    # object.__setattr__ gets past Item's own checks: the C pass must decline what it cannot vouch for.
    odd = Item("a", "x", 1.0, 2)
    object.__setattr__(odd, "score", 3)  # an int, not a float
    weird = Item("b", "y", 1.0, 2)
    object.__setattr__(weird, "pinned", 1)
    for items in ([odd, Item("c", "z", 1.0, 1)], [weird]):
        _same(*_columns_both_ways(_padded(items), monkeypatch))


def test_embeddings_of_one_dimension_pass_and_are_not_columns():
    items = _padded([Item("a", "x", 1.0, 1, embedding=[1.0, 0.0]), Item("b", "y", 2.0, 1)])
    assert read_items(items).scores.tolist()[:2] == [1.0, 2.0]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=40), st.integers(0, 120), st.data())
def test_take_in_order_is_the_python_fill(tokens, room, data):
    n = len(tokens)
    order = data.draw(st.permutations(range(n)))
    start = data.draw(st.lists(st.sampled_from(range(n)), unique=True, max_size=3))
    if sum(tokens[k] for k in start) > room:
        start = []
    cands = [Item(f"i{k}", "", 1.0, t) for k, t in enumerate(tokens)]
    used = sum(tokens[k] for k in start)
    want = _python_fill(cands, room, list(start), set(start), used, order)[len(start):]
    got = take_in_order(np.array(tokens, dtype=np.int64), np.array(order, dtype=np.int64), start, room - used)
    assert got == want


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5, -1.0]), st.integers(1, 6)),
                min_size=1, max_size=40), st.integers(0, 60))
def test_shared_density_order_gives_the_bound_and_order_of_their_own_sorts(rows, room):
    # Few distinct values: many equal densities, whose ties the two orders break differently.
    cands = tuple(Item(f"i{k:02d}", "", s, t) for k, (s, t) in enumerate(rows))
    scores = np.array([s for s, _ in rows], dtype=np.float64)
    tokens = np.array([t for _, t in rows], dtype=np.int64)
    order, by_index = density_orders(cands, scores, tokens)
    assert order.tolist() == density_order(cands)  # the item-by-item sort (under 256 candidates)
    assert by_index.tolist() == np.argsort(-scores / tokens, kind="stable").tolist()
    assert dantzig_bound_arrays(scores, tokens, room, by_index) == dantzig_bound_arrays(scores, tokens, room)
    assert dantzig_bound_arrays(scores, tokens, room, by_index) == dantzig_bound(cands, room)


def test_problem_arrays_are_its_candidates_and_read_only():
    cands = tuple(Item(f"i{k}", "", float(k) / 3, k + 1) for k in range(5))
    problem = Problem(cands, 7)
    scores, tokens = problem.arrays()
    assert scores.tolist() == [it.score for it in cands] and tokens.tolist() == [it.tokens for it in cands]
    assert problem.arrays()[0] is scores and not scores.flags.writeable and not tokens.flags.writeable
    assert problem == Problem(cands, 7)  # not a field: equality ignores it
    assert Problem((Item("a", "", 1.0, 2**62), Item("b", "", 1.0, 1)), 5).arrays() is None


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([30, 300, 700]), st.sampled_from([0, 40, 900, 5000]),
       st.sampled_from([None, 0.8]), st.booleans())
def test_pack_is_the_same_with_and_without_the_c_pass(seed, n, budget, near_dup, with_pinned):
    rng = np.random.default_rng(seed)
    # Coarse scores and tokens: equal densities, and negative scores that must be set aside.
    items = [Item(f"c{k}", " ".join(rng.choice(list("abcdefgh"), 6)), float(rng.integers(-2, 6)),
                  int(rng.integers(1, 9)), pinned=bool(with_pinned and k % 97 == 0)) for k in range(n)]
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        for native in ("1", "0"):
            mp.setenv("PACKBENCH_NATIVE", native)
            for strategy in ("greedy_best_single", "greedy"):
                p = pack(items, budget, near_dup, strategy=strategy, pinned_overflow="clamp")
                out[native, strategy] = (p.ids, p.score, p.upper_bound, p.optimal, dict(p.dropped), p.over_budget)
    for strategy in ("greedy_best_single", "greedy"):
        assert out["1", strategy] == out["0", strategy]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 30), min_size=300, max_size=400), st.integers(0, 3000), st.randoms(use_true_random=False))
def test_fill_arrays_gives_one_answer_with_and_without_the_c_fill(tokens, room, rnd):
    from packbench.algorithms import columns
    from packbench.algorithms.strategies.density import fill_arrays

    order = list(range(len(tokens)))
    rnd.shuffle(order)
    tok, idx = np.array(tokens, dtype=np.int64), np.array(order, dtype=np.int64)
    start = [k for k in rnd.sample(range(len(tokens)), 2) if tokens[k] <= room // 2]
    with_c = fill_arrays(tok, idx, room, start)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(columns, "_NATIVE", None)  # the numpy loop
        assert fill_arrays(tok, idx, room, start) == with_c


def test_kept_flags_of_any_form_mask_the_same_candidates():
    from packbench.algorithms.pack import _flags

    want = [True, False, True, True, False]
    for kept in (want, [1, 0, 1, 1, 0], np.array(want), [np.True_, np.False_, np.True_, np.True_, np.False_],
                 [2, 0, "x", 1.0, None]):
        assert _flags(kept).tolist() == want
