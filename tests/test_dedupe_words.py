"""Batch word codes and the counting filter that sets aside texts which cannot match."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.dedupe import jaccard, shingles, signature, words
from packbench.algorithms.dedupe.exact import active_texts
from packbench.algorithms.dedupe.filter import may_match
from packbench.algorithms.dedupe.tokenise import word_codes
from test_dedupe import VOCAB, dedupe_inputs


@settings(max_examples=400, deadline=None)
@given(dedupe_inputs())
def test_counting_filter_never_sets_aside_a_text_that_can_match(case):
    items, threshold = case
    texts = [it.text for it in items]
    full = [shingles(signature(t)) for t in texts]
    candidate = may_match(*word_codes(texts, exact=False), max(threshold, 1e-9))
    for i in np.flatnonzero(~candidate):
        for j in range(len(texts)):
            if j != i:
                assert signature(texts[i]) != signature(texts[j]) and jaccard(full[i], full[j]) < max(threshold, 1e-9)


def test_counting_filter_sets_aside_unique_texts_and_keeps_planted_duplicates():
    rng = random.Random(3)
    vocab = [f"w{k}" for k in range(3000)]
    texts = [" ".join(rng.choices(vocab, k=80)) for _ in range(400)]
    texts += [texts[5], texts[7].replace(texts[7].split()[3], "edited", 1)]
    active = set(active_texts(texts, 0.8).tolist())
    assert {5, 7, 400, 401} <= active and len(active) <= 20


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(), max_size=6), st.lists(st.sampled_from(VOCAB + ["ABCDEFGH1IJKLMNOP", "Naïve"]), max_size=8))
def test_word_codes_are_the_signatures(texts, extra):
    assert_codes_are_the_signatures(texts + [" ".join(extra)])


def assert_codes_are_the_signatures(texts):
    """Word counts per text match the signatures; equal words get equal codes, and (exact) only they."""
    expected = [signature(t) for t in texts]
    flat = [w for ws in expected for w in ws]
    for exact in (True, False):
        codes, lens = word_codes(texts, exact=exact)
        assert lens.tolist() == [len(ws) for ws in expected] and len(codes) == len(flat)
        for a in range(len(flat)):
            for b in range(len(flat)):
                if flat[a] == flat[b]:
                    assert codes[a] == codes[b]
                elif exact:
                    assert codes[a] != codes[b], (flat[a], flat[b])


def test_word_codes_on_non_ascii_nul_and_block_boundaries(monkeypatch):
    import packbench.algorithms.dedupe.tokenise as dw
    texts = ["Hello, World! 42", "ÄÖ über naïve café", "a\x00b c", "\ud800 lone", "\u212a elvin", "", "   x"]
    expected = [len(signature(t)) for t in texts]
    assert word_codes(texts)[1].tolist() == expected
    monkeypatch.setattr(dw, "_BLOCK_CHARS", 3)  # one text per block
    assert word_codes(texts)[1].tolist() == expected
    assert word_codes([])[1].tolist() == [] and word_codes([""])[1].tolist() == [1]  # the signature
