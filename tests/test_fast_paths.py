"""The array paths behind a 100,000-candidate pack give the answers of the per-item definitions."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, Problem, pack
from packbench.algorithms.bounds import dantzig_bound, dantzig_bound_arrays
from packbench.algorithms.dedupe import shingles, signature
from packbench.algorithms.dedupe.filter import once_counts
from packbench.algorithms.dedupe.tokenise import word_codes
from packbench.algorithms.pack import validate_items
from packbench.algorithms.strategies.best_single import GreedyBestSingle
from packbench.algorithms.strategies.greedy import _python_density_order, density_order_arrays

ASCII_TEXT = st.lists(st.sampled_from(list("abcXYZ019 ,.!\x00\t-") + ["Hello ", "WORLD ", "abcdefghijk "]),
                      max_size=20).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(ASCII_TEXT, max_size=8), st.booleans(), st.sampled_from([1 << 18, 4]))
def test_ascii_blocks_give_the_signatures(texts, exact, block_chars):
    import packbench.algorithms.dedupe.tokenise as tk

    expected = [signature(t) for t in texts]
    flat = [w for ws in expected for w in ws]
    old, tk._BLOCK_CHARS = tk._BLOCK_CHARS, block_chars  # small blocks: text boundaries at block edges
    try:
        codes, lens = word_codes(texts, exact=exact)
    finally:
        tk._BLOCK_CHARS = old
    assert lens.tolist() == [len(ws) for ws in expected]
    for a in range(len(flat)):
        for b in range(len(flat)):
            assert (codes[a] == codes[b]) == (flat[a] == flat[b]) or (not exact and flat[a] != flat[b])


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 60), st.integers(20, 200))
def test_once_counts_bound_the_unshared_shingles(seed, n_texts, vocab):
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(vocab)]
    texts = [" ".join(rng.choices(words, k=rng.randint(0, 30))) for _ in range(n_texts)]
    texts += [texts[0], texts[1][: len(texts[1]) // 2]]  # a repeat and a cut copy
    sets = [shingles(signature(t)) for t in texts]
    unshared, occurrences = once_counts(*word_codes(texts, exact=False))
    for i, s in enumerate(sets):
        truly = sum(all(sh not in sets[j] for j in range(len(sets)) if j != i) for sh in s)
        assert unshared[i] <= truly and occurrences[i] >= len(s)


def test_counting_filter_still_proves_unique_texts_inert():
    rng = random.Random(5)
    words = [f"w{k}" for k in range(5000)]
    texts = [" ".join(rng.choices(words, k=100)) for _ in range(2000)]
    unshared, occurrences = once_counts(*word_codes(texts, exact=False))
    # Half of the trigrams are counted: a unique 100-word text keeps far more than its 20-shingle prefix.
    assert np.median(unshared) > 30 and (unshared >= 21).mean() > 0.99


def _items(rng: random.Random, n: int) -> list[Item]:
    # Few distinct scores and token counts, so density, score and id ties are everywhere.
    return [Item(f"c{rng.randrange(10**6)}-{k}", "", rng.choice([0.0, 0.5, 1.0, 2.0, 3.0, 1e-9]),
                 rng.choice([1, 2, 3, 7, 50, 400]), ) for k in range(n)]


@pytest.mark.parametrize("seed", range(12))
def test_best_single_arrays_equal_the_loop(seed):
    rng = random.Random(seed)
    cands = tuple(_items(rng, rng.choice([256, 300, 1000])))
    for room in (0, 1, 5, 60, 399, 400, 2000, sum(it.tokens for it in cands)):
        problem = Problem(cands, room)
        fast = GreedyBestSingle().select(problem)
        tokens = np.array([it.tokens for it in cands], dtype=np.int64)
        scores = np.array([it.score for it in cands])
        # The reference: the per-item loop the strategy takes below 256 candidates, on the same problem.
        import packbench.algorithms.strategies.best_single as bs

        old, bs._VECTOR_MIN = bs._VECTOR_MIN, 10**9
        try:
            slow = GreedyBestSingle().select(problem)
        finally:
            bs._VECTOR_MIN = old
        assert fast == slow
        assert dantzig_bound_arrays(scores, tokens, room) == dantzig_bound(cands, room)
        assert density_order_arrays(cands, scores, tokens).tolist() == _python_density_order(cands)


@dataclass(frozen=True)
class _Tagged(Item):
    tag: str = ""


def test_validate_items_names_the_problem_on_both_paths():
    a, b = Item("a", "x", 1.0, 1), Item("b", "y", 1.0, 1)
    with pytest.raises(ValueError, match="item 'a': id is repeated"):
        validate_items([a, b, Item("a", "z", 2.0, 1), b])
    with pytest.raises(TypeError, match=r"items\[1\] must be an Item, got str"):
        validate_items([a, "b", a])
    # A repeated id before a non-item is reported first, as the loop finds it.
    with pytest.raises(ValueError, match="item 'a': id is repeated"):
        validate_items([a, _Tagged("a", "x", 1.0, 1), "c"])
    assert validate_items([a, _Tagged("t", "x", 1.0, 1)])[1].tag == ""
    assert pack([a, _Tagged("t", "x y z", 1.0, 1)], 10).ids == ["a", "t"]
