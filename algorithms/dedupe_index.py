"""Exact dedupe as an indexed set-similarity join (prefix filtering), same answers as pairwise.

Every text's shingles are ranked globally, a lower rank meaning a rarer
shingle (fewer texts contain it). If two sets have Jaccard >= t > 0 they share
at least ``ceil(t * |x|)`` shingles, so the first ``|x| - ceil(t * |x|) + 1``
ranks of each (its *prefix*) must intersect. A shingle of one text only can
never be shared, so it is neither indexed nor probed, and only the shared
shingles of each text are kept (with its set size). Kept anchors put their
prefix in an inverted index; a candidate verifies only the anchors found
through its own prefix, in anchor order, after a length filter
(``min/max size >= t``), with `jaccard`'s own division on the same integers.
A dict of normalised word tuples finds exact repeats. Threshold 0 matches
everything (Jaccard >= 0 always holds), so then the first anchor is every
candidate's partner. Prefix lengths get a 1e-12 relative slack, so float
rounding can never make the filter miss a pair the reference would match.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import chain

import numpy as np

from .dedupe_core import dedupe_order
from .items import Item

__all__ = ["dedupe_indexed", "shingle_ranks", "shared_shingles", "word_keys"]

# Prefix lengths are computed with a little slack so float rounding in the
# reference's Jaccard (one division) can never make the filter miss a pair.
_SLACK = 1e-12
# Byte translation table: ASCII letters and digits stay, every other byte becomes a space.
_KEEP_ALNUM = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))
# Word ids below this bound let a trigram be one int64 code: id0 * V^2 + id1 * V + id2.
_DIRECT_VOCAB = 2**20


def word_keys(text: str) -> tuple[bytes, ...]:
    """The normalised words of `text` (those of `words`) as ASCII bytes, ~2x faster than the regex.

    After ``lower()``, every character outside ``[a-z0-9]`` separates words; in
    UTF-8 each non-ASCII character is bytes >= 0x80, which the table maps to spaces.
    """
    return tuple(text.lower().encode("utf-8", "surrogatepass").translate(_KEEP_ALNUM).split())


def _shingle_codes(word_ids: np.ndarray, lens: np.ndarray, vocab: int) -> tuple[np.ndarray, np.ndarray]:
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
    if len(short):  # keep owners ascending, as `shingle_ranks` relies on
        order = np.argsort(owners, kind="stable")
        owners, codes = owners[order], codes[order]
    return owners, codes


def _distinct_pairs(word_lists: Sequence[Sequence[str | bytes]]) -> tuple[np.ndarray, np.ndarray, int]:
    """(text index, shingle id) of every distinct shingle of every text, and the number of shingles.

    Shingle ids are dense (0..n-1) and one-to-one with shingle tuples.
    """
    n_texts = len(word_lists)
    lens = np.fromiter((len(ws) for ws in word_lists), dtype=np.int64, count=n_texts)
    all_words = list(chain.from_iterable(word_lists))
    vocab = {w: k for k, w in enumerate(dict.fromkeys(all_words))}
    word_ids = np.fromiter(map(vocab.__getitem__, all_words), dtype=np.int64, count=len(all_words))
    owner, codes = _shingle_codes(word_ids, lens, max(len(vocab), 1))
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


def _split_by_text(p_owner: np.ndarray, ranks: np.ndarray, n_ranks: int, n_texts: int) -> list[list[int]]:
    """Per text, its ranks ascending (pairs given as parallel arrays)."""
    keyed = np.sort(p_owner * n_ranks + ranks)
    bounds = np.searchsorted(keyed, np.arange(n_texts + 1) * n_ranks).tolist()
    flat = (keyed % n_ranks).tolist() if n_ranks else []
    return [flat[bounds[t]:bounds[t + 1]] for t in range(n_texts)]


def shingle_ranks(word_lists: Sequence[Sequence[str | bytes]]) -> tuple[list[list[int]], int]:
    """Each text's shingle set as ascending global rarity ranks.

    Shingles are the word trigrams of `shingles` (texts under three words: the
    whole tuple); ranks order shingles by the number of texts containing them
    (ties by an internal code), so equal shingles get equal ranks and rarer
    ones come first.

    Args:
        word_lists: Normalised word tuples, one per text.

    Returns:
        (one ascending list of distinct ranks per text (never empty), the number
        of shingles found in a single text only: exactly the ranks below it).
    """
    p_owner, sid, n_sh = _distinct_pairs(word_lists)
    if n_sh == 0:
        return [], 0
    df = np.bincount(sid, minlength=n_sh)
    rank_of = np.empty(n_sh, dtype=np.int64)
    rank_of[np.argsort(df, kind="stable")] = np.arange(n_sh, dtype=np.int64)
    singles = int(np.count_nonzero(df == 1))
    return _split_by_text(p_owner, rank_of[sid], n_sh, len(word_lists)), singles


def shared_shingles(word_lists: Sequence[Sequence[str | bytes]]) -> tuple[list[int], list[int], list[list[int]]]:
    """What the join needs of each text: set size, count of unshared shingles, shared ranks.

    A shingle found in one text only can never be in an intersection, so only
    the shared ones (in two or more texts) are listed, ranked by how many texts
    hold them (ties by an internal code). In the global rarity order of
    `shingle_ranks` every unshared shingle comes first, so the first k
    shingles of a text are its unshared ones and then its first
    ``k - unshared`` shared ones.

    Args:
        word_lists: Normalised word tuples, one per text.

    Returns:
        (sizes, unshared counts, ascending shared ranks), one entry per text.
    """
    n_texts = len(word_lists)
    p_owner, sid, n_sh = _distinct_pairs(word_lists)
    df = np.bincount(sid, minlength=n_sh)
    sizes = np.bincount(p_owner, minlength=n_texts)
    shared = df[sid] >= 2
    unshared = sizes - np.bincount(p_owner[shared], minlength=n_texts)
    shared_ids = np.flatnonzero(df >= 2)
    rank_of = np.zeros(n_sh, dtype=np.int64)
    rank_of[shared_ids[np.argsort(df[shared_ids], kind="stable")]] = np.arange(len(shared_ids))
    ranks = _split_by_text(p_owner[shared], rank_of[sid[shared]], len(shared_ids), n_texts)
    return sizes.tolist(), unshared.tolist(), ranks


def _prefix_len(size: int, threshold: float) -> int:
    """How many of the rarest shingles of a set of `size` must be indexed/probed."""
    need = max(1, math.ceil(threshold * size * (1.0 - _SLACK)))
    return size - min(need, size) + 1


def dedupe_indexed(candidates: Sequence[Item], pinned: Sequence[Item],
                   threshold: float) -> tuple[list[Item], dict[str, str]]:
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
        if not visit:
            return [], {}
        head = anchors_first[0].id if anchors_first else visit[0].id
        kept = [] if anchors_first else [visit[0]]
        rest = visit if anchors_first else visit[1:]
        return kept, {it.id: head for it in rest}
    texts = anchors_first + visit
    word_lists = [word_keys(it.text) for it in texts]
    sizes, unshared, ranks = shared_shingles(word_lists)
    anchor_ids: list[str] = []
    anchor_pos: list[int] = []
    anchor_sets: dict[int, frozenset] = {}
    first_with_words: dict[tuple[bytes, ...], int] = {}
    index: dict[int, list[int]] = {}

    def probe_ranks(pos: int) -> list[int]:
        # The prefix of the full rarity order, minus the unshared shingles it starts with.
        return ranks[pos][:max(0, _prefix_len(sizes[pos], threshold) - unshared[pos])]

    def shared_set(pos: int) -> frozenset:
        if pos not in anchor_sets:
            anchor_sets[pos] = frozenset(ranks[pos])
        return anchor_sets[pos]

    def add_anchor(pos: int, item: Item) -> None:
        a = len(anchor_ids)
        anchor_ids.append(item.id)
        anchor_pos.append(pos)
        first_with_words.setdefault(word_lists[pos], a)
        for r in probe_ranks(pos):
            index.setdefault(r, []).append(a)

    for pos, item in enumerate(anchors_first):
        add_anchor(pos, item)
    kept: list[Item] = []
    dropped: dict[str, str] = {}
    base = len(anchors_first)
    for off, item in enumerate(visit):
        pos = base + off
        size = sizes[pos]
        match = first_with_words.get(word_lists[pos], len(anchor_ids))
        probes: set[int] = set()
        for r in probe_ranks(pos):
            hits = index.get(r)
            if hits:
                probes.update(hits)
        for a in sorted(probes):
            if a >= match:
                break
            other = sizes[anchor_pos[a]]
            if min(size, other) / max(size, other) < threshold:
                continue
            # Unshared shingles never meet, so the shared sets give the intersection; the
            # division is `jaccard`'s, on the same integers, hence the same float.
            inter = len(shared_set(pos) & shared_set(anchor_pos[a]))
            if inter / (size + other - inter) >= threshold:
                match = a
                break
        if match < len(anchor_ids):
            dropped[item.id] = anchor_ids[match]
            continue
        kept.append(item)
        add_anchor(pos, item)
    return kept, dropped
