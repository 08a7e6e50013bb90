"""The compiled kernels of the "jaccard" dedupe give exactly the answers of the definitions."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.dedupe import dedupe_indexed, dedupe_pairwise, exact, jaccard, kernels, shingles
from packbench.experiments.bench.workloads import realistic_candidates
from test_dedupe import _summary



@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), max_size=9), min_size=1, max_size=14), st.integers(0, 3),
       st.sampled_from([0.3, 0.5, 0.8, 1.0, 2 / 3, 0.75, 0.1]))
def test_compiled_join_is_the_first_matching_anchor_by_the_definition(texts, n_pinned, threshold):
    # `exact` gives a text without words one word of its own (its signature): so does this test.
    texts = [t or [100 + k] for k, t in enumerate(texts)]
    n_pinned = min(n_pinned, len(texts))
    sets = [shingles(tuple(map(str, t))) for t in texts]
    expected, anchors = [], []
    for k, sh in enumerate(sets):
        match = -1 if k < n_pinned else next((a for a in anchors if jaccard(sh, sets[a]) >= threshold), -1)
        expected.append(match)
        if match < 0:
            anchors.append(k)
    ids = np.array([w for t in texts for w in t], dtype=np.int64)
    got = kernels.join(ids, np.array(list(map(len, texts)), dtype=np.int64), n_pinned, threshold, 1e-12)
    assert got.tolist() == expected


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
    ids, lens = np.array([0, 1, 2, 0, 1, 2, 3, 4, 5], np.int64), np.array([3, 3, 3], np.int64)
    assert kernels.join(ids, lens, 0, 0.8, 1e-12).tolist() == [-1, 0, -1]
    assert kernels.join(ids, lens, 2, 0.8, 1e-12).tolist() == [-1, -1, -1]  # pinned texts are never dropped


def test_the_packed_vocabulary_bound_is_the_kernels_own():
    assert exact._MAX_PACKED_VOCAB == kernels.MAX_PACKED_VOCAB
