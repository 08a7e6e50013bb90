"""The compiled (numba) join of the "jaccard" dedupe: exact shingle ids, rarity order, prefix-filtered join.

`exact` tokenises and filters with numpy (vectorised passes measured faster
than byte loops and random read-modify-writes compiled by numba) and hands the
texts that may match, as dense word ids in join order (pinned, then candidates
in visiting order), to `join`:

1. exact shingle ids from a hash table keyed by the packed shingle (a word
   trigram as three 21-bit fields of id + 1, or the whole tuple of a text
   under three words), each text's distinct ones and how many texts hold each;
2. the global rarity order (texts holding the shingle, then id) by a counting
   sort, each text's ids sorted in it;
3. the prefix filter in join order: a text probes, through an inverted index,
   the prefixes of the anchors before it (its own first ``s - ceil(t s) + 1``
   shingles in rarity order against theirs), verifies the anchors found in
   anchor order (a length filter, then a merge intersection and the same
   integers and division as `rule.jaccard`), and the first that matches is its
   partner; a text that matches none indexes its own prefix.

The answers are those of the numpy joins and of `pairwise` (tests/test_dedupe*.py).
The kernels are compiled with ``cache=True`` (on disk next to this module), and
`warm_up` compiles or loads them for the argument types `exact` passes, so no
compile time lands in a measured call.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["join", "warm_up", "MAX_PACKED_VOCAB"]

# Word ids below this bound pack a trigram into one int64 as three 21-bit fields of id + 1.
MAX_PACKED_VOCAB = (1 << 21) - 2
_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _shingle_key(ids, at, count):
    """The packed shingle starting at `at`: a trigram, or (count < 3) the whole tuple of `count` words."""
    if count >= 3:
        return ((np.int64(ids[at]) + 1) << 42) | ((np.int64(ids[at + 1]) + 1) << 21) | (np.int64(ids[at + 2]) + 1)
    key = np.int64(0)
    if count >= 1:
        key |= (np.int64(ids[at]) + 1) << 42
    if count == 2:
        key |= (np.int64(ids[at + 1]) + 1) << 21
    return key


@njit(cache=True, nogil=True)
def _slot(key, bits):
    return np.int64((np.uint64(key) * _MIX) >> np.uint64(64 - bits))


@njit(cache=True, nogil=True)
def _prefix_length(size, threshold, slack):
    need = max(1.0, np.ceil(threshold * size * (1.0 - slack)))
    return size - min(int(need), size) + 1


@njit(cache=True, nogil=True)
def _shingle_sets(ids, lens):
    """Exact shingles: (distinct ones per text as CSR (bounds, table slots), the table, its size in bits).

    A slot is one shingle's identity. Each slot holds (key, texts holding it
    << 32 | last text + 1) side by side, so an occurrence touches one cache line.
    """
    n = len(lens)
    total = 0
    for t in range(n):
        total += max(lens[t] - 2, 1)
    bits = 10
    while (1 << bits) < 2 * total:
        bits += 1
    table = np.zeros(2 << bits, np.int64)  # 0 is never a key: every key has a non-zero top field
    bounds = np.zeros(n + 1, np.int64)
    slots = np.empty(total, np.int64)
    filled, at = 0, 0
    mask = (1 << bits) - 1
    for t in range(n):
        m = lens[t]
        for k in range(max(m - 2, 1)):
            key = _shingle_key(ids, at + k, m)
            s = _slot(key, bits)
            while table[2 * s] != 0 and table[2 * s] != key:
                s = (s + 1) & mask
            table[2 * s] = key
            if (table[2 * s + 1] & 0xFFFFFFFF) != t + 1:  # a repeat within the text counts once
                table[2 * s + 1] = (((table[2 * s + 1] >> 32) + 1) << 32) | (t + 1)
                slots[filled] = s
                filled += 1
        at += m
        bounds[t + 1] = filled
    return bounds, slots[:filled], table, bits


@njit(cache=True, nogil=True)
def join(ids, lens, n_pinned, threshold, slack):
    """Partner position per text (-1: kept), texts in join order; the prefix-filtered exact join."""
    n = len(lens)
    bounds, sids, table, bits = _shingle_sets(ids, lens)
    # Global rarity order: by how many texts hold the shingle, ties by slot (a counting sort: numba's
    # quicksort degrades on sorted runs); `df` is listed by rank.
    first = np.zeros(n + 2, np.int64)
    n_used = 0
    for s in range(1 << bits):
        if table[2 * s] != 0:
            first[(table[2 * s + 1] >> 32) + 1] += 1
            n_used += 1
    first = np.cumsum(first)
    rank = np.empty(1 << bits, np.int64)
    df = np.empty(n_used, np.int64)  # by rank
    for s in range(1 << bits):
        if table[2 * s] != 0:
            d = table[2 * s + 1] >> 32
            rank[s] = first[d]
            df[first[d]] = d
            first[d] += 1
    ranks = rank[sids]
    plen = np.empty(n, np.int64)
    per_rank = np.zeros(len(df) + 1, np.int64)
    for t in range(n):
        lo, hi = bounds[t], bounds[t + 1]
        ranks[lo:hi] = np.sort(ranks[lo:hi])
        plen[t] = _prefix_length(hi - lo, threshold, slack)
        for j in range(lo, lo + plen[t]):
            if df[ranks[j]] >= 2:  # a shingle no other text holds is never worth indexing
                per_rank[ranks[j] + 1] += 1
    start = np.cumsum(per_rank)
    index = np.empty(start[-1], np.int64)
    fill = start[:-1].copy()
    seen = np.full(n, -1, np.int64)
    cands = np.empty(n, np.int64)
    partner = np.full(n, -1, np.int64)
    for t in range(n):
        lo, hi = bounds[t], bounds[t + 1]
        size = hi - lo
        if t >= n_pinned:
            found = 0
            for j in range(lo, lo + plen[t]):
                r = ranks[j]
                for e in range(start[r], fill[r]):
                    a = index[e]
                    if seen[a] != t:
                        seen[a] = t
                        cands[found] = a
                        found += 1
            if found:
                got = np.sort(cands[:found])
                for a in got:
                    other = bounds[a + 1] - bounds[a]
                    if min(size, other) < threshold * max(size, other) * (1.0 - slack):
                        continue
                    inter, i, j = 0, lo, bounds[a]
                    while i < hi and j < bounds[a + 1]:
                        if ranks[i] == ranks[j]:
                            inter += 1
                            i += 1
                            j += 1
                        elif ranks[i] < ranks[j]:
                            i += 1
                        else:
                            j += 1
                    if inter / (size + other - inter) >= threshold:
                        partner[t] = a
                        break
            if partner[t] >= 0:
                continue
        for j in range(lo, lo + plen[t]):
            r = ranks[j]
            if df[r] >= 2:
                index[fill[r]] = t
                fill[r] += 1
    return partner


def warm_up() -> None:
    """Compile (or load from the on-disk cache) the kernels for the argument types `exact` passes."""
    join(np.array([0, 1, 2, 0, 1, 2], np.int64), np.array([3, 3], np.int64), 0, 0.8, 1e-12)
