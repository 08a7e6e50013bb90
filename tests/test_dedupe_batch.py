"""The exact join's two paths (batch pairs, anchor loop) and its dense word ids agree with the definitions."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.dedupe import dedupe_indexed, dedupe_pairwise
from packbench.algorithms.dedupe import batch, exact, shingle_ids
from packbench.algorithms.dedupe.batch import candidate_pairs, resolve_partners, shared_counts
from packbench.experiments.bench.workloads import random_candidates
from test_dedupe import _summary, dedupe_inputs

# (compiled, pairs per text, base): no budget forces the anchor loop (compiled, or the Python one),
# a huge one the batch path.
PATHS = {"compiled loop": (True, 0, -1), "loop": (False, 0, -1), "batch": (False, 10**9, 10**9)}


def _split(items):
    return [it for it in items if not it.pinned], [it for it in items if it.pinned]


@pytest.mark.parametrize("path", sorted(PATHS))
@settings(max_examples=300, deadline=None)
@given(case=dedupe_inputs())
def test_each_join_path_equals_pairwise(path, case):
    items, threshold = case
    candidates, pinned = _split(items)
    compiled, per_text, base = PATHS[path]
    with mock.patch.object(exact, "_PAIRS_PER_TEXT", per_text), mock.patch.object(exact, "_PAIRS_BASE", base), \
            mock.patch.object(exact, "_COMPILED", compiled), mock.patch.object(exact, "_NATIVE", False):
        got = _summary(dedupe_indexed(candidates, pinned, threshold))
    assert got == _summary(dedupe_pairwise(candidates, pinned, threshold))


@pytest.mark.parametrize("threshold", [0.5, 0.8, 0.95])
def test_paths_agree_on_planted_near_copies(threshold):
    items = random_candidates(600, seed=11, words=30, dup_share=0.3, vocab_size=400)
    results = []
    for compiled, per_text, base in PATHS.values():
        with mock.patch.object(exact, "_PAIRS_PER_TEXT", per_text), mock.patch.object(exact, "_PAIRS_BASE", base), \
                mock.patch.object(exact, "_COMPILED", compiled), mock.patch.object(exact, "_NATIVE", False):
            results.append(_summary(dedupe_indexed(items, [], threshold)))
    assert results[0] == results[1] == results[2] and results[0][1]  # same answer, and duplicates were found


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), max_size=8, unique=True), max_size=12), st.integers(0, 80))
def test_candidate_pairs_are_every_pair_sharing_a_rank(rank_lists, budget):
    owners = np.array([t for t, ranks in enumerate(rank_lists) for _ in ranks], dtype=np.int64)
    ranks = np.array([r for ranks in rank_lists for r in ranks], dtype=np.int64)
    expected = sorted((y, x) for x, y in itertools.combinations(range(len(rank_lists)), 2)
                      if set(rank_lists[x]) & set(rank_lists[y]))
    occurrences = sum(len(set(rank_lists[x]) & set(rank_lists[y]))
                      for x, y in itertools.combinations(range(len(rank_lists)), 2))
    got = candidate_pairs(ranks, owners, len(rank_lists), budget)
    if occurrences > budget:
        assert got is None  # the caller keeps the anchor loop
    else:
        earlier, later = got
        assert list(zip(later.tolist(), earlier.tolist())) == expected


@pytest.mark.parametrize("lookup_max", [0, 10**9])  # the sparse product, the binary searches
@settings(max_examples=200, deadline=None)
@given(sets=st.lists(st.sets(st.integers(0, 40), max_size=10), min_size=1, max_size=10), data=st.data())
def test_shared_counts_are_the_intersection_sizes(lookup_max, sets, data):
    flat = np.array([r for s in sets for r in sorted(s)], dtype=np.int64)
    bounds = np.concatenate([[0], np.cumsum([len(s) for s in sets])]).astype(np.int64)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(sets) - 1), st.integers(0, len(sets) - 1)), max_size=20))
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    with mock.patch.object(batch, "_LOOKUP_MAX", lookup_max):
        got = shared_counts(flat, bounds, a, b).tolist()
    assert got == [len(sets[x] & sets[y]) for x, y in pairs]


def test_partner_is_the_first_earlier_anchor_that_matches():
    # 2 matches 0 and 1; 1 matches 0, so 1 is dropped and 2's partner is 0; 3 matches only 2 (dropped).
    earlier = np.array([0, 0, 1, 2])
    later = np.array([1, 2, 2, 3])
    assert resolve_partners(0, earlier, later) == {1: 0, 2: 0}
    # Pinned texts are anchors that are never dropped, even when they match each other.
    assert resolve_partners(2, earlier, later) == {2: 0}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1) | st.integers(0, 50), max_size=3000), st.booleans())
def test_dense_ids_are_one_to_one_with_codes(values, tiny_table):
    codes = np.array(values, dtype=np.uint64)
    lens = np.array([len(codes)], dtype=np.int64)
    # A 1,024-slot table cannot hold every code, so the codes that lose their slot take the other branch.
    with mock.patch.object(shingle_ids, "_ID_TABLE_BITS", 0 if tiny_table else 26):
        ids, _, vocab = shingle_ids.dense_ids(codes, lens)
    distinct = sorted(set(values))
    assert vocab == len(distinct) and sorted(set(ids.tolist())) == list(range(vocab))
    by_code = dict(zip(values, ids.tolist()))
    assert all(by_code[v] == i for v, i in zip(values, ids.tolist()))


@pytest.mark.parametrize("direct_vocab", [0, 2**20])  # pair compaction, direct trigram codes
@settings(max_examples=150, deadline=None)
@given(texts=st.lists(st.lists(st.sampled_from(["a", "b", "c", "d", "Ab", "x9"]), max_size=7).map(" ".join),
                      max_size=8))
def test_shingle_codes_are_one_to_one_with_shingles_on_both_branches(direct_vocab, texts):
    from packbench.algorithms.dedupe import shingles, signature

    with mock.patch.object(shingle_ids, "_DIRECT_VOCAB", direct_vocab):
        owner, codes = shingle_ids.exact_shingle_codes(*exact.exact_word_ids(texts))
    assert owner.tolist() == sorted(owner.tolist())
    coded = [frozenset(codes[owner == t].tolist()) for t in range(len(texts))]
    full = [shingles(signature(t)) for t in texts]
    for i in range(len(texts)):
        assert len(coded[i]) == len(full[i]) and (owner == i).sum() >= len(full[i])
        for j in range(len(texts)):
            assert len(coded[i] & coded[j]) == len(full[i] & full[j])
