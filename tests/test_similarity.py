"""Pairwise similarity: Jaccard equals dedupe's, TF-IDF cosine against a direct computation, callables."""

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item
from packbench.algorithms.dedupe import jaccard, shingles, words
from packbench.algorithms.similarity import jaccard_matrix, similarity_matrix, tfidf_matrix

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "Alpha!", "beta-2"]
texts = st.lists(st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join), max_size=8)


def _items(ts):
    return [Item(f"i{k}", t, 1.0, 1) for k, t in enumerate(ts)]


@settings(max_examples=100, deadline=None)
@given(ts=texts)
def test_jaccard_matrix_equals_dedupe_jaccard(ts):
    items = _items(ts)
    sim = jaccard_matrix(items)
    for i, a in enumerate(items):
        for j, b in enumerate(items):
            expected = 1.0 if i == j else jaccard(shingles(words(a.text)), shingles(words(b.text)))
            assert sim[i, j] == pytest.approx(expected, abs=1e-12)


def _tfidf_reference(ts):
    docs = [Counter(words(t)) for t in ts]
    n = len(docs)
    df = Counter(w for d in docs for w in d)
    vecs = [{w: c * (math.log((1 + n) / (1 + df[w])) + 1) for w, c in d.items()} for d in docs]
    out = np.eye(n)
    for i in range(n):
        for j in range(n):
            if i != j:
                num = sum(v * vecs[j].get(w, 0.0) for w, v in vecs[i].items())
                den = math.sqrt(sum(v * v for v in vecs[i].values())) * math.sqrt(
                    sum(v * v for v in vecs[j].values()))
                out[i, j] = num / den if den else 0.0
    return out


@settings(max_examples=100, deadline=None)
@given(ts=texts)
def test_tfidf_matrix_matches_the_definition(ts):
    sim = tfidf_matrix(_items(ts))
    assert np.allclose(sim, _tfidf_reference(ts), atol=1e-12)
    assert np.allclose(sim, sim.T) and ((sim >= 0) & (sim <= 1)).all()


def test_tfidf_examples():
    sim = similarity_matrix(_items(["red apple", "red apple", "blue car", ""]), "tfidf")
    assert sim[0, 1] == pytest.approx(1.0) and sim[0, 2] == 0.0 and sim[3, 0] == 0.0 and sim[3, 3] == 1.0


def test_callable_is_called_once_per_pair_and_mirrored():
    calls = []

    def sim(a, b):
        calls.append((a.id, b.id))
        return 0.25

    m = similarity_matrix(_items(["x", "y", "z"]), sim)
    assert calls == [("i0", "i1"), ("i0", "i2"), ("i1", "i2")]
    assert np.allclose(m, [[1, .25, .25], [.25, 1, .25], [.25, .25, 1]])


@pytest.mark.parametrize("value,exc", [(1.5, ValueError), (-0.1, ValueError), (float("nan"), TypeError),
                                       ("high", TypeError)])
def test_callable_bad_value_names_the_items(value, exc):
    with pytest.raises(exc, match="'i0' and 'i1'"):
        similarity_matrix(_items(["x", "y"]), lambda a, b: value)


def test_unknown_or_wrong_type():
    with pytest.raises(ValueError, match="jaccard"):
        similarity_matrix(_items(["x"]), "nope")
    with pytest.raises(ValueError, match="similarity 'cosine' needs Item.embedding; item 'i0' has none"):
        similarity_matrix(_items(["x"]), "cosine")
    with pytest.raises(TypeError):
        similarity_matrix(_items(["x"]), 42)
    assert similarity_matrix([], "jaccard").shape == (0, 0)
    assert similarity_matrix([], "tfidf").shape == (0, 0)


@settings(max_examples=100, deadline=None)
@given(ts=texts, dim=st.integers(1, 5), data=st.data())
def test_columns_equal_the_full_matrix_and_cosine_is_clipped(ts, dim, data):
    from packbench.algorithms.similarity import similarity_columns
    vecs = [data.draw(st.lists(st.integers(-3, 3), min_size=dim, max_size=dim)) for _ in ts]
    items = [Item(f"i{k}", t, 1.0, 1, embedding=v) for k, (t, v) in enumerate(zip(ts, vecs))]
    for kind in ("jaccard", "cosine", "tfidf"):
        full = similarity_matrix(items, kind)
        cols = similarity_columns(items, kind)
        for k in range(len(items)):
            if kind == "cosine":  # a matrix-vector product may round differently from the matrix product
                assert np.allclose(cols.block([k])[:, 0], full[:, k], rtol=0, atol=1e-12)
            else:
                assert np.array_equal(cols.block([k])[:, 0], full[:, k])
    cos = similarity_matrix(items, "cosine")
    for i, a in enumerate(vecs):
        for j, b in enumerate(vecs):
            na, nb = np.linalg.norm(a), np.linalg.norm(b)
            expected = 1.0 if i == j else (max(0.0, float(np.dot(a, b)) / (na * nb)) if na and nb else 0.0)
            assert cos[i, j] == pytest.approx(expected, abs=1e-12)
