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
    files = list(tmp_path.rglob("*.npy"))
    assert len(files) == 1
    assert np.array_equal(embed_texts(texts, cache=True, cache_dir=tmp_path), first)
    files[0].write_bytes(b"not an array")
    assert np.array_equal(embed_texts(texts, cache=True, cache_dir=tmp_path), first)  # recomputed
    embed_texts(texts, cache=True, cache_dir=tmp_path, dim=32)
    assert len(list(tmp_path.rglob("*.npy"))) == 2  # the parameters are part of the key


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
