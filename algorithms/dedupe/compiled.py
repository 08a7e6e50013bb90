"""The "jaccard" join on the compiled kernels (`kernels`): the bytes of the texts in, kept flags and partners out.

The texts are laid out once in one byte buffer (ASCII texts as they are; a
text with any other character as its normalised words, `tokenise._ascii_form`,
so both follow the one word rule), each followed by a NUL. A text without words
gets one word of its own, its `signature` (equal only for equal normalised
texts). Then the counting filter sets aside the texts that provably match
nothing, and the join runs on the rest in the rule's order.
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from ..items import Item
from .filter import PREFIX_SLACK
from .rule import visiting_order
from .tokenise import _ascii_form, signature

__all__ = ["decide_compiled", "text_word_ids"]

_MAX_COUNT_BITS = 24  # the counting filter's table: at most 16 MiB of byte counters


def text_word_ids(texts: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """(dense word id per word, words per text (>= 1), vocabulary size); equal ids if and only if equal words."""
    from . import kernels

    if all(map(str.isascii, texts)):
        joined = "\x00".join([*texts, ""]).encode("ascii")  # ends in a NUL too
        nbytes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    else:
        # Each part encoded alone: joining them as str would widen every character of the batch.
        parts = [(t if t.isascii() else _ascii_form(t)).encode("utf-8", "surrogatepass") for t in texts]
        joined = b"\x00".join([*parts, b""])
        nbytes = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    buf = np.frombuffer(joined, dtype=np.uint8)
    starts = np.cumsum(nbytes + 1) - nbytes - 1
    ids, lens, vocab = kernels.word_ids(buf, starts, starts + nbytes)
    empty = np.flatnonzero(lens == 0)
    if len(empty):
        # One word per text without words: its marked normalised text, never equal to a real word.
        marks: dict[tuple[str, ...], int] = {}
        extra = [vocab + marks.setdefault(signature(texts[k]), len(marks)) for k in empty.tolist()]
        ids = np.insert(ids, np.cumsum(lens)[empty], np.array(extra, dtype=np.int32))
        lens[empty] = 1
        vocab += len(marks)
    return ids, lens, vocab


def decide_compiled(candidates: list[Item], pinned: list[Item], threshold: float
                    ) -> tuple[np.ndarray, dict[str, str]] | None:
    """(kept flag per candidate in input order, dropped id -> partner id), or None past the packed vocabulary.

    Args:
        candidates: Non-pinned items.
        pinned: Pinned items (anchors, never dropped).
        threshold: Jaccard threshold in (0, 1].
    """
    from . import kernels

    inputs = pinned + candidates if pinned else candidates
    ids, lens, vocab = text_word_ids(list(map(attrgetter("text"), inputs)))
    if vocab > kernels.MAX_PACKED_VOCAB:
        return None
    positions = int(np.maximum(lens - 2, 1).sum())
    bits = min(_MAX_COUNT_BITS, max(10, positions.bit_length()))  # 1-2 slots per counted shingle
    once = kernels.unique_counts(ids, lens, bits)
    occurrences = np.maximum(lens - 2, 1)
    need = np.maximum(1.0, np.ceil(threshold * occurrences * (1.0 - PREFIX_SLACK)))
    mask = once < occurrences - np.minimum(need, occurrences).astype(np.int64) + 1
    n_pinned = len(pinned)
    active_c = np.flatnonzero(mask[n_pinned:])
    visit = active_c[visiting_order([candidates[k] for k in active_c.tolist()])]
    active_p = np.flatnonzero(mask[:n_pinned])
    src = np.concatenate([active_p, visit + n_pinned])
    act_lens = lens[src]
    first_word = np.cumsum(lens)[src] - act_lens
    at = np.repeat(first_word - (np.cumsum(act_lens) - act_lens), act_lens) + np.arange(int(act_lens.sum()))
    partner = kernels.join(ids[at], act_lens, len(active_p), float(threshold), PREFIX_SLACK)
    dropped_at = np.flatnonzero(partner >= 0)
    flags = np.ones(len(candidates), dtype=bool)
    flags[src[dropped_at] - n_pinned] = False
    ids_of = [inputs[k].id for k in src[dropped_at].tolist()]
    partners = [inputs[k].id for k in src[partner[dropped_at]].tolist()]
    return flags, dict(zip(ids_of, partners))
