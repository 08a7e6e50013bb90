"""The counting filter of the indexed joins, and shingle hashes from word codes.

`may_match`: a shingle found in one text only can never be shared, and a text
whose unshared shingles number at least its prefix length
``s - ceil(t * s) + 1`` can reach Jaccard >= t with no other text (it would need
``ceil(t * s)`` shared shingles) and equals no other text's word list. Shingle
hashes are counted in a table of about 1.25 slots per shingle (half of the
trigrams, chosen by their hash, so by their content); a slot hit once holds a
shingle that occurs once in the whole batch, so counting those gives a lower
bound on each text's unshared shingles and proves most unique texts inert
without sorting anything.
"""

from __future__ import annotations

import numpy as np

from .tokenise import MULTIPLIERS as _K

__all__ = ["shingle_hashes", "may_match", "once_counts", "prefix_lengths", "PREFIX_SLACK"]

# Prefix lengths get this relative slack so float rounding in the reference's one
# division can never make a filter drop a pair the reference would match.
PREFIX_SLACK = 1e-12
_MAX_TABLE_BITS = 24
_HASH_BLOCK = 1 << 16  # trigram positions hashed per numpy block
_BIT_CHUNK = 1 << 20  # count-table slots per packbits call (a multiple of 8: whole bytes per chunk)


def _finish(h: np.ndarray) -> np.ndarray:
    """Spread every input bit into the top bits, in place (the table slot is the top bits)."""
    h ^= h >> np.uint64(29)
    h *= _K[4]
    h ^= h >> np.uint64(32)
    h *= _K[5]
    return h


def _mix3(codes: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The three word codes of each trigram starting at lo..hi-1 (hi + 2 <= len(codes)), multiplied and xored."""
    h = np.multiply(codes[lo:hi], _K[0])
    tmp = np.multiply(codes[lo + 1:hi + 1], _K[1])
    h ^= tmp
    np.multiply(codes[lo + 2:hi + 2], _K[2], out=tmp)
    h ^= tmp
    return h


def _trigram_hashes(codes: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Hashes of the word trigrams starting at positions lo..hi-1 (which need hi + 2 <= len(codes))."""
    return _finish(_mix3(codes, lo, hi))


def _sample_hashes(codes: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """A cheaper hash of the trigrams starting at lo..hi-1, for the counting filter (top bits used)."""
    h = _mix3(codes, lo, hi)
    h *= _K[4]  # carries every bit of the three products into the top bits
    return h


def _short_hashes(codes: np.ndarray, lens: np.ndarray, short: np.ndarray) -> np.ndarray:
    """Hashes of the single shingle (the whole word tuple) of each text in `short` (texts under 3 words)."""
    first = np.cumsum(lens)[short] - lens[short]
    c0 = np.zeros(len(short), dtype=np.uint64)
    c1 = np.zeros(len(short), dtype=np.uint64)
    c0[lens[short] >= 1] = codes[first[lens[short] >= 1]]
    c1[lens[short] >= 2] = codes[first[lens[short] >= 2] + 1]
    return _finish(c0 * _K[3] ^ c1 * _K[1] ^ (lens[short].astype(np.uint64) + np.uint64(1)) * _K[2])


def shingle_hashes(codes: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owning text, 64-bit hash) of every distinct-position shingle; equal shingles, equal hashes.

    Shingles are each text's word trigrams, or for a text under three words its
    whole tuple; different shingles rarely share a hash. Owners ascend.
    """
    n_tri = max(len(codes) - 2, 0)
    owner = np.repeat(np.arange(len(lens), dtype=np.int64), np.maximum(lens - 2, 1))
    ends = np.cumsum(lens)
    keep = np.ones(n_tri, dtype=bool)
    cut = np.concatenate([ends - 1, ends - 2])
    keep[cut[(cut >= 0) & (cut < n_tri)]] = False
    h = _trigram_hashes(codes, 0, n_tri)[keep]
    short = np.flatnonzero(lens < 3)
    if len(short) == 0:
        return owner, h
    # Put each short text's hash where its owner's slot is (owners ascend).
    merged = np.empty(len(owner), dtype=np.uint64)
    is_short = np.isin(owner, short)
    merged[is_short] = _short_hashes(codes, lens, short)
    merged[~is_short] = h
    return owner, merged


def prefix_lengths(sizes: np.ndarray, threshold: float) -> np.ndarray:
    """Per set size s, how many of its rarest shingles must be indexed/probed: s - ceil(t * s) + 1."""
    need = np.maximum(1.0, np.ceil(threshold * sizes * (1.0 - PREFIX_SLACK)))
    return sizes - np.minimum(need, sizes).astype(np.int64) + 1


def may_match(codes: np.ndarray, lens: np.ndarray, threshold: float) -> np.ndarray:
    """Boolean per text: False only for texts proven unable to reach Jaccard `threshold` with any other.

    Args:
        codes: Word codes of `word_codes` (exact or not).
        lens: Words per text.
        threshold: Jaccard threshold in (0, 1].

    Returns:
        The mask of texts the exact join still has to look at.
    """
    unshared, occurrences = once_counts(codes, lens)
    return unshared < prefix_lengths(occurrences, threshold)


def once_counts(codes: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per text, a lower bound on its unshared shingles and an upper bound on its set size.

    Args:
        codes: Word codes of `word_codes` (exact or not).
        lens: Words per text.

    Returns:
        (shingle occurrences that are provably in no other text and not repeated, shingle occurrences).
    """
    n_tri = max(len(codes) - 2, 0)
    short = np.flatnonzero(lens < 3)
    # A table of about 1.25 slots per word position (counted or not), at most 2^24: sized to the input
    # (not to a power of two), so the share of slots hit by two shingles, which is what hides unique
    # shingles, is the same at every batch size, and the table is no larger than that needs.
    size = min(1 << _MAX_TABLE_BITS, max(1024, (n_tri + len(short)) * 5 // 4))
    # Table slot of the trigram at every word position, blockwise so the temporaries stay in cache.
    # Trigrams crossing two texts are counted too: that can only hide a unique shingle, never invent one.
    # Only trigrams whose hash has its top bit clear are counted (the others all go to one extra
    # slot, `spare`, which is never "once"): whether a trigram is counted depends on the trigram
    # alone, so a counted one seen once is still in no other text, and counting half of them halves
    # the table's cache misses while a unique text keeps far more counted once-seen trigrams than
    # its prefix length. The slot is the hash's next 31 bits scaled to the table (multiply, shift).
    spare, scale = np.uint64(size), np.uint64(size)
    slots = np.empty(n_tri + len(short), dtype=np.int64)
    for lo in range(0, n_tri, _HASH_BLOCK):
        hi = min(lo + _HASH_BLOCK, n_tri)
        h = _sample_hashes(codes, lo, hi)
        h >>= np.uint64(32)  # below 2^31 exactly for the counted trigrams
        h *= scale
        h >>= np.uint64(31)
        np.minimum(h, spare, out=slots[lo:hi].view(np.uint64))
    short_slots = _short_hashes(codes, lens, short) >> np.uint64(32)
    short_slots *= scale
    slots[n_tri:] = (short_slots >> np.uint64(32)).view(np.int64)
    counts = np.bincount(slots, minlength=size + 1)
    counts[-1] = 0
    # One bit per slot: the table (2 MiB at most) stays in cache while every position looks its slot up.
    # It is made a chunk of slots at a time, so the comparison's temporary stays in cache too.
    single = np.concatenate([np.packbits(counts[k:k + _BIT_CHUNK] == 1, bitorder="little")
                             for k in range(0, len(counts), _BIT_CHUNK)])
    del counts
    ends = np.cumsum(lens)
    unshared = np.zeros(len(lens), dtype=np.int64)
    long = np.flatnonzero(lens >= 3)
    if len(long):
        # Text d's trigrams start at positions [first, last): its first word up to 2 words before its
        # end. The once-seen bits are looked up and summed in runs of texts of about one block of
        # positions, so neither a bit per position nor reduceat's int64 copy of its input is ever
        # made for every position at once (a fresh 1 + 8 bytes per word at each call).
        first = ends[long] - lens[long]
        last = ends[long] - 2
        runs = np.searchsorted(first, np.arange(_HASH_BLOCK, n_tri, _HASH_BLOCK))
        bounds = [0, *(int(b) for b in np.unique(runs) if 0 < b < len(first)), len(first)]
        # Each run's sums alternate text, gap (the positions crossing into the next text, and any
        # text under three words in between): reduceat over [first, last, first, last, ...].
        edges = np.stack([first, last], axis=1).ravel()
        sums = np.empty(len(first), dtype=np.int64)
        for a, b in zip(bounds[:-1], bounds[1:]):
            lo, hi = int(first[a]), int(last[b - 1])
            at = slots[lo:hi]
            bits = (single[at >> 3] >> (at & 7).astype(np.uint8)) & np.uint8(1)
            sums[a:b] = np.add.reduceat(bits, edges[2 * a:2 * b - 1] - lo, dtype=np.int64)[::2]
        unshared[long] = sums
    at = slots[n_tri:]
    unshared[short] = (single[at >> 3] >> (at & 7).astype(np.uint8)) & np.uint8(1)
    return unshared, np.maximum(lens - 2, 1)  # occurrences bound the set size (repeats counted)
