"""Embeddings: Item.embedding validation, the hashing embedder, the disk cache, WordLlama offline."""

from __future__ import annotations

import numpy as np
import pytest

from packbench.algorithms import Item, pack
from packbench.algorithms.embed import EMBEDDERS, HashingEmbedder, embed_items, embed_texts


@pytest.mark.parametrize("bad, error, message", [
    ([1.0, float("nan")], ValueError, "embedding must be finite, got nan at position 1"),
    ([[1.0, 2.0]], ValueError, "non-empty 1-D vector"),
    ([], ValueError, "non-empty 1-D vector"),
    ("abc", TypeError, "1-D sequence of floats"),
    (3.0, TypeError, "1-D sequence of floats"),
    (["x"], TypeError, "1-D sequence of floats"),
])
def test_bad_embeddings_are_rejected_naming_the_item(bad, error, message):
    with pytest.raises(error, match=f"item 'q': .*{message}"):
        Item("q", "text", 1.0, 1, embedding=bad)


def test_embedding_is_a_read_only_copy_and_items_stay_hashable():
    vec = np.array([1.0, 2.0, 3.0])
    it = Item("a", "t", 1.0, 1, embedding=vec)
    vec[0] = 9.0
    assert it.embedding.tolist() == [1.0, 2.0, 3.0] and not it.embedding.flags.writeable
    assert hash(it) == hash(Item("a", "t", 1.0, 1)) and it == Item("a", "t", 1.0, 1)


def test_one_dimension_across_items():
    items = [Item("a", "x", 1.0, 1, embedding=[1.0, 0.0]), Item("b", "y", 1.0, 1, embedding=[1.0, 0.0, 0.0])]
    with pytest.raises(ValueError, match="item 'b': embedding has 3 dimensions, but item 'a' has 2"):
        pack(items, 10)


def test_hashing_embedder_is_deterministic_unit_length_and_lexical():
    texts = ["the cat sat on the mat", "The cat sat on the mat!", "stock markets fell", "北京是中国的首都", ""]
    a = embed_texts(texts, dim=64)
    assert a.shape == (5, 64) and np.array_equal(a, HashingEmbedder(dim=64).embed(texts))
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert np.array_equal(a[0], a[1])  # same words, same vector
    assert a[0] @ a[2] < 0.5


def test_disk_cache_round_trip_and_damaged_file(tmp_path):
    texts = ["alpha beta", "gamma delta"]
    first = embed_texts(texts, cache=True, cache_dir=tmp_path)
    files = list(tmp_path.rglob("*.npz"))
    assert len(files) == 1
    assert np.array_equal(embed_texts(texts, cache=True, cache_dir=tmp_path), first)
    files[0].write_bytes(b"not an array")
    assert np.array_equal(embed_texts(texts, cache=True, cache_dir=tmp_path), first)  # recomputed
    embed_texts(texts, cache=True, cache_dir=tmp_path, dim=32)
    assert len(list(tmp_path.rglob("*.npz"))) == 2  # the parameters are part of the key


def test_embed_items_and_unknown_embedder():
    items = embed_items([Item("a", "alpha beta", 1.0, 1), Item("b", "gamma", 1.0, 1)])
    assert all(it.embedding is not None and len(it.embedding) == 256 for it in items)
    with pytest.raises(ValueError, match="unknown embedder 'nope'; valid: hashing, wordllama"):
        embed_texts(["x"], "nope")
    assert sorted(EMBEDDERS) == ["hashing", "wordllama"]


def test_wordllama_loads_offline_from_the_package(monkeypatch, tmp_path):
    pytest.importorskip("wordllama", reason="the wordllama extra is not installed")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    vecs = embed_texts(["the capital of france is paris", "paris is the capital of france", "pandas eat bamboo"],
                       "wordllama", cache_dir=tmp_path)
    unit = vecs / np.linalg.norm(vecs, axis=1)[:, None]
    assert vecs.shape == (3, 256) and unit[0] @ unit[1] > unit[0] @ unit[2]
    assert embed_texts(["x y"], "wordllama", dim=64, cache=False).shape == (1, 64)


def test_unwritable_cache_folder_still_returns_the_embeddings(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out = embed_texts(["alpha beta"], cache=True, cache_dir=blocker / "cache")
    assert out.shape == (1, 256) and np.array_equal(out, embed_texts(["alpha beta"]))


@pytest.mark.parametrize("bad", ["wrong shape", "nan", "ints", "other stamp", "1-d"])
def test_a_cache_file_of_the_wrong_shape_dtype_values_or_origin_is_recomputed(tmp_path, bad):
    texts = ["alpha beta", "gamma delta", "epsilon"]
    first = embed_texts(texts, cache=True, cache_dir=tmp_path)
    (path,) = tmp_path.rglob("*.npz")
    with np.load(path) as data:
        vectors, stamp, content = data["vectors"], data["stamp"], data["content"]
    planted = {"wrong shape": (vectors[:, :5], stamp), "nan": (np.full_like(vectors, np.nan), stamp),
               "ints": (np.ones(vectors.shape, dtype=np.int64), stamp), "1-d": (vectors[0], stamp),
               "other stamp": (vectors * 2, np.array("0" * 64))}[bad]
    with open(path, "wb") as fh:  # np.savez to a path would add a second .npz suffix
        np.savez(fh, vectors=planted[0], stamp=planted[1], content=content)
    again = embed_texts(texts, cache=True, cache_dir=tmp_path)
    assert again.shape == first.shape and np.array_equal(again, first)


def test_an_embedder_returning_nan_or_the_wrong_shape_is_refused_by_name():
    from packbench.algorithms.embed import Embedder

    class Broken(Embedder):
        name = "broken"

        def __init__(self, out):
            super().__init__()
            self.out = out

        def embed(self, texts):
            return self.out

    with pytest.raises(ValueError, match=r"embedder 'broken\(\)' returned a non-finite value in row 1"):
        embed_texts(["a", "b"], Broken(np.array([[1.0, 0.0], [np.nan, 1.0]])), cache=False)
    with pytest.raises(ValueError, match=r"embedder 'broken\(\)' returned shape \(1, 2\) for 2 texts"):
        embed_texts(["a", "b"], Broken(np.ones((1, 2))), cache=False)


@pytest.mark.parametrize("vector", [[1e200, 1e200], [1e-200, 1e-200], [1e155, 0.0], [1e154, 0.0], [-1e-310, 0.0]])
def test_semantic_dedupe_finds_exact_duplicates_whose_embeddings_are_huge_or_tiny(vector):
    from packbench.algorithms import Item, pack

    items = [Item("a", "x", 10, 3, embedding=vector), Item("b", "y", 9, 3, embedding=vector)]
    packing = pack(items, 1000, 0.8, strategy="greedy", dedupe="semantic")
    assert [it.id for it in packing] == ["a"] and packing.dropped == {"b": "a"}


def test_normalised_rows_rescales_only_rows_out_of_range_and_keeps_the_others_bit_for_bit():
    from packbench.algorithms.vectors import normalised_rows

    rows = np.array([[3.0, 4.0, 1e-3], [1e300, -1e300, 0.0], [0.0, 0.0, 0.0], [5e-324, 0.0, 0.0]])
    out = normalised_rows(rows)
    plain = rows[:1] / np.sqrt(np.einsum("ij,ij->i", rows[:1], rows[:1]))[:, None]  # as before the rescaling
    assert np.array_equal(out[0], plain[0])
    assert np.allclose(out[1], [2 ** -0.5, -(2 ** -0.5), 0.0]) and np.array_equal(out[2], [0.0, 0.0, 0.0])
    assert np.array_equal(out[3], [1.0, 0.0, 0.0])
    assert np.allclose(np.linalg.norm(out[[0, 1, 3]], axis=1), 1.0)
