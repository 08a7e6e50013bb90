"""Exact shingle identities of a batch of texts: dense word ids, trigram codes, shared ranks.

Everything here is one-to-one with the rule's shingles (`rule.shingles` of
the signature), so sets built from these ids have the exact sizes and
intersections of the shingle sets.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dense_ids", "exact_shingle_codes", "distinct_shingles", "shared_ranks"]

# Word ids below this bound let a trigram be one int64 code: id0 * V^2 + id1 * V + id2.
_DIRECT_VOCAB = 2**20
_ID_TABLE_BITS = 26  # at most 2^26 slots (512 MiB of codes would need more words than that)
_FIRST_TABLE_BITS = 20  # the first, vocabulary-sized try of `dense_ids` (8 MiB of codes)
_SLOT_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_RADIX_MAX = 2**16 - 1  # numpy's stable sort of 16-bit keys is a radix sort
# From this many shared-shingle entries on, the per-text rank lists come from a counting sort (`_by_text`).
_COUNTING_SORT_MIN = 1 << 18


def dense_ids(codes: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Word codes -> dense ids (equal ids if and only if equal codes), by a table instead of a sort.

    Each code hashes to a slot of a table; the code left in a slot owns it, and
    the few codes that lost their slot to another get ids of their own after the
    slots'. A sort (``np.unique``) costs far more per word, and its hashed
    variant degrades with the vocabulary. The table wants several slots per
    distinct word, a number unknown in advance: a table of 2^20 slots (which
    stays in cache) is tried first, as texts repeat their words, and one of
    about two slots per word replaces it when more than an eighth of its slots
    are taken.
    """
    if len(codes) == 0:
        return np.zeros(0, dtype=np.int64), lens, 0
    bits = max(10, min(_ID_TABLE_BITS, int(len(codes)).bit_length() + 1))
    found = _table_ids(codes, _FIRST_TABLE_BITS, may_give_up=True) if bits > _FIRST_TABLE_BITS else None
    if found is None:
        found = _table_ids(codes, bits, may_give_up=False)
    ids, n_ids = found
    return ids, lens, n_ids


def _table_ids(codes: np.ndarray, bits: int, may_give_up: bool) -> tuple[np.ndarray, int] | None:
    """(dense id per code, number of ids) by a table of 2^bits slots.

    With `may_give_up`, None instead once more than an eighth of the slots are taken.
    """
    slot = ((codes * _SLOT_MULTIPLIER) >> np.uint64(64 - bits)).view(np.int64)
    used = np.zeros(1 << bits, dtype=bool)
    used[slot] = True
    if may_give_up and np.count_nonzero(used) > 1 << (bits - 3):
        return None
    holder = np.zeros(1 << bits, dtype=np.uint64)
    holder[slot] = codes  # one of the codes of each slot stays there
    lost = np.flatnonzero(holder[slot] != codes)
    del holder  # each table freed once used: fewer full-size arrays alive at once
    # 32-bit running counts (the table has at most 2^26 slots) halve the traffic of this pass.
    dense = np.cumsum(used, dtype=np.int32)
    del used
    ids = dense[slot].astype(np.int64)
    ids -= 1
    n_slots = int(dense[-1])
    if len(lost) == 0:
        return ids, n_slots
    extra, inverse = np.unique(codes[lost], return_inverse=True)
    ids[lost] = n_slots + inverse.ravel()
    return ids, n_slots + len(extra)


def exact_shingle_codes(word_ids: np.ndarray, lens: np.ndarray, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """(text index, shingle code) per shingle occurrence, text index ascending.

    Codes are one-to-one with shingle tuples (word trigrams, or the whole tuple of a text under three words).
    """
    n_texts = len(lens)
    offsets = np.zeros(n_texts + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    # A trigram starts at every word but the last two of each text (texts are contiguous runs).
    starts = np.ones(max(len(word_ids) - 2, 0), dtype=bool)
    cut = np.concatenate([offsets[1:] - 1, offsets[1:] - 2])
    starts[cut[(cut >= 0) & (cut < len(starts))]] = False
    a, b, c = word_ids[:-2], word_ids[1:-1], word_ids[2:]
    if vocab < _DIRECT_VOCAB:
        # Over every position at once (contiguous arithmetic, in place), then the trigram starts kept.
        tri_codes = a * vocab
        tri_codes += b
        tri_codes *= vocab
        tri_codes += c
        tri_codes = tri_codes[starts]
        v3 = vocab ** 3
    else:  # compact the (a, b) pairs first so the code stays within int64
        a, b, c = a[starts], b[starts], c[starts]
        _, pair = np.unique(a * vocab + b, return_inverse=True)
        tri_codes = pair.astype(np.int64).ravel() * vocab + c
        v3 = (int(pair.max()) + 1 if len(pair) else 1) * vocab
    tri_owner = np.repeat(np.arange(n_texts, dtype=np.int64), np.maximum(lens - 2, 0))
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
    if not len(short):
        return tri_owner, tri_codes
    owners = np.concatenate([tri_owner, short])
    codes = np.concatenate([tri_codes, short_codes])
    # Keep owners ascending, as `distinct_shingles` relies on.
    order = np.argsort(owners, kind="stable")
    return owners[order], codes[order]


def distinct_shingles(word_ids: np.ndarray, lens: np.ndarray, vocab: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(text index, shingle id) of every distinct shingle of every text, and the number of shingles.

    Shingle ids are dense (0..n-1) and one-to-one with shingle tuples.
    """
    n_texts = len(lens)
    owner, codes = exact_shingle_codes(word_ids, lens, max(vocab, 1))
    if len(codes) == 0:
        return owner, codes, 0
    shift = int(n_texts - 1).bit_length()
    if (int(codes.max()) + 1) << shift <= 2**63 - 1:
        # One sort of (code, text) packed in an int64 (the text in the low bits, so shifts and masks
        # unpack it): faster than an argsort and two gathers.
        packed = codes  # packed in place: the codes array is this function's own
        packed <<= shift
        packed |= owner
        del codes, owner  # freed before the two unpacked arrays are made: a lower peak
        packed.sort()
        codes, owner = packed >> shift, packed & ((1 << shift) - 1)
        del packed
    else:
        # A stable sort by code keeps each code's texts ascending (they are on input).
        order = np.argsort(codes, kind="stable")
        codes, owner = codes[order], owner[order]
    new_code = np.ones(len(codes), dtype=bool)
    np.not_equal(codes[1:], codes[:-1], out=new_code[1:])
    distinct = new_code.copy()  # repeated (text, shingle) pairs are adjacent now
    distinct[1:] |= owner[1:] != owner[:-1]
    sid = np.cumsum(new_code)[distinct]
    sid -= 1
    return owner[distinct], sid, int(sid[-1]) + 1


def shared_ranks(word_ids: np.ndarray, lens: np.ndarray, vocab: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What the join needs of each text: set size, unshared count, and its shared shingles as ranks.

    A shingle found in one text only can never be in an intersection, so only
    the shared ones (in two or more texts) are listed, ranked by how many texts
    hold them (counts from 65,535 on count as equal; ties by an internal code). In the global rarity order
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
    shared_ids = np.flatnonzero(df >= 2)
    # Rank order: by text count, capped at 2^16 - 1 so that a 16-bit (radix) stable sort does it; ties by id.
    by_df = shared_ids[np.argsort(np.minimum(df[shared_ids], _RADIX_MAX).astype(np.uint16), kind="stable")]
    counts = df[by_df]
    # The occurrences of each shingle are contiguous (by id): list them shingle after shingle in rank order.
    first = np.cumsum(df) - df
    total = int(counts.sum())
    occ = np.repeat(first[by_df] - (np.cumsum(counts) - counts), counts)
    occ += np.arange(total)
    owners = p_owner[occ]
    # Done with the per-occurrence arrays: freed before the regrouping by text makes its own.
    del p_owner, sid, occ, first, shared_ids, by_df
    per_text = np.bincount(owners, minlength=n_texts)
    bounds = np.zeros(n_texts + 1, dtype=np.int64)
    np.cumsum(per_text, out=bounds[1:])
    return sizes, sizes - per_text, _by_text(owners, counts, n_texts), bounds


def _by_text(owners: np.ndarray, counts: np.ndarray, n_texts: int) -> np.ndarray:
    """Every text's ranks, ascending, text after text, from the owners listed rank after rank.

    Rank r has ``counts[r]`` entries, whose owners come in ascending order.
    """
    if len(owners) >= _COUNTING_SORT_MIN:
        from scipy import sparse  # lazy: only large batches need it (its import costs more than small ones)

        # Ranks as rows, texts as columns: converting to column-major order is a counting sort by
        # text that visits the rows in order, so each text's ranks stay ascending. It moves every
        # entry once, where the radix sort below makes two passes plus a gather, and past the
        # cache's size each of those costs a miss per entry.
        indptr = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        by_rank = sparse.csr_matrix((np.ones(len(owners), dtype=np.int8), owners, indptr),
                                    shape=(len(counts), n_texts))
        return by_rank.tocsc().indices.astype(np.int64)
    ranks = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    if n_texts <= _RADIX_MAX + 1:
        # A stable sort by text keeps each text's ranks ascending; 16-bit keys make it a radix sort.
        return ranks[np.argsort(owners.astype(np.uint16), kind="stable")]
    return np.sort(owners * max(len(counts), 1) + ranks) % max(len(counts), 1)
