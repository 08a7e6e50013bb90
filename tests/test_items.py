"""Item validation and the Packing sequence."""

import math

import numpy as np
import pytest

from packbench.algorithms import Item, Packing


@pytest.mark.parametrize("tokens", [0, -3])
def test_tokens_must_be_positive(tokens):
    with pytest.raises(ValueError, match=r"item 'x': tokens must be a positive int"):
        Item("x", "t", 1.0, tokens)


@pytest.mark.parametrize("tokens", [1.5, True, "3", None])
def test_tokens_must_be_an_int_not_a_bool(tokens):
    with pytest.raises(TypeError, match=r"item 'x': tokens must be a positive int"):
        Item("x", "t", 1.0, tokens)


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf])
def test_score_must_be_finite(score):
    with pytest.raises(ValueError, match=r"item 'x': score must be finite"):
        Item("x", "t", score, 3)


@pytest.mark.parametrize("score", ["1", None, True, [1]])
def test_score_must_be_a_number(score):
    with pytest.raises(TypeError, match=r"item 'x': score must be a real number"):
        Item("x", "t", score, 3)


def test_id_must_be_a_non_empty_str():
    with pytest.raises(ValueError, match="non-empty"):
        Item("", "t", 1.0, 3)
    with pytest.raises(TypeError, match="item id must be a str"):
        Item(7, "t", 1.0, 3)


def test_text_pinned_and_source_types_are_checked():
    with pytest.raises(TypeError, match=r"item 'x': text must be a str"):
        Item("x", None, 1.0, 3)
    with pytest.raises(TypeError, match=r"item 'x': pinned must be a bool"):
        Item("x", "t", 1.0, 3, pinned=1)
    with pytest.raises(TypeError, match=r"item 'x': source must be a str or None"):
        Item("x", "t", 1.0, 3, source=4)


def test_numpy_scalars_are_normalised_to_python_numbers():
    it = Item("x", "t", np.float32(0.5), np.int64(7))
    assert type(it.score) is float and type(it.tokens) is int
    assert (it.score, it.tokens) == (0.5, 7)


def test_item_is_frozen():
    it = Item("x", "t", 1.0, 3)
    with pytest.raises(AttributeError):
        it.score = 2.0


def test_item_survives_pickle_and_copy():
    import copy
    import pickle

    it = Item("x", "some text", 0.5, 3, pinned=True, source="doc", embedding=[1.0, 2.0])
    for other in (pickle.loads(pickle.dumps(it)), copy.deepcopy(it), copy.copy(it)):
        assert other == it and hash(other) == hash(it)
        assert other.embedding.tolist() == [1.0, 2.0] and other.source == "doc" and other.pinned
        with pytest.raises(AttributeError):
            other.score = 2.0


def test_packing_is_an_immutable_sequence():
    a, b = Item("a", "x", 1.0, 2), Item("b", "y", 2.5, 3)
    p = Packing([a, b], budget=10, strategy="greedy")
    assert len(p) == 2 and p[0] is a and p[-1] is b and list(p) == [a, b]
    assert b in p and Item("c", "z", 1.0, 1) not in p
    assert p[1:] == (b,)
    assert p.score == 3.5 and p.tokens == 5 and p.ids == ["a", "b"]
    with pytest.raises(AttributeError):
        p.score = 0
    with pytest.raises(TypeError):
        p.dropped["a"] = "b"
