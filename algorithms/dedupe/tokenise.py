"""Normalised words: the rule (`words`, `signature`) and the batch tokeniser of the indexed joins.

The rule, for any text:

1. Normalise: Unicode NFKC, then `str.casefold` (on ASCII text: lower case).
2. Words are the maximal runs of letters and digits (Unicode categories L* and
   N*), with combining marks (M*) joined to the run they follow, so
   ``"naïve"``, ``"हिन्दी"`` and ``"Москва"`` are one word each.
3. Scripts written without spaces are one word per character (with its
   combining marks): Han, Hiragana, Katakana, Bopomofo, Yi, Thai, Lao, Khmer,
   Myanmar and the Tai scripts. Other symbols (category So: emoji, ``©``) are
   one word per character too, so an emoji-only text has words.
4. A text with no words at all (empty, punctuation only) has as its
   `signature` a one-element tuple: a NUL character followed by the
   normalised text with whitespace runs collapsed. Two such texts are
   duplicates only if those normalised texts are equal, and never duplicates
   of a text with words.

On ASCII text this is exactly seed 000's ``[a-z0-9]+`` runs of the lower-cased
text. Shingles (word trigrams, `rule.shingles`) are built on the signature.

`word_codes` tokenises a whole batch with a few passes over one joined byte
buffer instead of one regex (and one Python object per word) per text: the
texts are joined with NUL separators, UTF-8 encoded and mapped by a byte table
(ASCII letters and digits and every byte >= 0x80 stay, every other byte becomes
a space), so words are the maximal runs of kept bytes. ASCII texts go in as
they are (lower-cased); a text with any non-ASCII character goes in as its
words joined by spaces (from `words`), so both paths follow one rule. A word of
up to 8 bytes whose top bit is clear is its own code (its bytes, little
endian), so equal codes mean equal words. Other words are either given exact
ids through a dict (``exact=True``) or a hash of their length and first and
last 8 bytes (``exact=False``): a function of the word, which is all the
counting filter (`filter.may_match`) needs. A text with no words gets one code,
that of its signature.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

__all__ = ["normalise", "words", "signature", "word_codes", "SPACELESS_RANGES"]

# Low-byte masks: _LOW_BYTES[k] keeps the first k bytes of a little-endian 8-byte load.
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)
_LONG_FLAG = np.uint64(1 << 63)  # set only in codes that are ids or hashes, never in a word's own bytes
# Odd multipliers for hashing (fixed: results never depend on them, only the speed of the filter).
MULTIPLIERS = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                        0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53], dtype=np.uint64)
# Texts are tokenised in blocks of about this many characters, bounding the temporaries.
_BLOCK_CHARS = 1 << 18
_ASCII_WORD = re.compile(r"[a-z0-9]+")
# Per character class: W letter/digit, M combining mark, S a word by itself, space otherwise.
_TOKEN = re.compile(r"SM*|W[WM]*")
SPACELESS_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF),    # Thai, Lao
    (0x1000, 0x109F),    # Myanmar
    (0x1780, 0x17FF),    # Khmer
    (0x1950, 0x1AAF),    # Tai Le, New Tai Lue, Khmer symbols, Tai Tham
    (0x2E80, 0x2FDF),    # CJK radicals, Kangxi radicals
    (0x3005, 0x3007),    # ideographic iteration mark, closing mark, number zero
    (0x3021, 0x3029),    # Hangzhou numerals
    (0x3031, 0x3035),    # kana repeat marks
    (0x3038, 0x303C),
    (0x3040, 0x31FF),    # Hiragana, Katakana, Bopomofo, Kanbun, CJK strokes, Katakana extension
    (0x3400, 0x4DBF),    # CJK extension A
    (0x4E00, 0x9FFF),    # CJK unified ideographs
    (0xA000, 0xA4CF),    # Yi
    (0xA9E0, 0xA9FF),    # Myanmar extension B
    (0xAA60, 0xAADF),    # Myanmar extension A, Tai Viet
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFF66, 0xFF9F),    # halfwidth Katakana (NFKC maps most of it to full width)
    (0x16FE0, 0x18D8F),  # ideographic symbols, Tangut, Khitan
    (0x1AFF0, 0x1B2FF),  # Kana extensions, Nushu
    (0x20000, 0x323AF),  # CJK extensions B-H, compatibility supplement
)
_SPACELESS_STARTS = [lo for lo, _ in SPACELESS_RANGES]


@lru_cache(maxsize=1 << 16)
def _char_class(ch: str) -> str:
    """W, M, S or a space: the role of one (normalised) character in the word rule."""
    cat = unicodedata.category(ch)
    if cat[0] == "M":
        return "M"
    if cat[0] in "LN":
        k = bisect.bisect_right(_SPACELESS_STARTS, ord(ch)) - 1
        return "S" if k >= 0 and ord(ch) <= SPACELESS_RANGES[k][1] else "W"
    return "S" if cat == "So" else " "


def normalise(text: str) -> str:
    """NFKC, then case folding (the first step of the rule)."""
    if text.isascii():
        return text.lower()  # NFKC is the identity on ASCII and casefold is lower
    return unicodedata.normalize("NFKC", text).casefold()


def _words_of_normalised(norm: str) -> list[str]:
    if norm.isascii():
        return _ASCII_WORD.findall(norm)
    classes = norm.translate({ord(ch): _char_class(ch) for ch in set(norm)})
    return [norm[m.start():m.end()] for m in _TOKEN.finditer(classes)]


def words(text: str) -> tuple[str, ...]:
    """The normalised word tuple of `text` (see the module doc)."""
    return tuple(_words_of_normalised(normalise(text)))


def signature(text: str) -> tuple[str, ...]:
    """What dedupe compares: the words, or for a text without words its marked normalised text."""
    ws = _words_of_normalised(normalise(text))
    return tuple(ws) if ws else ("\x00" + " ".join(normalise(text).split()),)


def _ascii_form(text: str) -> str:
    """What the byte tokeniser reads for `text`: itself lower-cased if ASCII, else its words joined by spaces."""
    return text.lower() if text.isascii() else " ".join(_words_of_normalised(normalise(text)))


def _block_codes(texts: Sequence[str], chars: np.ndarray,
                 long_ids: dict[bytes, int] | None) -> tuple[np.ndarray, np.ndarray]:
    """Word codes and words per text of one block; `chars` holds the texts' lengths."""
    if all(map(str.isascii, texts)):
        # ASCII texts go in as they are, lower-cased below, and as every character is one byte,
        # each text's NUL separator is found from the lengths instead of by a scan.
        joined = "\x00".join(texts).encode("ascii")
        separators = np.cumsum(chars + 1)[:-1] - 1
        raw = np.frombuffer(b"".join((b"\x00", joined, bytes(8))), dtype=np.uint8)
        # Setting bit 5 lower-cases A-Z and keeps a-z and the digits (48-57 have it set). It also moves
        # other bytes, so the digits are found in `raw`; `x | 32` is in a-z exactly for the ASCII letters.
        buf = raw | np.uint8(32)
        in_word = (buf - np.uint8(97) < 26) | (raw - np.uint8(48) < 10)
    else:  # the other texts are already case-folded words: no A-Z left to lower-case
        joined = "\x00".join(map(_ascii_form, texts)).encode("utf-8", "surrogatepass")
        separators = np.flatnonzero(np.frombuffer(joined, dtype=np.uint8) == 0)
        if len(separators) != max(len(texts) - 1, 0):  # NULs inside texts: they only separate words
            joined = "\x00".join(_ascii_form(t).replace("\x00", " ") for t in texts).encode("utf-8", "surrogatepass")
            separators = np.flatnonzero(np.frombuffer(joined, dtype=np.uint8) == 0)
        buf = np.frombuffer(b"".join((b"\x00", joined, bytes(8))), dtype=np.uint8)
        # The kept bytes are ASCII letters and digits and every byte >= 0x80.
        in_word = (buf - np.uint8(97) < 26) | (buf - np.uint8(48) < 10) | (buf >= 128)
    # `buf` is the joined text between a non-word byte in front (so a word at position 0 has an edge
    # without a copy by `np.diff(prepend=...)`) and 8 at the end (so every 8-byte load is in bounds).
    # Edge k is at text position k: where the word flag of byte k differs from that of byte k - 1.
    edges = np.flatnonzero(in_word[1:] != in_word[:-1]).reshape(-1, 2)  # (start, end) per word
    starts, ends = edges[:, 0], edges[:, 1]
    lens = np.diff(np.searchsorted(starts, separators), prepend=0, append=len(starts)) if len(texts) else \
        np.zeros(0, dtype=np.int64)
    size = ends - starts
    loads = np.ndarray((len(buf) - 8,), dtype="<u8", buffer=buf, offset=1, strides=(1,))
    codes = np.take(loads, starts) & _LOW_BYTES[np.minimum(size, 8)]
    # Words over 8 bytes, and 8-byte words whose last byte has its top bit set (it would read as the flag).
    long = np.flatnonzero((size > 8) | (codes >= _LONG_FLAG))
    if len(long):
        if long_ids is None:
            mixed = (codes[long] * MULTIPLIERS[0] ^ np.take(loads, ends[long] - 8) * MULTIPLIERS[1]
                     ^ size[long].astype(np.uint64) * MULTIPLIERS[2])
        else:
            data = buf[1:].tobytes()
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
        (codes, words per text), codes in text order then word order; a text
        without words counts one, the code of its `signature`.
    """
    if not len(texts):
        return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
    long_ids: dict[bytes, int] | None = {} if exact else None
    chars = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
    # Block k holds the texts that end within its share of characters (at least one text each).
    cuts = np.unique(np.searchsorted(chars, np.arange(1, int(chars[-1]) // _BLOCK_CHARS + 1) * _BLOCK_CHARS,
                                     side="right"))
    bounds = [0] + [int(c) for c in cuts if 0 < c < len(texts)] + [len(texts)]
    sizes = np.diff(chars, prepend=0)
    # The blocks write into one buffer, sized for words of three characters and a separator and
    # doubled when a block does not fit: joining the blocks' codes afterwards would copy every code
    # once more, a fresh 8 bytes per word (tens of MB for 10^5 texts).
    out = np.empty(int(chars[-1]) // 4 + len(texts) + 1, dtype=np.uint64)
    filled, block_lens = 0, []
    for a, b in zip(bounds[:-1], bounds[1:]):
        block, n_words = _block_codes(texts[a:b], sizes[a:b], long_ids)
        if filled + len(block) > len(out):
            grown = np.empty(max(2 * len(out), filled + len(block)), dtype=np.uint64)
            grown[:filled] = out[:filled]
            out = grown
        out[filled:filled + len(block)] = block
        filled += len(block)
        block_lens.append(n_words)
    codes, lens = out[:filled], np.concatenate(block_lens).astype(np.int64)
    empty = np.flatnonzero(lens == 0)
    if len(empty):
        # The marked normalised text: never a word (words hold no NUL), so its code is a long one.
        keys = [signature(texts[k])[0].encode("utf-8", "surrogatepass") for k in empty.tolist()]
        if long_ids is None:
            marks = [int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") for key in keys]
        else:
            marks = [long_ids.setdefault(key, len(long_ids)) for key in keys]
        at = np.cumsum(lens)[empty]
        codes = np.insert(codes, at, np.array(marks, dtype=np.uint64) | _LONG_FLAG)
        lens[empty] = 1
    return codes, lens
