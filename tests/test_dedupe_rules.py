"""Containment and semantic dedupe return exactly what their brute-force pairwise definitions return."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import (dedupe_containment, dedupe_semantic, pairwise_containment,
                                         pairwise_semantic)
from packbench.algorithms.dedupe import semantic as semantic_module
from packbench.algorithms.embed import embed_items
from test_dedupe import dedupe_inputs
from test_dedupe_unicode import mixed_inputs


def _summary(result):
    kept, dropped = result
    return [it.id for it in kept], dict(dropped)


def _split(items):
    return [it for it in items if not it.pinned], [it for it in items if it.pinned]


@settings(max_examples=300, deadline=None)
@given(st.one_of(dedupe_inputs(), mixed_inputs()))
def test_containment_equals_its_pairwise_definition(case):
    items, threshold = case
    cands, pinned = _split(items)
    assert _summary(dedupe_containment(cands, pinned, threshold)) == \
        _summary(pairwise_containment(cands, pinned, threshold))


def test_containment_drops_a_chunk_cut_from_a_paragraph_that_jaccard_keeps():
    para = ("the eiffel tower was built for the world fair of 1889 in paris and was at the time the tallest "
            "structure in the world until the chrysler building was finished in new york in 1930")
    chunk = "was built for the world fair of 1889 in paris and was at the time the tallest structure"
    items = [Item("para", para, 1.0, 40), Item("chunk", chunk, 2.0, 16), Item("other", "rome has seven hills", 0.5, 5)]
    assert pack(items, 100).ids == ["para", "chunk", "other"]  # Jaccard 0.8 lets the copy through
    out = pack(items, 100, dedupe="containment")
    assert out.ids == ["chunk", "other"] and dict(out.dropped) == {"para": "chunk"}  # the higher score stays


@st.composite
def embedded_inputs(draw):
    """Items with small integer-valued embeddings: exact ties at the threshold, zero vectors, copies."""
    n = draw(st.integers(0, 12))
    dim = draw(st.integers(1, 4))
    vecs: list[list[float]] = []
    for _ in range(n):
        if vecs and draw(st.booleans()):
            base = list(draw(st.sampled_from(vecs)))
            base[draw(st.integers(0, dim - 1))] += draw(st.sampled_from([0.0, 1.0, -1.0, 0.5]))
            vecs.append(base)
        else:
            vecs.append([float(draw(st.integers(-2, 2))) for _ in range(dim)])
    items = [Item(f"i{k}", f"text {k}", draw(st.sampled_from([0.0, 1.0, 2.0])), 1, embedding=v,
                  pinned=draw(st.booleans()) and draw(st.booleans())) for k, v in enumerate(vecs)]
    threshold = draw(st.one_of(st.sampled_from([0.0, 0.5, 0.8, 1.0, 1 / 2 ** 0.5, 0.9]), st.floats(0, 1)))
    return items, threshold


@settings(max_examples=300, deadline=None)
@given(embedded_inputs(), st.sampled_from([1, 3, 1 << 22]))
def test_semantic_equals_its_pairwise_definition(case, block_values):
    items, threshold = case
    cands, pinned = _split(items)
    expected = _summary(pairwise_semantic(cands, pinned, threshold))
    semantic_module._BLOCK_VALUES, saved = block_values, semantic_module._BLOCK_VALUES  # tiny blocks too
    try:
        assert _summary(dedupe_semantic(cands, pinned, threshold)) == expected
    finally:
        semantic_module._BLOCK_VALUES = saved


def test_semantic_on_realistic_embeddings_matches_the_definition():
    rng = random.Random(5)
    vocab = [f"w{k}" for k in range(400)]
    texts = [" ".join(rng.choices(vocab, k=30)) for _ in range(300)]
    texts += [t + " extra" for t in texts[:40]]
    items = embed_items([Item(f"c{k}", t, round(rng.random(), 3), 5) for k, t in enumerate(texts)])
    for threshold in (0.5, 0.8, 0.95):
        got = _summary(dedupe_semantic(items, [], threshold))
        assert got == _summary(pairwise_semantic(items, [], threshold))
    assert len(_summary(dedupe_semantic(items, [], 0.8))[1]) >= 40


def test_semantic_needs_embeddings_and_names_the_item():
    items = [Item("a", "x", 1.0, 1, embedding=[1.0, 0.0]), Item("b", "y", 1.0, 1)]
    with pytest.raises(ValueError, match="item 'b' has none"):
        pack(items, 10, dedupe="semantic")


def test_semantic_keeps_orthogonal_and_drops_parallel_vectors():
    items = [Item("a", "x", 3.0, 1, embedding=[1.0, 0.0]), Item("b", "y", 2.0, 1, embedding=[0.0, 1.0]),
             Item("c", "z", 1.0, 1, embedding=[2.0, 0.1]), Item("z", "0", 0.5, 1, embedding=[0.0, 0.0])]
    out = pack(items, 10, dedupe="semantic")
    assert out.ids == ["a", "b", "z"] and dict(out.dropped) == {"c": "a"}
    assert np.allclose(items[0].embedding, [1.0, 0.0]) and not items[0].embedding.flags.writeable
