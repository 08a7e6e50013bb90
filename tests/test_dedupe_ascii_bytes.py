"""The byte tokeniser's all-ASCII path: every ASCII byte, including those that case folding by bit 5 moves."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.dedupe.tokenise import word_codes
from tests.test_dedupe_words import assert_codes_are_the_signatures

# Every ASCII character but NUL (NUL inside a text takes the non-ASCII path's separator check),
# weighted towards the ones next to the letter and digit ranges and those bit 5 maps onto them.
_EDGES = "@AZ[`az{09/:\x10\x11\x19\x1a\x7f" + "".join(chr(c) for c in range(1, 128))
ascii_texts = st.lists(st.text(alphabet=st.sampled_from(_EDGES), max_size=30), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(ascii_texts)
def test_all_ascii_blocks_give_the_signature_words(texts):
    assert_codes_are_the_signatures(texts)


@settings(max_examples=200, deadline=None)
@given(ascii_texts)
def test_ascii_and_mixed_blocks_give_equal_codes(texts):
    # A non-ASCII text sends its whole block through the word-joining path; the ASCII texts'
    # codes must not depend on which path their block took.
    codes, lens = word_codes(texts, exact=False)
    mixed_codes, mixed_lens = word_codes(texts + ["é"], exact=False)
    assert mixed_lens.tolist()[:-1] == lens.tolist()
    assert mixed_codes[:len(codes)].tolist() == codes.tolist()
