"""Compiled kernels (numba) of the "jaccard" dedupe: tokenising, the counting filter, the prefix-filtered join.

The same rule and the same answers as the numpy path of `exact` (and so as
`pairwise`), in three passes that each read their input once:

1. `word_ids`: the texts' bytes (ASCII texts as they are, others as the words
   of `tokenise._ascii_form`, NUL-separated) are scanned once; a word is a
   maximal run of ASCII letters, digits and bytes >= 0x80 (A-Z lower-cased),
   and gets a dense id from a hash table that compares the bytes, so equal ids
   if and only if equal words.
2. `unique_counts`: every shingle (word trigram, or the whole tuple of a text
   under three words) is counted in a table of saturating byte counters; a
   slot hit once holds a shingle found once in the batch, so the per-text count
   of such slots is a lower bound on its unshared shingles (as `filter.may_match`).
3. `join`: the texts that may match, in join order (pinned, then candidates in
   visiting order), get exact shingle ids (a table comparing the packed
   trigram), are sorted by rarity (texts holding the shingle, then id), and
   the prefix filter joins them: each text probes the prefixes of the
   anchors before it through an inverted index, verifies the anchors found in
   anchor order (the same integers and division as `rule.jaccard`), and the
   first that matches is its partner; a text that matches none indexes its
   own prefix.

Every kernel is compiled with ``cache=True`` (on disk next to this module) and
`warm_up` compiles or loads them on tiny inputs, so no compile time lands in a
measured call; the first `pack` in a fresh process pays the load once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["word_ids", "unique_counts", "join", "warm_up", "MAX_PACKED_VOCAB"]

# Word ids below this bound pack a trigram into one int64 as three 21-bit fields of id + 1.
MAX_PACKED_VOCAB = (1 << 21) - 2
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_LONG_FLAG = np.uint64(1 << 63)


@njit(cache=True, nogil=True)
def _is_word(b):
    return (97 <= b <= 122) or (48 <= b <= 57) or b >= 128


@njit(cache=True, nogil=True)
def _lower(b):
    return b | 32 if 65 <= b <= 90 else b


@njit(cache=True, nogil=True)
def _word_run(buf, starts, ends, t0, out, filled, lens, table, arena, w_at, n_ids, used):
    """Word ids of texts t0.. until the tables fill up; returns (next text, words written, ids, arena used).

    A word of up to 8 bytes whose top bit is clear is its own key (its bytes,
    little endian), so equal keys are equal words; any other word is keyed by
    a hash with the top bit set, and its bytes are compared with the arena copy
    of the word that holds the slot.
    """
    size = len(table) // 2
    bits = 0
    while (1 << bits) < size:
        bits += 1
    mask = np.int64(size - 1)
    for t in range(t0, len(starts)):
        if 2 * (n_ids + (ends[t] - starts[t] + 1) // 2) >= size or \
                used + ends[t] - starts[t] > len(arena) or filled + (ends[t] - starts[t] + 1) // 2 > len(out):
            return t, filled, n_ids, used  # the caller grows the tables and resumes at this text
        i, end = starts[t], ends[t]
        while i < end:
            b = _lower(buf[i])
            if not _is_word(b):
                i += 1
                continue
            s = i
            key = np.uint64(0)
            h = _FNV_OFFSET
            while i < end:
                b = _lower(buf[i])
                if not _is_word(b):
                    break
                if i - s < 8:
                    key |= np.uint64(b) << np.uint64(8 * (i - s))
                h = (h ^ np.uint64(b)) * _FNV_PRIME
                i += 1
            length = i - s
            short = length <= 8 and key < _LONG_FLAG
            if not short:
                key = h | _LONG_FLAG
            slot = np.int64((key * _MIX) >> np.uint64(64 - bits))
            wid = -1
            while table[2 * slot + 1] != 0:
                if table[2 * slot] == key:
                    c = np.int64(table[2 * slot + 1]) - 1
                    if short:
                        wid = c
                        break
                    o = w_at[c]
                    if w_at[c + 1] - o == length:
                        same = True
                        for k in range(length):
                            if arena[o + k] != _lower(buf[s + k]):
                                same = False
                                break
                        if same:
                            wid = c
                            break
                slot = (slot + 1) & mask
            if wid < 0:
                wid = n_ids
                table[2 * slot], table[2 * slot + 1] = key, np.uint64(wid + 1)
                if not short:
                    for k in range(length):
                        arena[used + k] = _lower(buf[s + k])
                    used += length
                n_ids += 1
                w_at[n_ids] = used
            out[filled] = wid
            filled += 1
            lens[t] += 1
    return len(starts), filled, n_ids, used


@njit(cache=True, nogil=True)
def _refile(table, bits):
    """The (key, id + 1) pairs of `table` in a table of 2^bits slots."""
    new = np.zeros(2 << bits, np.uint64)
    mask = np.int64((1 << bits) - 1)
    for j in range(len(table) // 2):
        if table[2 * j + 1] != 0:
            slot = np.int64((table[2 * j] * _MIX) >> np.uint64(64 - bits))
            while new[2 * slot + 1] != 0:
                slot = (slot + 1) & mask
            new[2 * slot], new[2 * slot + 1] = table[2 * j], table[2 * j + 1]
    return new


@njit(cache=True, nogil=True)
def word_ids(buf, starts, ends):
    """(word ids, words per text, vocabulary size) of the texts ``buf[starts[k]:ends[k]]``."""
    n = len(starts)
    lens = np.zeros(n, np.int64)
    bits = 16
    # (key, id + 1) per slot side by side, so a probe touches one cache line.
    table = np.zeros(2 << bits, np.uint64)
    arena = np.empty(1 << 16, np.uint8)
    w_at = np.zeros((1 << (bits - 1)) + 1, np.int64)  # word k's arena bytes: [w_at[k], w_at[k + 1])
    out = np.empty(max(16, len(buf) // 4 + n), np.int32)
    t, filled, n_ids, used = 0, 0, 0, 0
    while True:
        t, filled, n_ids, used = _word_run(buf, starts, ends, t, out, filled, lens, table, arena, w_at, n_ids,
                                           used)
        if t == n:
            return out[:filled], lens, n_ids
        need = (ends[t] - starts[t] + 1) // 2
        while 2 * (n_ids + need) >= (1 << bits):
            bits += 1
        if (2 << bits) > len(table):
            table = _refile(table, bits)
            w_at = np.concatenate((w_at, np.zeros((1 << (bits - 1)) + 1 - len(w_at), np.int64)))
        if used + ends[t] - starts[t] > len(arena):
            arena = np.concatenate((arena, np.empty(max(len(arena), ends[t] - starts[t]), np.uint8)))
        if filled + need > len(out):
            out = np.concatenate((out, np.empty(max(len(out), need), np.int32)))


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
def _sampled_slot(key, bits):
    """The counter slot of a shingle, or -1 for the half of the shingles (by content) that are not counted."""
    h = np.uint64(key) * _MIX
    h ^= h >> np.uint64(29)
    h *= _MIX
    if h >= _LONG_FLAG:
        return -1
    return np.int64((h << np.uint64(1)) >> np.uint64(64 - bits))


@njit(cache=True, nogil=True)
def unique_counts(ids, lens, bits):
    """Per text, how many of its counted shingle positions fall in a counter slot hit exactly once.

    Half of the shingles are counted, chosen by content (so a counted shingle
    seen once is in no other text); a table of 2^bits byte counters.
    """
    counts = np.zeros(1 << bits, np.uint8)
    n = len(lens)
    at = 0
    for t in range(n):
        m = lens[t]
        for k in range(max(m - 2, 1)):
            s = _sampled_slot(_shingle_key(ids, at + k, m), bits)
            if s >= 0 and counts[s] < 2:
                counts[s] += 1
        at += m
    once = np.zeros(n, np.int64)
    at = 0
    for t in range(n):
        m = lens[t]
        c = 0
        for k in range(max(m - 2, 1)):
            s = _sampled_slot(_shingle_key(ids, at + k, m), bits)
            if s >= 0 and counts[s] == 1:
                c += 1
        once[t] = c
        at += m
    return once


@njit(cache=True, nogil=True)
def _prefix_length(size, threshold, slack):
    need = max(1.0, np.ceil(threshold * size * (1.0 - slack)))
    return size - min(int(need), size) + 1


@njit(cache=True, nogil=True)
def _shingle_sets(ids, lens):
    """Exact shingle ids: (distinct ids per text as CSR (bounds, sids), texts holding each id)."""
    n = len(lens)
    total = 0
    for t in range(n):
        total += max(lens[t] - 2, 1)
    bits = 10
    while (1 << bits) < 2 * total:
        bits += 1
    # (key, id) per slot side by side; 0 is never a key (every key has a non-zero top field).
    table = np.zeros(2 << bits, np.int64)
    df = np.zeros(total, np.int64)
    last = np.full(total, -1, np.int64)
    bounds = np.zeros(n + 1, np.int64)
    sids = np.empty(total, np.int64)
    n_sid, filled, at = 0, 0, 0
    mask = (1 << bits) - 1
    for t in range(n):
        m = lens[t]
        for k in range(max(m - 2, 1)):
            key = _shingle_key(ids, at + k, m)
            s = _slot(key, bits)
            while table[2 * s] != 0 and table[2 * s] != key:
                s = (s + 1) & mask
            if table[2 * s] == 0:
                table[2 * s], table[2 * s + 1] = key, n_sid
                n_sid += 1
            sid = table[2 * s + 1]
            if last[sid] != t:  # a repeat within the text counts once
                last[sid] = t
                df[sid] += 1
                sids[filled] = sid
                filled += 1
        at += m
        bounds[t + 1] = filled
    return bounds, sids[:filled], df[:n_sid]


@njit(cache=True, nogil=True)
def join(ids, lens, n_pinned, threshold, slack):
    """Partner position per text (-1: kept), texts in join order; the prefix-filtered exact join."""
    n = len(lens)
    bounds, sids, df = _shingle_sets(ids, lens)
    # Global rarity order: by how many texts hold the shingle, ties by id (a counting sort: numba's
    # quicksort degrades on the sorted runs these keys have).
    first = np.zeros(n + 2, np.int64)
    for sid in range(len(df)):
        first[df[sid] + 1] += 1
    first = np.cumsum(first)
    order = np.empty(len(df), np.int64)
    rank = np.empty(len(df), np.int64)
    for sid in range(len(df)):
        rank[sid] = first[df[sid]]
        order[first[df[sid]]] = sid
        first[df[sid]] += 1
    ranks = rank[sids]
    plen = np.empty(n, np.int64)
    per_rank = np.zeros(len(df) + 1, np.int64)
    for t in range(n):
        lo, hi = bounds[t], bounds[t + 1]
        ranks[lo:hi] = np.sort(ranks[lo:hi])
        plen[t] = _prefix_length(hi - lo, threshold, slack)
        for j in range(lo, lo + plen[t]):
            if df[order[ranks[j]]] >= 2:  # a shingle no other text holds is never worth indexing
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
            if df[order[r]] >= 2:
                index[fill[r]] = t
                fill[r] += 1
    return partner


def warm_up() -> None:
    """Compile (or load from the on-disk cache) every kernel on tiny inputs."""
    buf = np.frombuffer(b"a b c d\x00a b c", dtype=np.uint8)
    ids, lens, _ = word_ids(buf, np.array([0, 8]), np.array([7, 13]))
    unique_counts(ids, lens, 10)
    join(ids, lens, 0, 0.8, 1e-12)
