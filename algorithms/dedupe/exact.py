"""Exact dedupe as an indexed set-similarity join (prefix filtering), same answers as pairwise.

Three stages, none of which can change the answer:

1. Counting filter (`filter.may_match`): all texts are tokenised at once
   into 64-bit word codes and every shingle is hashed into a table of about
   one slot per shingle. A text whose once-seen shingles number at least its
   prefix length ``s - ceil(t * s) + 1`` can share at most
   ``ceil(t * s) - 1`` shingles with any other text, so it reaches Jaccard >= t
   with none and equals no other word list: it is kept, never absorbs
   anything, and is left out of the rest. Texts of mostly unique shingles go
   no further, without a sort.
2. Exact shingles of the remaining texts (`exact_word_ids`,
   `exact_shingle_codes`, `shared_ranks`): dense word ids, trigram codes
   one-to-one with shingles, each shared shingle ranked by how many texts hold
   it (a lower rank is rarer).
3. The join: if two sets have Jaccard >= t > 0 they share at least
   ``ceil(t * |x|)`` shingles, so the first ``|x| - ceil(t * |x|) + 1`` of
   each in rarity order (its *prefix*, unshared shingles first) must
   intersect. Prefixes are fixed per text, so only the prefix ranks that a
   later text also holds are indexed and only those an earlier text holds are
   probed. Kept anchors index theirs; a candidate verifies the anchors found
   through its probes in anchor order, after a length filter
   (``min/max size >= t``), with `jaccard`'s own division on the same integers.
   A dict of word-id sequences finds exact repeats.

Threshold 0 matches everything (Jaccard >= 0 always holds), so then the first
anchor is every candidate's partner. Prefix lengths get a 1e-12 relative slack
(`filter.PREFIX_SLACK`), so float rounding can never make a filter miss
a pair the reference would match.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..items import Item
from .anchors import join_anchors
from .filter import may_match, prefix_lengths
from .rule import DedupeMethod, DedupeResult, absorb_all, dedupe_order
from .tokenise import word_codes

__all__ = ["dedupe_indexed", "Exact", "active_texts", "exact_word_ids", "exact_shingle_codes", "distinct_shingles",
           "shared_ranks"]

# Word ids below this bound let a trigram be one int64 code: id0 * V^2 + id1 * V + id2.
_DIRECT_VOCAB = 2**20


def exact_shingle_codes(word_ids: np.ndarray, lens: np.ndarray, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """(text index, shingle code) per shingle occurrence, text index ascending.

    Codes are one-to-one with shingle tuples (word trigrams, or the whole tuple of a text under three words).
    """
    n_texts = len(lens)
    offsets = np.zeros(n_texts + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    owner = np.repeat(np.arange(n_texts, dtype=np.int64), lens)
    pos_in_text = np.arange(len(word_ids), dtype=np.int64) - offsets[owner]
    tri = np.flatnonzero(pos_in_text <= lens[owner] - 3)
    a, b, c = word_ids[tri], word_ids[tri + 1], word_ids[tri + 2]
    if vocab < _DIRECT_VOCAB:
        tri_codes = (a * vocab + b) * vocab + c
        v3 = vocab ** 3
    else:  # compact the (a, b) pairs first so the code stays within int64
        _, pair = np.unique(a * vocab + b, return_inverse=True)
        tri_codes = pair.astype(np.int64).ravel() * vocab + c
        v3 = (int(pair.max()) + 1 if len(pair) else 1) * vocab
    # Texts under three words are one shingle, the whole tuple: give those codes above v3.
    short = np.flatnonzero(lens < 3)
    short_codes = np.empty(len(short), dtype=np.int64)
    for k, t in enumerate(short.tolist()):
        ids = word_ids[offsets[t]:offsets[t + 1]].tolist()
        if len(ids) == 0:
            short_codes[k] = v3 + vocab + vocab * vocab
        elif len(ids) == 1:
            short_codes[k] = v3 + ids[0]
        else:
            short_codes[k] = v3 + vocab + ids[0] * vocab + ids[1]
    owners = np.concatenate([owner[tri], short])
    codes = np.concatenate([tri_codes, short_codes])
    if len(short):  # keep owners ascending, as `distinct_shingles` relies on
        order = np.argsort(owners, kind="stable")
        owners, codes = owners[order], codes[order]
    return owners, codes


def distinct_shingles(word_ids: np.ndarray, lens: np.ndarray, vocab: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(text index, shingle id) of every distinct shingle of every text, and the number of shingles.

    Shingle ids are dense (0..n-1) and one-to-one with shingle tuples.
    """
    n_texts = len(lens)
    owner, codes = exact_shingle_codes(word_ids, lens, max(vocab, 1))
    if len(codes) == 0:
        return owner, codes, 0
    if (int(codes.max()) + 1) * n_texts < 2**62:
        # One sort of (code, text) packed in an int64: faster than an argsort and two gathers.
        packed = np.sort(codes * n_texts + owner)
        codes, owner = packed // n_texts, packed % n_texts
    else:
        # A stable sort by code keeps each code's texts ascending (they are on input).
        order = np.argsort(codes, kind="stable")
        codes, owner = codes[order], owner[order]
    new_code = np.ones(len(codes), dtype=bool)
    np.not_equal(codes[1:], codes[:-1], out=new_code[1:])
    distinct = new_code.copy()  # repeated (text, shingle) pairs are adjacent now
    distinct[1:] |= owner[1:] != owner[:-1]
    sid = np.cumsum(new_code)[distinct] - 1
    return owner[distinct], sid, int(sid[-1]) + 1


def shared_ranks(word_ids: np.ndarray, lens: np.ndarray, vocab: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the join needs of each text: set size, unshared count, and its shared shingles as ranks.

    A shingle found in one text only can never be in an intersection, so only
    the shared ones (in two or more texts) are listed, ranked by how many texts
    hold them (ties by an internal code). In the global rarity order
    (unshared shingles first, then shared ones by rank) the first k shingles of
    a text are its unshared ones and then its first ``k - unshared`` shared ones.

    Args:
        word_ids: Dense word ids (`exact_word_ids`), text after text.
        lens: Words per text.
        vocab: Number of distinct word ids.

    Returns:
        (sizes, unshared counts, all texts' shared ranks (ascending within each
        text, text after text), bounds: text t's ranks are ``[bounds[t], bounds[t + 1])``).
    """
    n_texts = len(lens)
    p_owner, sid, n_sh = distinct_shingles(word_ids, lens, vocab)
    df = np.bincount(sid, minlength=n_sh)
    sizes = np.bincount(p_owner, minlength=n_texts)
    shared = df[sid] >= 2
    unshared = sizes - np.bincount(p_owner[shared], minlength=n_texts)
    shared_ids = np.flatnonzero(df >= 2)
    n_ranks = max(len(shared_ids), 1)
    rank_of = np.zeros(n_sh, dtype=np.int64)
    rank_of[shared_ids[np.argsort(df[shared_ids], kind="stable")]] = np.arange(len(shared_ids))
    keyed = np.sort(p_owner[shared] * n_ranks + rank_of[sid[shared]])
    bounds = np.searchsorted(keyed, np.arange(n_texts + 1) * n_ranks)
    return sizes, unshared, keyed % n_ranks, bounds


def _prefix_lists(sizes: np.ndarray, unshared: np.ndarray, flat: np.ndarray, bounds: np.ndarray,
                  threshold: float) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Per text (those with any), the shared ranks of its prefix worth indexing, and those worth probing.

    A text's prefix (its first ``s - ceil(t * s) + 1`` shingles in rarity
    order, unshared ones first) does not depend on the join's progress, so it
    is known in advance which prefix ranks some later text holds (only those
    are worth indexing) and which some earlier text holds (only those are worth
    probing); the others could never meet.
    """
    n_texts = len(sizes)
    counts = np.diff(bounds)
    k = np.clip(prefix_lengths(sizes, threshold) - unshared, 0, counts)
    owner = np.repeat(np.arange(n_texts, dtype=np.int64), counts)
    in_prefix = np.arange(len(flat), dtype=np.int64) - bounds[:-1][owner] < k[owner]
    ranks, owner = flat[in_prefix], owner[in_prefix]
    if len(ranks) == 0:
        return {}, {}
    by_rank = np.argsort(ranks, kind="stable")  # (rank, text) order: owners ascend on input
    r_sorted, o_sorted = ranks[by_rank], owner[by_rank]
    new_rank = np.ones(len(r_sorted), dtype=bool)
    np.not_equal(r_sorted[1:], r_sorted[:-1], out=new_rank[1:])
    group = np.cumsum(new_rank) - 1
    starts = np.flatnonzero(new_rank)
    first_of = o_sorted[starts]
    last_of = o_sorted[np.append(starts[1:], len(o_sorted)) - 1]
    to_index, to_probe = np.zeros(len(ranks), dtype=bool), np.zeros(len(ranks), dtype=bool)
    to_index[by_rank] = o_sorted < last_of[group]
    to_probe[by_rank] = o_sorted > first_of[group]

    def split(mask: np.ndarray) -> dict[int, list[int]]:
        # Only texts with something to index/probe get a list: most have none.
        b = np.searchsorted(owner[mask], np.arange(n_texts + 1)).tolist()
        values = ranks[mask].tolist()
        return {t: values[b[t]:b[t + 1]] for t in np.unique(owner[mask]).tolist()}

    return split(to_index), split(to_probe)


def exact_word_ids(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """(dense word id per word, words per text, vocabulary size): equal ids if and only if equal words."""
    return _dense_ids(*word_codes(texts, exact=True))


def _dense_ids(codes: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    vocab = np.unique(codes)
    return np.searchsorted(vocab, codes), lens, len(vocab)  # sorts the distinct codes only


def active_texts(texts: Sequence[str], threshold: float) -> np.ndarray:
    """Indices of the texts the join must look at; the others provably match nothing (`may_match`)."""
    return np.flatnonzero(may_match(*word_codes(texts, exact=False), threshold))


def dedupe_indexed(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
    """Exact dedupe by prefix-filtered similarity join; same result as `dedupe_pairwise`.

    Args:
        candidates: Non-pinned items.
        pinned: Pinned items (anchors that are never dropped).
        threshold: Jaccard threshold in [0, 1].

    Returns:
        (kept candidates in visiting order, dropped id -> id of the first item it matched).
    """
    visit = dedupe_order(candidates)
    anchors_first = list(pinned)
    if threshold <= 0.0:  # Jaccard >= 0 holds for every pair: the first anchor absorbs the rest
        return absorb_all(visit, anchors_first)
    texts = anchors_first + visit
    if not visit:
        return [], {}
    # One exact tokenisation serves the filter and the join (the filter takes exact codes as well).
    codes, lens = word_codes([it.text for it in texts], exact=True)
    mask = may_match(codes, lens, threshold)
    # Texts proven unable to match are left out: they are kept and never absorb anything.
    active = np.flatnonzero(mask).tolist()
    dropped = _join([texts[k] for k in active], sum(k < len(anchors_first) for k in active), threshold,
                    codes[np.repeat(mask, lens)], lens[mask])
    return [it for it in visit if it.id not in dropped], dropped


def _join(texts: Sequence[Item], n_pinned: int, threshold: float, codes: np.ndarray,
          lens: np.ndarray) -> dict[str, str]:
    """The prefix-filtered join over `texts` (pinned anchors first, then candidates in visiting order).

    `codes` and `lens` are the exact word codes of `texts` (`word_codes(..., exact=True)`).
    """
    word_ids, lens, vocab = _dense_ids(codes, lens)
    sizes_a, unshared, flat, bounds_a = shared_ranks(word_ids, lens, vocab)
    index_ranks, probe_ranks = _prefix_lists(sizes_a, unshared, flat, bounds_a, threshold)
    sizes, bounds = sizes_a.tolist(), bounds_a.tolist()
    word_bounds = np.concatenate([[0], np.cumsum(lens)]).tolist()
    shared_sets: dict[int, frozenset] = {}

    def shared_set(pos: int) -> frozenset:
        if pos not in shared_sets:
            shared_sets[pos] = frozenset(flat[bounds[pos]:bounds[pos + 1]].tolist())
        return shared_sets[pos]

    def verify(pos: int, other_pos: int) -> bool:
        size, other = sizes[pos], sizes[other_pos]
        if min(size, other) / max(size, other) < threshold:
            return False
        # Unshared shingles never meet, so the shared sets give the intersection; the
        # division is `jaccard`'s, on the same integers, hence the same float.
        inter = len(shared_set(pos) & shared_set(other_pos))
        return inter / (size + other - inter) >= threshold

    def repeat_key(pos: int) -> bytes:
        return word_ids[word_bounds[pos]:word_bounds[pos + 1]].tobytes()

    return join_anchors([it.id for it in texts], n_pinned, index_ranks, probe_ranks, verify, repeat_key)


class Exact(DedupeMethod):
    """Seed 000's rule by an indexed similarity join (the default): the same kept list and partners as pairwise."""

    name = "exact"

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        return dedupe_indexed(candidates, pinned, threshold)
