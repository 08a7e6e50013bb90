"""The indexed exact dedupe returns exactly what the pairwise definition returns."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import (DEDUPE_METHODS, Exact, Pairwise, dedupe_indexed, dedupe_minhash,
                                         dedupe_pairwise, shingles, signature, words)
from packbench.algorithms.dedupe.exact import exact_shingle_codes, exact_word_ids, shared_ranks

# Short words, long words that the fast word codes only tell apart exactly (same length, first and
# last 8 bytes: the hashed codes collide), a non-ASCII word and one with a NUL inside.
VOCAB = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta",
         "abcdefgh1ijklmnop", "abcdefgh2ijklmnop", "naïve", "x\x00y"]
THRESHOLDS = [0.0, 1.0, 0.5, 0.8, 1 / 3, 2 / 3, 0.25, 0.75, 0.1, 0.9, 0.6, 1e-9, 0.999]


def _summary(result):
    kept, dropped = result
    return [it.id for it in kept], dict(dropped)


@st.composite
def dedupe_inputs(draw):
    """Random texts with planted exact and near duplicates, short and empty texts, pinned anchors."""
    n = draw(st.integers(0, 14))
    texts: list[str] = []
    for _ in range(n):
        kind = draw(st.sampled_from(["fresh", "short", "empty", "copy", "edit", "extend"]))
        if kind in ("copy", "edit", "extend") and texts:
            base = draw(st.sampled_from(texts)).split()
            if kind == "copy":
                text = " ".join(base).upper() + draw(st.sampled_from(["", "!", " ... "]))
            elif kind == "edit" and base:
                pos = draw(st.integers(0, len(base) - 1))
                base[pos] = draw(st.sampled_from(VOCAB))
                text = " ".join(base)
            else:
                text = " ".join(base + draw(st.lists(st.sampled_from(VOCAB), max_size=3)))
        elif kind == "short":
            text = " ".join(draw(st.lists(st.sampled_from(VOCAB), max_size=2)))
        elif kind == "empty":
            text = draw(st.sampled_from(["", "  ", "!!", "--- ..."]))
        else:
            text = " ".join(draw(st.lists(st.sampled_from(VOCAB), min_size=3, max_size=12)))
        texts.append(text)
    items = [Item(f"i{k}", t, draw(st.sampled_from([0.0, 1.0, 2.0, 0.5])), 1, pinned=draw(st.booleans())
                  and draw(st.booleans())) for k, t in enumerate(texts)]
    threshold = draw(st.one_of(st.sampled_from(THRESHOLDS), st.floats(0.0, 1.0)))
    return items, threshold


@settings(max_examples=400, deadline=None)
@given(dedupe_inputs())
def test_indexed_equals_pairwise_kept_and_partners(case):
    items, threshold = case
    pinned = [it for it in items if it.pinned]
    candidates = [it for it in items if not it.pinned]
    expected = _summary(dedupe_pairwise(candidates, pinned, threshold))
    assert _summary(dedupe_indexed(candidates, pinned, threshold)) == expected


def test_exact_is_the_default_and_the_indexed_join():
    assert DEDUPE_METHODS["exact"] is Exact
    assert DEDUPE_METHODS["pairwise"] is Pairwise
    items = [Item("a", "alpha beta gamma delta", 2.0, 1), Item("b", "alpha beta gamma delta!", 1.0, 1)]
    assert _summary(Exact().dedupe(items, [], 0.8)) == _summary(dedupe_indexed(items, [], 0.8))
    assert _summary(Pairwise().dedupe(items, [], 0.8)) == _summary(dedupe_pairwise(items, [], 0.8))


def test_threshold_zero_drops_everything_onto_the_first_anchor():
    pin = Item("sys", "", 0.0, 1, pinned=True)
    cands = [Item("a", "one two three", 1.0, 1), Item("b", "four five six", 2.0, 1)]
    assert _summary(dedupe_indexed(cands, [pin], 0.0)) == ([], {"a": "sys", "b": "sys"})
    assert _summary(dedupe_indexed(cands, [], 0.0)) == (["b"], {"a": "b"})
    assert _summary(dedupe_indexed([], [pin], 0.0)) == ([], {})


def test_threshold_one_keeps_near_duplicates_but_drops_equal_word_lists():
    a = Item("a", "the refund window is thirty days", 3.0, 1)
    same = Item("same", "The REFUND window, is thirty days!", 2.0, 1)
    near = Item("near", "the refund window is thirty days today", 1.0, 1)
    assert _summary(dedupe_indexed([a, same, near], [], 1.0)) == (["a", "near"], {"same": "a"})


def test_texts_without_words_are_duplicates_only_when_their_normalised_texts_are_equal():
    assert words("!!") == () and signature("!!") == ("\x00!!",)
    cands = [Item("x", "", 2.0, 1), Item("y", "...", 1.0, 1), Item("z", "word", 0.5, 1),
             Item("w", "\u2026", 0.4, 1), Item("v", "  ", 0.3, 1), Item("u", "?!", 0.2, 1)]
    # NFKC turns the ellipsis into "...", and blank texts normalise to the empty text.
    expected = (["x", "y", "z", "u"], {"w": "y", "v": "x"})
    for method in (dedupe_indexed, dedupe_pairwise, dedupe_minhash):
        assert _summary(method(cands, [], 0.8)) == expected


def test_partner_is_the_first_matching_anchor_in_visiting_order():
    text = "one two three four five six seven eight nine ten"
    pin = Item("pin", text + " eleven", 0.0, 1, pinned=True)
    hi = Item("hi", text, 5.0, 1)
    lo = Item("lo", text + " twelve", 1.0, 1)
    # 'hi' matches the pinned item (J = 8/9); 'lo' matches pin first (in anchor order) as well.
    expected = _summary(dedupe_pairwise([lo, hi], [pin], 0.8))
    assert _summary(dedupe_indexed([lo, hi], [pin], 0.8)) == expected == ([], {"hi": "pin", "lo": "pin"})


def _shingle_code_sets(texts):
    word_ids, lens, vocab = exact_word_ids(texts)
    owner, codes = exact_shingle_codes(word_ids, lens, vocab)
    return [frozenset(codes[owner == t].tolist()) for t in range(len(texts))]


def test_shingle_codes_are_one_to_one_with_shingles():
    texts = ["a b c d", "b c d e", "x", "", "a b", "a b c d", "A, b: c!", "b a", "b c"]
    full = [shingles(words(t)) for t in texts]
    coded = _shingle_code_sets(texts)
    for i in range(len(texts)):
        assert len(coded[i]) == len(full[i])
        for j in range(len(texts)):
            assert len(coded[i] & coded[j]) == len(full[i] & full[j])


def test_shared_ranks_give_sizes_and_exact_intersections():
    texts = ["a b c d e", "b c d e f", "q", "", "", "a b", "x y z", "a b c d e"]
    full = [shingles(words(t)) for t in texts]
    sizes, unshared, flat, bounds = shared_ranks(*exact_word_ids(texts))
    assert sizes.tolist() == [len(f) for f in full]
    assert unshared.tolist() == [sum(all(sh not in full[j] for j in range(len(full)) if j != i) for sh in full[i])
                                 for i in range(len(full))]
    ranks = [flat[bounds[t]:bounds[t + 1]].tolist() for t in range(len(texts))]
    for i in range(len(texts)):
        assert ranks[i] == sorted(ranks[i]) and len(ranks[i]) == sizes[i] - unshared[i]
        for j in range(len(texts)):
            assert len(set(ranks[i]) & set(ranks[j])) == len(full[i] & full[j]) or i == j


def test_pack_results_identical_with_pairwise_on_planted_duplicates():
    rng = random.Random(7)
    vocab = [f"w{k}" for k in range(300)]
    items: list[Item] = [Item("sys", "you are a helpful assistant", 0.0, 5, pinned=True)]
    for k in range(300):
        if k > 10 and rng.random() < 0.3:
            ws = rng.choice(items[1:]).text.split()
            for _ in range(rng.randint(0, 4)):
                ws[rng.randrange(len(ws))] = rng.choice(vocab)
        else:
            ws = [rng.choice(vocab) for _ in range(rng.randint(1, 40))]
        items.append(Item(f"c{k}", " ".join(ws), round(rng.random(), 2), rng.randint(1, 30)))
    for near_dup in (0.5, 0.8, 1.0):
        fast = pack(items, 500, near_dup)
        slow = pack(items, 500, near_dup, dedupe="pairwise")
        assert fast.ids == slow.ids and dict(fast.dropped) == dict(slow.dropped)
        assert fast.dropped  # the planted duplicates are found


def test_unknown_dedupe_method_lists_the_valid_ones():
    with pytest.raises(ValueError, match="containment, exact, minhash, nearcopy, nearcopy_container, pairwise, semantic"):
        pack([Item("a", "x", 1.0, 1)], 10, dedupe="nope")
