"""Normalised words: the per-text rule (`words`) and the batch tokeniser of the indexed joins (`word_codes`).

Words are the ``[a-z0-9]+`` runs of the lower-cased text (seed 000's rule).

`word_codes` tokenises a whole batch with a few passes over one joined byte
buffer instead of one regex (and one Python object per word) per text: the
texts are joined with NUL separators, lower-cased, UTF-8 encoded and mapped by a
byte table (ASCII letters and digits stay, every other byte becomes a space),
so words are the maximal runs of kept bytes, exactly the ``[a-z0-9]+`` runs of
`words`. A word of up to 8 bytes is its own code (its bytes, little
endian), so equal codes mean equal words. Longer words are either given exact
ids through a dict (``exact=True``) or a hash of their length and first and
last 8 bytes (``exact=False``): a function of the word, which is all the
counting filter (`filter.may_match`) needs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

__all__ = ["words", "word_codes"]

# Kept bytes: ASCII digits and lower-case letters; NUL (the text separator) stays NUL; the rest become spaces.
_TABLE = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 or c == 0 else 32 for c in range(256))
# Low-byte masks: _LOW_BYTES[k] keeps the first k bytes of a little-endian 8-byte load.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
_LONG_FLAG = np.uint64(1 << 63)  # never set in a code of <= 8 kept bytes (all bytes < 0x80)
# Odd multipliers for hashing (fixed: results never depend on them, only the speed of the filter).
MULTIPLIERS = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
               0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53], dtype=np.uint64)
# Texts are tokenised in blocks of about this many characters, bounding the temporaries.
_BLOCK_CHARS = 1 << 18
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> tuple[str, ...]:
    """The normalised word tuple of `text`."""
    return tuple(_WORD.findall(text.lower()))


def _block_codes(texts: Sequence[str], long_ids: dict[bytes, int] | None) -> tuple[np.ndarray, np.ndarray]:
    joined = "\x00".join(texts).lower().encode("utf-8", "surrogatepass")
    if joined.count(b"\x00") != max(len(texts) - 1, 0):  # NULs inside texts: they only separate words
        joined = "\x00".join(t.replace("\x00", " ") for t in texts).lower().encode("utf-8", "surrogatepass")
    data = joined.translate(_TABLE) + bytes(8)  # the padding makes every 8-byte load in bounds
    buf = np.frombuffer(data, dtype=np.uint8)
    in_word = buf > 32
    edges = np.flatnonzero(np.diff(in_word, prepend=False)).reshape(-1, 2)  # (start, end) per word
    starts, ends = np.ascontiguousarray(edges[:, 0]), np.ascontiguousarray(edges[:, 1])
    separators = np.flatnonzero(buf[:len(joined)] == 0)
    lens = np.diff(np.searchsorted(starts, separators), prepend=0, append=len(starts)) if len(texts) else \
        np.zeros(0, dtype=np.int64)
    size = ends - starts
    loads = np.ndarray((len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))
    codes = loads[starts] & _LOW_BYTES[np.minimum(size, 8)]
    long = np.flatnonzero(size > 8)
    if len(long):
        if long_ids is None:
            mixed = (codes[long] * MULTIPLIERS[0] ^ loads[ends[long] - 8] * MULTIPLIERS[1]
                     ^ size[long].astype(np.uint64) * MULTIPLIERS[2])
        else:
            mixed = np.fromiter((long_ids.setdefault(data[s:e], len(long_ids))
                                 for s, e in zip(starts[long].tolist(), ends[long].tolist())),
                                dtype=np.uint64, count=len(long))
        codes[long] = mixed | _LONG_FLAG
    return codes, lens


def word_codes(texts: Sequence[str], exact: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The words of every text as uint64 codes, concatenated, and the number of words per text.

    Args:
        texts: The texts.
        exact: Equal codes if and only if equal words (long words through a
            dict); otherwise long words get a hash, equal for equal words.

    Returns:
        (codes, words per text), codes in text order then word order.
    """
    long_ids: dict[bytes, int] | None = {} if exact else None
    chars = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    # Block k holds the texts that end within its share of characters (at least one text each).
    cuts = np.unique(np.searchsorted(chars, np.arange(1, int(chars[-1]) // _BLOCK_CHARS + 1) * _BLOCK_CHARS,
                                     side="right")) if len(texts) else np.zeros(0, dtype=np.int64)
    bounds = [0] + [int(c) for c in cuts if 0 < c < len(texts)] + [len(texts)]
    parts = [_block_codes(texts[a:b], long_ids) for a, b in zip(bounds[:-1], bounds[1:])]
    if not parts:
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    return np.concatenate([c for c, _ in parts]), np.concatenate([n for _, n in parts]).astype(np.int64)
