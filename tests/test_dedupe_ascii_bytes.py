"""The byte tokeniser's all-ASCII path: every ASCII byte, including those that case folding by bit 5 moves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.dedupe import signature
from packbench.algorithms.dedupe.tokenise import word_codes

# Every ASCII character but NUL (NUL inside a text takes the non-ASCII path's separator check),
# weighted towards the ones next to the letter and digit ranges and those bit 5 maps onto them.
_EDGES = "@AZ[`az{09/:\x10\x11\x19\x1a\x7f" + "".join(chr(c) for c in range(1, 128))
ascii_texts = st.lists(st.text(alphabet=st.sampled_from(_EDGES), max_size=30), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(ascii_texts)
def test_all_ascii_blocks_give_the_signature_words(texts):
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


@settings(max_examples=200, deadline=None)
@given(ascii_texts)
def test_ascii_and_mixed_blocks_give_equal_codes(texts):
    # A non-ASCII text sends its whole block through the word-joining path; the ASCII texts'
    # codes must not depend on which path their block took.
    codes, lens = word_codes(texts, exact=False)
    mixed_codes, mixed_lens = word_codes(texts + ["é"], exact=False)
    assert mixed_lens.tolist()[:-1] == lens.tolist()
    assert mixed_codes[:len(codes)].tolist() == codes.tolist()
