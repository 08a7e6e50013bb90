"""The compiled (numba) anchor loop of the "jaccard" join: the one part of the numpy join that ran in Python.

`exact` tokenises, filters and ranks the shared shingles with numpy
(vectorised passes measured faster than the same work as compiled byte loops
and hash-table probes: those are bound by branch mispredictions and cache
misses). When some prefix ranks are held by many texts, the candidate pairs
outgrow the batch path and the join runs anchor by anchor in visiting order;
`anchor_loop` is that loop compiled: a text probes, through an inverted index,
the prefixes of the anchors before it, verifies the anchors found in anchor
order (the length filter and the same integers and division as
`rule.jaccard`), and the first that matches is its partner; a text that matches
none indexes its own prefix. Its answers are those of `anchors.join_anchors`
and of `pairwise` (tests/test_dedupe*.py).

Compiled with ``cache=True`` (on disk next to this module); `warm_up` compiles
or loads it for the argument types `exact` passes, so no compile time lands in
a measured call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["anchor_loop", "warm_up"]



@njit(cache=True, nogil=True)
def _prefix_length(size, threshold, slack):
    need = max(1.0, np.ceil(threshold * size * (1.0 - slack)))
    return size - min(int(need), size) + 1


@njit(cache=True, nogil=True)
def anchor_loop(flat, bounds, sizes, unshared, n_pinned, threshold, slack, n_ranks):
    """Partner position per text (-1: kept), texts in join order: the prefix-filtered join's anchor loop.

    Args:
        flat: Every text's shared ranks (ascending), text after text.
        bounds: Text t's ranks are ``flat[bounds[t]:bounds[t + 1]]``.
        sizes: Shingle set size per text.
        unshared: Shingles per text that no other text holds (first in rarity order).
        n_pinned: The first `n_pinned` texts are anchors that are never dropped.
        threshold: Jaccard threshold in (0, 1].
        slack: Relative slack of the prefix length (`filter.PREFIX_SLACK`).
        n_ranks: Upper bound on the ranks.
    """
    n = len(sizes)
    k = np.empty(n, np.int64)
    per_rank = np.zeros(n_ranks + 1, np.int64)
    for t in range(n):
        # The text's prefix: its first s - ceil(t s) + 1 shingles in rarity order, unshared ones first.
        k[t] = min(max(_prefix_length(sizes[t], threshold, slack) - unshared[t], 0), bounds[t + 1] - bounds[t])
        for j in range(bounds[t], bounds[t] + k[t]):
            per_rank[flat[j] + 1] += 1
    start = np.cumsum(per_rank)
    index = np.empty(max(start[-1], 1), np.int64)
    fill = start[:-1].copy()
    seen = np.full(n, -1, np.int64)
    cands = np.empty(n, np.int64)
    partner = np.full(n, -1, np.int64)
    for t in range(n):
        lo, hi = bounds[t], bounds[t + 1]
        size = sizes[t]
        if t >= n_pinned and k[t] > 0:
            found = 0
            for j in range(lo, lo + k[t]):
                r = flat[j]
                for e in range(start[r], fill[r]):
                    a = index[e]
                    if seen[a] != t:
                        seen[a] = t
                        cands[found] = a
                        found += 1
            if found:
                for a in np.sort(cands[:found]):  # anchor order: the first that matches is the partner
                    other = sizes[a]
                    if min(size, other) / max(size, other) < threshold:
                        continue
                    # Unshared shingles never meet: the shared ranks give the intersection.
                    inter, i, j = 0, lo, bounds[a]
                    while i < hi and j < bounds[a + 1]:
                        if flat[i] == flat[j]:
                            inter += 1
                            i += 1
                            j += 1
                        elif flat[i] < flat[j]:
                            i += 1
                        else:
                            j += 1
                    if inter / (size + other - inter) >= threshold:  # `rule.jaccard`'s division
                        partner[t] = a
                        break
            if partner[t] >= 0:
                continue
        for j in range(lo, lo + k[t]):
            index[fill[flat[j]]] = t
            fill[flat[j]] += 1
    return partner


def warm_up() -> None:
    """Compile (or load from the on-disk cache) the kernel for the argument types `exact` passes."""
    flat = np.array([0, 1, 0, 1], np.int64)
    anchor_loop(flat, np.array([0, 2, 4], np.int64), np.array([2, 2], np.int64), np.zeros(2, np.int64), 0, 0.8,
                1e-12, 2)
