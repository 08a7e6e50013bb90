"""The compiled anchor loop of the "jaccard" join gives exactly the answers of the definitions."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

from packbench.algorithms.dedupe import dedupe_indexed, dedupe_pairwise, exact, kernels
from packbench.experiments.bench.workloads import realistic_candidates
from test_dedupe import _summary


def _forced(compiled: bool):
    """The numpy path's anchor loop on every batch (no pair budget), compiled or in Python."""
    return (mock.patch.object(exact, "_PAIRS_PER_TEXT", 0), mock.patch.object(exact, "_PAIRS_BASE", -1),
            mock.patch.object(exact, "_COMPILED", compiled), mock.patch.object(exact, "_NATIVE", False))


def _run(items, pinned, threshold, compiled):
    a, b, c, d = _forced(compiled)
    with a, b, c, d:
        return _summary(dedupe_indexed(items, pinned, threshold))


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.8, 0.95, 1.0])
def test_compiled_loop_equals_pairwise_and_the_python_loop_on_the_realistic_workload(threshold):
    items = realistic_candidates(500, seed=7, dup_share=0.3)
    pinned = items[:5]
    got = _run(items[5:], pinned, threshold, True)
    assert got == _summary(dedupe_pairwise(items[5:], pinned, threshold))
    assert got == _run(items[5:], pinned, threshold, False)
    assert got[1]  # near-copies were found


def test_compiled_loop_equals_the_python_loop_on_a_larger_batch():
    items = realistic_candidates(6000, seed=8)
    got = _run(items, [], 0.8, True)
    assert got == _run(items, [], 0.8, False) and len(got[1]) > 100
    assert got == _summary(dedupe_indexed(items, [], 0.8))  # the default path agrees too


def test_warm_up_and_the_loop_on_a_tiny_case():
    kernels.warm_up()
    # Texts 0 and 1 share both of their (shared) shingles, text 2 holds none of them.
    flat, bounds = np.array([0, 1, 0, 1], np.int64), np.array([0, 2, 4, 4], np.int64)
    sizes, unshared = np.array([2, 2, 3], np.int64), np.array([0, 0, 3], np.int64)
    assert kernels.anchor_loop(flat, bounds, sizes, unshared, 0, 0.8, 1e-12, 2).tolist() == [-1, 0, -1]
    assert kernels.anchor_loop(flat, bounds, sizes, unshared, 2, 0.8, 1e-12, 2).tolist() == [-1, -1, -1]
