"""Truncation at token boundaries, and the `truncate` fill of `pack`.

`truncate_text` keeps the head, the tail, or both ends of a text (dropping the
middle, with a marker) so that the result measures at most `max_tokens` tokens
when encoded on its own. Cuts are made on the token sequence, then the kept
text is re-measured and cut one token shorter while it does not fit, because
re-encoding a slice can merge or split differently from the original tokens.
A cut inside a multi-byte character drops that partial character.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import MappingProxyType

from .fill import Fill
from .items import Item
from .params import Param, one_of
from .tokens import DEFAULT_ENCODING, check_encoding_param, count_tokens, decode_bytes, encode

__all__ = ["SIDES", "MIDDLE_MARKER", "truncate_text", "Truncate"]

SIDES = ("head", "tail", "middle")
MIDDLE_MARKER = "\n[...]\n"


def _text(ids: Sequence[int], encoding: str) -> str:
    return decode_bytes(ids, encoding).decode("utf-8", errors="ignore")


def truncate_text(text: str, max_tokens: int, side: str = "head", encoding: str = DEFAULT_ENCODING,
                  marker: str = MIDDLE_MARKER) -> tuple[str, int]:
    """Cut `text` to at most `max_tokens` tokens.

    Args:
        text: The text.
        max_tokens: Token limit (>= 0).
        side: "head" keeps the beginning, "tail" keeps the end, "middle" keeps
            both ends around `marker` (the marker's tokens count).
        encoding: Encoding or model name.
        marker: Text put where the middle was dropped.

    Returns:
        (kept text, its exact token count); the text unchanged when it fits,
        ("", 0) when nothing fits.

    Raises:
        TypeError: `text` or `max_tokens` of the wrong type.
        ValueError: Negative `max_tokens` or an unknown `side`.
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, numbers.Integral):
        raise TypeError(f"max_tokens must be an int, got {type(max_tokens).__name__} {max_tokens!r}")
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens!r}")
    if side not in SIDES:
        raise ValueError(f"side must be one of {list(SIDES)}, got {side!r}")
    ids = encode(text, encoding)
    if len(ids) <= max_tokens:
        return text, len(ids)
    if side == "middle":
        return _keep_ends(ids, max_tokens, encoding, marker)
    keep = max_tokens
    while keep > 0:
        cut = _text(ids[:keep] if side == "head" else ids[len(ids) - keep:], encoding)
        n = count_tokens(cut, encoding)
        if n <= max_tokens and cut:
            return cut, n
        keep -= max(1, n - max_tokens)
    return "", 0


def _keep_ends(ids: list[int], max_tokens: int, encoding: str, marker: str) -> tuple[str, int]:
    room = max_tokens - count_tokens(marker, encoding)
    if room < 2:  # the marker leaves no room for both ends: keep the head only
        return truncate_text(_text(ids, encoding), max_tokens, "head", encoding)
    head, tail = (room + 1) // 2, room // 2
    while head + tail > 0:
        cut = _text(ids[:head], encoding) + marker + (_text(ids[len(ids) - tail:], encoding) if tail else "")
        n = count_tokens(cut, encoding)
        if n <= max_tokens:
            return cut, n
        if head >= tail:  # shrink the longer end first so both ends survive as long as possible
            head -= 1
        else:
            tail -= 1
    return "", 0


class Truncate(Fill):
    """Fill the leftover budget with the best unchosen candidate, cut to fit.

    After selection, the highest-scored candidate that was not chosen (dedupe
    survivors only) is cut with `truncate_text` to the tokens still free and
    appended after the ordered chosen items; when it fits whole (a strategy
    that stopped early) it is appended uncut. The cut item keeps its id (so
    ground-truth groups and answer labels still apply; `Packing.truncated`
    names it), its `tokens` is the exact count of the cut text under
    `encoding`, and its score is scaled by the share of tokens kept.
    """

    name = "truncate"
    PARAMS = MappingProxyType({
        "truncate_side": Param("head", one_of(*SIDES), "which part of the cut item to keep: head, tail, or "
                                                      "both ends (middle dropped)"),
        "encoding": Param(DEFAULT_ENCODING, check_encoding_param, "tiktoken encoding or model name for the cut"),
    })

    def apply(self, chosen: Sequence[Item], unchosen: Sequence[Item], room_left: int) -> tuple[list[Item], str | None]:
        out = list(chosen)
        if room_left <= 0 or not unchosen:
            return out, None
        best = unchosen[0]
        if best.tokens <= room_left:  # fits whole (a strategy that stops early): nothing to cut
            return out + [best], None
        text, n = truncate_text(best.text, room_left, self.params["truncate_side"], self.params["encoding"])
        if n == 0:
            return out, None
        full = count_tokens(best.text, self.params["encoding"])
        score = best.score * min(1.0, n / full) if full else 0.0
        out.append(Item(best.id, text, score, n, pinned=False, source=best.source))
        return out, (best.id if text != best.text else None)
