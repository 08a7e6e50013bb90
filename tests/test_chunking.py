"""Chunking in real tokens: size, coverage and overlap invariants (hypothesis) and natural boundaries."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.chunking import recursive_chunks, token_windows
from packbench.algorithms.tokens import count_tokens, decode_bytes, encode

WORDS = ["alpha", "beta", "gamma", "déjà", "vu", "naïve", "🚀", "x" * 30, "tokenization", "a", "I"]
SEPS = [" ", "  ", "\n", "\n\n", ". ", "! ", "? ", "\t", ""]


@st.composite
def texts(draw):
    parts = draw(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPS)), min_size=0, max_size=80))
    return "".join(w + s for w, s in parts)


@settings(max_examples=60, deadline=None)
@given(text=st.one_of(texts(), st.text(max_size=300)), size=st.integers(1, 40), data=st.data())
def test_token_windows_invariants(text, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    ids = encode(text)
    chunks = token_windows(text, size, overlap)
    if not ids:
        assert chunks == []
        return
    assert chunks[0].start == 0 and chunks[-1].end == len(ids)
    for c in chunks:
        assert 0 < c.end - c.start == c.tokens <= size
    for a, b in zip(chunks, chunks[1:]):
        assert b.start == a.end - overlap  # exact overlap, so every token is covered
    # The non-repeated parts concatenate back to the exact bytes of the text.
    rebuilt = b"".join(decode_bytes(ids[(c.start + overlap if k else 0):c.end]) for k, c in enumerate(chunks))
    assert rebuilt == text.encode("utf-8")


@settings(max_examples=60, deadline=None)
@given(text=st.one_of(texts(), st.text(max_size=300)), size=st.integers(4, 60), data=st.data())
def test_recursive_chunks_invariants(text, size, data):
    overlap = data.draw(st.integers(0, size - 1))
    chunks = recursive_chunks(text, size, overlap)
    if not text:
        assert chunks == []
        return
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    for c in chunks:
        assert c.text == text[c.start:c.end] and c.text
        assert c.tokens == count_tokens(c.text) <= size  # measured on the chunk itself
    for a, b in zip(chunks, chunks[1:]):
        assert a.start < b.start <= a.end < b.end  # ordered, no gap: every character (so token) covered
        assert count_tokens(text[b.start:a.end]) <= overlap
        if overlap == 0:
            assert b.start == a.end


def test_recursive_prefers_paragraphs():
    para = "This sentence is in a paragraph. " * 3
    text = "\n\n".join([para.strip()] * 4)
    chunks = recursive_chunks(text, count_tokens(para) + 2)
    assert len(chunks) == 4
    assert all(c.text.rstrip().endswith("paragraph.") for c in chunks)


def test_recursive_overlap_repeats_whole_pieces():
    text = " ".join(f"Sentence number {k} is here." for k in range(40))
    chunks = recursive_chunks(text, 40, 12)
    assert len(chunks) > 3
    for a, b in zip(chunks, chunks[1:]):
        shared = text[b.start:a.end]
        assert shared and shared.startswith("Sentence")  # the overlap starts at a sentence boundary
        assert count_tokens(shared) <= 12


def test_long_word_falls_back_to_token_cuts():
    text = "z" * 2000
    chunks = recursive_chunks(text, 16)
    assert "".join(c.text for c in chunks) == text
    assert all(c.tokens <= 16 for c in chunks)


@pytest.mark.parametrize("fn, size, overlap, err, match", [
    (token_windows, 0, 0, ValueError, "size must be >= 1"),
    (token_windows, 10, 10, ValueError, r"overlap must be in \[0, size\)"),
    (token_windows, 10, -1, ValueError, "overlap must be in"),
    (recursive_chunks, 3, 0, ValueError, "size must be >= 4"),
    (recursive_chunks, 10.0, 0, TypeError, "size must be an int"),
])
def test_bad_sizes(fn, size, overlap, err, match):
    with pytest.raises(err, match=match):
        fn("some text", size, overlap)
