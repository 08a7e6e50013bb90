"""Chunking measured in real tokens: fixed token windows and a recursive splitter.

`token_windows` cuts the token sequence of a text into windows of `size` tokens
that overlap by exactly `overlap` tokens; its spans are token positions.

`recursive_chunks` keeps natural boundaries: it splits at paragraphs, then
lines, sentences, words and finally token boundaries until every piece fits,
then merges neighbouring pieces while the merged text still fits. Its chunks
are exact substrings of the input (character spans), every chunk's own token
count (``count_tokens(chunk.text)``) is at most `size`, together they cover
every character, and consecutive chunks share at most `overlap` tokens of text.
Counts are measured on the chunk text itself, because BPE counts are not
additive: the tokens of a substring are not a slice of the text's tokens.
"""

from __future__ import annotations

import bisect
import numbers
import re
from dataclasses import dataclass
from typing import Any

from .tokens import DEFAULT_ENCODING, count_tokens, decode_bytes, encode, get_encoding

__all__ = ["Chunk", "token_windows", "recursive_chunks", "SEPARATORS"]

# Split points, coarsest first; each split keeps the separator at the end of the left piece.
SEPARATORS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("paragraph", re.compile(r"\n[ \t]*\n\s*")),
    ("line", re.compile(r"\n")),
    ("sentence", re.compile(r"(?<=[.!?])[\"')\]]*\s+")),
    ("word", re.compile(r"\s+")),
)
MIN_RECURSIVE_SIZE = 4  # one character is at most 4 UTF-8 bytes, so at most 4 tokens


@dataclass(frozen=True)
class Chunk:
    """One chunk.

    Attributes:
        text: The chunk text.
        start: Start position (token index for `token_windows`, character index for `recursive_chunks`).
        end: End position (exclusive), same unit as `start`.
        tokens: Token count of the chunk (the window length, or the measured count of `text`).
    """

    text: str
    start: int
    end: int
    tokens: int


def _check_sizes(size: Any, overlap: Any, min_size: int = 1) -> tuple[int, int]:
    for name, value in (("size", size), ("overlap", overlap)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if size < min_size:
        raise ValueError(f"size must be >= {min_size} tokens, got {size!r}")
    if not 0 <= overlap < size:
        raise ValueError(f"overlap must be in [0, size) = [0, {size}), got {overlap!r}")
    return int(size), int(overlap)


def token_windows(text: str, size: int, overlap: int = 0, encoding: str = DEFAULT_ENCODING) -> list[Chunk]:
    """Fixed windows of `size` tokens, each starting `size - overlap` tokens after the previous one.

    The last window ends at the last token (it may be shorter). A window boundary
    can fall inside a multi-byte character; its text then shows U+FFFD there.

    Args:
        text: The text.
        size: Tokens per window (>= 1).
        overlap: Tokens shared by consecutive windows, in [0, size).
        encoding: Encoding or model name.

    Returns:
        Chunks with token spans [start, end); empty for an empty text.

    Raises:
        TypeError: `text`, `size` or `overlap` of the wrong type.
        ValueError: `size` < 1 or `overlap` outside [0, size).
    """
    size, overlap = _check_sizes(size, overlap)
    ids = encode(text, encoding)
    step = size - overlap
    out: list[Chunk] = []
    start = 0
    while start < len(ids):
        end = min(start + size, len(ids))
        piece = decode_bytes(ids[start:end], encoding).decode("utf-8", errors="replace")
        out.append(Chunk(piece, start, end, end - start))
        if end == len(ids):
            break
        start += step
    return out


def _split(text: str, a: int, b: int, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    """Cut text[a:b] after every separator match (separators stay with the left piece)."""
    cuts = [m.end() for m in pattern.finditer(text, a, b) if a < m.end() < b]
    bounds = [a, *cuts, b]
    return [(x, y) for x, y in zip(bounds, bounds[1:]) if y > x]


def _token_cuts(text: str, a: int, b: int, encoding: str) -> list[int]:
    """Character offsets (absolute) of the token boundaries inside text[a:b]."""
    _, offsets = get_encoding(encoding).decode_with_offsets(encode(text[a:b], encoding))
    return sorted({a + o for o in offsets if 0 < o < b - a})


def _split_by_tokens(text: str, a: int, b: int, size: int, encoding: str) -> list[tuple[int, int]]:
    """Cut text[a:b] at token boundaries into pieces of at most `size` measured tokens."""
    cuts = _token_cuts(text, a, b, encoding) + [b]
    out = []
    i = 0  # cuts[i:] are the candidate ends after the current start `a`
    while a < b:
        while cuts[i] <= a:
            i += 1
        # Bisect over the next few boundaries (a piece of `size` tokens spans about `size` of them);
        # counts are near-monotone, and every accepted end is measured, so a guess never overflows.
        window = cuts[i:i + 4 * size + 4]
        lo, hi = 0, len(window) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count_tokens(text[a:window[mid]], encoding) <= size:
                lo = mid
            else:
                hi = mid - 1
        end = window[lo]
        while count_tokens(text[a:end], encoding) > size and end - a > 1:
            end -= 1  # even one token's text re-encodes too long: step back by characters
        out.append((a, end))
        a = end
    return out


def _pieces(text: str, a: int, b: int, size: int, level: int, encoding: str) -> list[tuple[int, int]]:
    """Spans covering text[a:b], each of at most `size` measured tokens, split as coarsely as possible."""
    if count_tokens(text[a:b], encoding) <= size:
        return [(a, b)]
    if level == len(SEPARATORS):
        return _split_by_tokens(text, a, b, size, encoding)
    parts = _split(text, a, b, SEPARATORS[level][1])
    if len(parts) == 1:
        return _pieces(text, a, b, size, level + 1, encoding)
    out: list[tuple[int, int]] = []
    for x, y in parts:
        out.extend(_pieces(text, x, y, size, level + 1, encoding))
    return out


def recursive_chunks(text: str, size: int, overlap: int = 0, encoding: str = DEFAULT_ENCODING) -> list[Chunk]:
    """Split at the coarsest natural boundary that makes pieces fit, then merge neighbours up to `size`.

    Args:
        text: The text.
        size: Maximum tokens per chunk (>= 4).
        overlap: Maximum tokens of text a chunk repeats from the end of the previous
            one (whole pieces are repeated, as many as fit), in [0, size).
        encoding: Encoding or model name.

    Returns:
        Chunks with character spans [start, end) into `text`, in order; empty for an empty text.

    Raises:
        TypeError: `text`, `size` or `overlap` of the wrong type.
        ValueError: `size` < 4 or `overlap` outside [0, size).
    """
    size, overlap = _check_sizes(size, overlap, MIN_RECURSIVE_SIZE)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text:
        return []
    pieces = _pieces(text, 0, len(text), size, 0, encoding)
    starts = [p[0] for p in pieces]
    out: list[Chunk] = []
    first = 0  # index of the first new (not repeated) piece of the next chunk
    while first < len(pieces):
        lead = _overlap_start(text, pieces, starts, out[-1].start, first, size, overlap, encoding) \
            if out and overlap else first
        end = _fit_end(text, pieces, pieces[lead][0], first + 1, size, encoding)
        a, b = pieces[lead][0], pieces[end - 1][1]
        out.append(Chunk(text[a:b], a, b, count_tokens(text[a:b], encoding)))
        first = end
    return out


def _overlap_start(text: str, pieces: list[tuple[int, int]], starts: list[int], prev_start: int, first: int,
                   size: int, overlap: int, encoding: str) -> int:
    """Index of the first repeated piece: the longest run of trailing pieces of the previous chunk
    whose text fits in `overlap` and leaves room for the first new piece (`first` when none does)."""
    prev_first = bisect.bisect_left(starts, prev_start)
    k = first
    while k > prev_first and count_tokens(text[pieces[k - 1][0]:pieces[first][0]], encoding) <= overlap:
        k -= 1
    # Both bounds are re-measured: BPE counts of nested substrings are not strictly monotone.
    while k < first and (count_tokens(text[pieces[k][0]:pieces[first][0]], encoding) > overlap
                         or count_tokens(text[pieces[k][0]:pieces[first][1]], encoding) > size):
        k += 1
    return k


def _fit_end(text: str, pieces: list[tuple[int, int]], start: int, lo: int, size: int, encoding: str) -> int:
    """A large `end` such that text[start:pieces[end - 1][1]] fits in `size` (`lo` is known to fit).

    Galloping then bisection: O(log k) measurements for a chunk of k pieces
    instead of one per piece.
    """
    def fits(end: int) -> bool:
        return count_tokens(text[start:pieces[end - 1][1]], encoding) <= size

    n, step = len(pieces), 1
    while lo + step <= n and fits(lo + step):
        lo += step
        step *= 2
    hi = min(lo + step, n + 1)  # first end known not to fit, or past the last piece
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo
