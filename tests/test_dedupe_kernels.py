"""The compiled kernels of the "jaccard" dedupe give exactly the answers of the definitions."""

from __future__ import annotations

import random
from collections import Counter
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.dedupe import dedupe_indexed, dedupe_pairwise, exact, kernels, shingles, signature
from packbench.algorithms.dedupe.compiled import text_word_ids
from packbench.experiments.bench.workloads import realistic_candidates
from test_dedupe import _summary

# Words the packed keys must tell apart: 8 bytes exactly, over 8 bytes sharing a prefix, a high byte
# in the 8th place (no longer its own key), non-ASCII, upper case (equal to its lower case), a NUL inside.
WORDS = ["abcdefgh", "abcdefghi", "abcdefghj", "abcdefgé", "naïve", "NAÏVE", "Москва", "x\x00y", "a", "A1",
         "1", "", "!!", "αβγδεζηθικ", "abcdefg", "日本語"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join), min_size=1, max_size=12))
def test_word_ids_are_equal_exactly_for_equal_words(texts):
    ids, lens, vocab = text_word_ids(texts)
    sigs = [signature(t) for t in texts]
    assert lens.tolist() == [len(s) for s in sigs]
    flat = [w for s in sigs for w in s]
    by_word: dict[str, int] = {}
    for w, i in zip(flat, ids.tolist()):
        assert by_word.setdefault(w, i) == i  # equal words, equal ids
    assert len(set(by_word.values())) == len(by_word) and 0 <= min(ids, default=0) and max(ids) < vocab


def test_word_table_grows_past_its_first_size():
    rng = random.Random(2)
    # 70,000 distinct words force the table (2^16 slots, at most half full) to be re-filed twice.
    texts = [" ".join(f"w{rng.randrange(10**6)}x{k}" for _ in range(7)) for k in range(10_000)]
    ids, lens, vocab = text_word_ids(texts)
    assert vocab == len({w for t in texts for w in t.split()}) > 2**16
    words = [w for t in texts for w in t.split()]
    first = {}
    assert all(first.setdefault(w, i) == i for w, i in zip(words, ids.tolist()))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([10, 12, 20]))
def test_unique_counts_never_exceed_the_unshared_shingles(seed, bits):
    rng = random.Random(seed)
    vocab = [f"v{k}" for k in range(rng.choice([4, 30, 300]))]
    texts = [" ".join(rng.choices(vocab, k=rng.choice([1, 2, 3, rng.randint(4, 30)]))) for _ in range(30)]
    ids, lens, _ = text_word_ids(texts)
    once = kernels.unique_counts(ids, lens, bits)
    sets = [shingles(signature(t)) for t in texts]
    holders = Counter(s for sh in sets for s in sh)
    for k, sh in enumerate(sets):
        assert once[k] <= sum(holders[s] == 1 for s in sh)


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.8, 0.95, 1.0])
def test_compiled_join_equals_pairwise_and_numpy_on_the_realistic_workload(threshold):
    items = realistic_candidates(500, seed=7, dup_share=0.3)
    pinned = [it for it in items[:5]]
    got = _summary(dedupe_indexed(items[5:], pinned, threshold))
    assert got == _summary(dedupe_pairwise(items[5:], pinned, threshold))
    with mock.patch.object(exact, "_COMPILED", False):
        assert got == _summary(dedupe_indexed(items[5:], pinned, threshold))
    assert got[1]  # near-copies were found


def test_compiled_join_equals_the_numpy_path_on_a_larger_batch():
    items = realistic_candidates(6000, seed=8)
    got = _summary(dedupe_indexed(items, [], 0.8))
    with mock.patch.object(exact, "_COMPILED", False):
        assert got == _summary(dedupe_indexed(items, [], 0.8))


def test_warm_up_runs_every_kernel():
    kernels.warm_up()
    assert kernels.join(np.array([0, 1, 2, 0, 1, 2], np.int32), np.array([3, 3]), 0, 0.8, 1e-12).tolist() == [-1, 0]
