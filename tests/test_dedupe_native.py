"""The C join of the default dedupe: built, used, equal to the definition and to its numpy fallback."""

from __future__ import annotations

import os
import shutil
import sysconfig
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import dedupe_indexed, dedupe_pairwise, native
from packbench.experiments.bench.workloads import random_candidates, realistic_candidates
from test_dedupe import _summary

# ASCII words, words that fold or normalise (case, accents, ligatures, full width), scripts without
# spaces, combining marks, emoji, a lone surrogate, characters NFKC expands into several words, and
# separators of several kinds.
WORDS = ["alpha", "Beta", "GAMMA", "delta9", "x", "42", "longerthaneight", "LongerThanEight", "naïve", "NAÏVE",
         "café", "Straße", "strasse", "ﬁre", "ｆｕｌｌ", "full", "東京", "タワー", "हिन्दी", "Москва", "МОСКВА", "🍕",
         "🍕🍔", "e\u0301", "\ud800", "ab\x00cd", "μ", "µ", "㍿", "ﷺ", "㍿ﷺ㍿"]
SEPARATORS = [" ", "  ", ", ", "-", "\n", "\u3000", "!"]


def _both(candidates, pinned, threshold):
    """(C path, numpy path) answers of the default join."""
    assert native.native_available()
    fast = _summary(dedupe_indexed(candidates, pinned, threshold))
    with mock.patch.dict(os.environ, {"PACKBENCH_NATIVE": "0"}):
        slow = _summary(dedupe_indexed(candidates, pinned, threshold))
    return fast, slow


@st.composite
def texts_with_copies(draw):
    n = draw(st.integers(0, 12))
    texts: list[str] = []
    for _ in range(n):
        if texts and draw(st.booleans()):
            base = draw(st.sampled_from(texts)).split(" ")
            cut = draw(st.integers(0, 2))
            text = " ".join(base[cut:] + draw(st.lists(st.sampled_from(WORDS), max_size=2)))
            if draw(st.booleans()):
                text = text.upper()
        else:
            ws = draw(st.lists(st.sampled_from(WORDS), max_size=10))
            seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(ws), max_size=len(ws)))
            text = "".join(w + s for w, s in zip(ws, seps))
        texts.append(text)
    items = [Item(f"i{k}", t, draw(st.sampled_from([0.0, 0.5, 1.0])), 1,
                  pinned=draw(st.booleans()) and draw(st.booleans())) for k, t in enumerate(texts)]
    threshold = draw(st.one_of(st.sampled_from([0.3, 0.5, 0.8, 1.0]), st.floats(0.01, 1.0)))
    return items, threshold


@pytest.mark.skipif(shutil.which(sysconfig.get_config_var("CC").split()[0] if sysconfig.get_config_var("CC")
                                 else "cc") is None, reason="no C compiler: the optional extension is not built")
def test_the_extension_is_built_and_used_by_the_default_dedupe():
    assert native.native_available()
    items = realistic_candidates(300, seed=2)
    with mock.patch.object(native, "_jaccard_join", wraps=native._jaccard_join) as join:
        out = pack(items, 4096)
    assert join.call_count == 1 and out.dropped


@settings(max_examples=300, deadline=None)
@given(texts_with_copies())
def test_c_path_equals_pairwise_and_the_numpy_path_on_ascii_and_unicode_text(case):
    items, threshold = case
    pinned, candidates = [it for it in items if it.pinned], [it for it in items if not it.pinned]
    fast, slow = _both(candidates, pinned, threshold)
    assert fast == slow == _summary(dedupe_pairwise(candidates, pinned, threshold))


@pytest.mark.parametrize("threshold", [0.5, 0.8, 0.95])
def test_c_path_equals_pairwise_on_both_workloads_with_pinned_anchors(threshold):
    for items in (realistic_candidates(400, seed=11, dup_share=0.3), random_candidates(400, seed=11)):
        fast, slow = _both(items[4:], items[:4], threshold)
        assert fast == slow == _summary(dedupe_pairwise(items[4:], items[:4], threshold))
        assert fast[1]  # near-copies were found


def test_c_path_equals_the_numpy_path_on_a_larger_realistic_batch():
    items = realistic_candidates(20_000, seed=12)
    fast, slow = _both(items[10:], items[:10], 0.8)
    assert fast == slow and len(fast[1]) > 300


def test_switched_off_or_declined_the_numpy_path_answers():
    items = realistic_candidates(200, seed=4)
    expected = _summary(dedupe_pairwise(items, [], 0.8))
    with mock.patch.object(native, "_jaccard_join", side_effect=AssertionError("C path called")), \
            mock.patch.dict(os.environ, {"PACKBENCH_NATIVE": "0"}):
        assert not native.native_available()
        assert _summary(dedupe_indexed(items, [], 0.8)) == expected
    # The C side declines (None) when the vocabulary outgrows its packed trigram keys.
    with mock.patch.object(native, "_jaccard_join", return_value=None) as join:
        assert _summary(dedupe_indexed(items, [], 0.8)) == expected
    assert join.call_count == 1


def test_texts_that_nfkc_expands_into_many_words():
    # One character can become four words ("\ufdfa"): the C side sizes its buffers by the normalised form.
    texts = ["\ufdfa" * 400, "\u337f" * 300 + " tail", "\ufdfa" * 399 + " x", "plain ascii words here"]
    items = [Item(f"t{k}", t, 1.0 - k / 10, 1) for k, t in enumerate(texts)]
    fast, slow = _both(items, [], 0.8)
    assert fast == slow == _summary(dedupe_pairwise(items, [], 0.8)) and fast[1] == {"t2": "t0"}


def test_bad_text_is_a_type_error_naming_the_text():
    from types import SimpleNamespace

    items = [SimpleNamespace(text="a b c", score=1.0), SimpleNamespace(text=5, score=0.5)]
    with pytest.raises(TypeError, match="text 1"):
        native._jaccard_join(items, 0, 0.8, 1e-12, str, str, bytes, lambda m, s: None)
    with pytest.raises(ValueError, match="n_pinned"):
        native._jaccard_join(items, 3, 0.8, 1e-12, str, str, bytes, lambda m, s: None)


def _unicode_batch(n, seed):
    """n texts of single-character words (Han, Katakana, emoji) with planted copies: NFKC and case folding
    on every text, and far more shingles per character than the C side's first guess (it re-counts)."""
    import random

    rng = random.Random(seed)
    alphabet = [chr(c) for c in range(0x4E00, 0x4E00 + 300)] + ["タ", "ワ", "ー", "🍕", "ﬁ", "Ｆ", "Straße"]
    texts = []
    for k in range(n):
        if texts and rng.random() < 0.2:
            base = list(rng.choice(texts))
            base[rng.randrange(len(base))] = rng.choice(alphabet)
            texts.append("".join(base))
        else:
            texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(40, 140))))
    return [Item(f"u{k}", t, round(rng.random(), 2), 1) for k, t in enumerate(texts)]


@pytest.mark.parametrize("threshold", [0.35, 0.8, 1.0])
def test_c_path_equals_the_numpy_path_past_the_one_table_filter(threshold):
    # 2,000 realistic texts (about 176,000 shingles) and 1,500 texts of one-character words are both past
    # the filter's one-table size (131,072 hashes): they are counted in radix partitions, the second with
    # a histogram the C side must take again (its guess from the characters is far too low). Scores have
    # two digits, so many tie and the visiting order reads ids; a few items are pinned.
    for items in (realistic_candidates(2_000, seed=21, dup_share=0.2), _unicode_batch(1_500, seed=22)):
        fast, slow = _both(items[5:], items[:5], threshold)
        assert fast == slow and fast[1]


class _OtherItem(Item):
    """An item of another type than the first one's: the C side reads it through getattr, not the slot."""

    __slots__ = ()


def test_items_of_other_types_are_read_through_getattr():
    base = realistic_candidates(120, seed=5, dup_share=0.3)
    mixed = [(_OtherItem if k % 3 == 0 else Item)(it.id, it.text, it.score, it.tokens)
             for k, it in enumerate(base)]
    for items in (mixed, mixed[1:] + mixed[:1]):  # the first item of either type
        fast, slow = _both(items, [], 0.8)
        assert fast == slow == _summary(dedupe_pairwise(items, [], 0.8)) and fast[1]


def test_the_first_texts_misjudge_the_batch():
    # The C side picks one table or partitions, and sizes their room, from the first 64 texts' mean length.
    # Short texts first: one table is picked, its room grows many times over and the kept hashes (about
    # 230,000, past the one table's size) are partitioned after the pass. Long texts first: partitions with
    # room to spare.
    base = realistic_candidates(400, seed=23, dup_share=0.3)
    short = [Item(it.id, " ".join(it.text.split()[:3]), it.score, 1) for it in base[:64]]
    long = [Item(it.id, " ".join([it.text] * 10), it.score, 1) for it in base[64:]]
    for items in (short + long, long + short):
        fast, slow = _both(items, [], 0.8)
        assert fast == slow and len(fast[1]) > 10


def test_partitions_that_outgrow_their_first_room():
    # 2,200 texts whose first 64 are a quarter as long as the rest: the guess (about 140,000 hashes) picks
    # partitions, whose chunk pool then doubles twice during the pass (about 700,000 hashes).
    base = realistic_candidates(2_200, seed=24, dup_share=0.2)
    items = base[:64] + [Item(it.id, " ".join([it.text] * 4), it.score, 1) for it in base[64:]]
    fast, slow = _both(items, [], 0.8)
    assert fast == slow and len(fast[1]) > 50
