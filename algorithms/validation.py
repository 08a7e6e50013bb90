"""Checks of `pack`'s arguments that need the whole input: ids, budget, totals, the dedupe threshold.

Each names the broken item or bound; `Item` itself checks its own fields when built.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterable, Mapping
from functools import partial
from operator import attrgetter, is_not
from typing import Any

from .items import Item

__all__ = ["item_list", "validate_items", "check_embedding_dims", "validate_budget", "check_totals", "check_near_dup", "check_pinned_overflow",
           "PINNED_OVERFLOW", "MAX_TOTAL_TOKENS", "MAX_TOTAL_SCORE"]

PINNED_OVERFLOW = ("raise", "clamp")
# Token totals above this overflow int64 sums in numpy and the OR-Tools solvers.
MAX_TOTAL_TOKENS = 2**62
# Score totals above this overflow float sums (bounds add a fraction of an item to a total).
MAX_TOTAL_SCORE = sys.float_info.max / 4


def item_list(items: Iterable[Item]) -> list[Item]:
    """`items` as a new list (its elements unchecked).

    Raises:
        TypeError: `items` is a str, bytes, a mapping or not iterable.
    """
    if type(items) is list:  # the usual case, without the two abstract-class checks below
        return list(items)
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise TypeError(f"items must be an iterable of Item, got {type(items).__name__}")
    return list(items)


def validate_items(items: Iterable[Item]) -> list[Item]:
    """Check that `items` is a list of `Item` with unique ids.

    Raises:
        TypeError: An element is not an `Item` (the message gives its position).
        ValueError: Two items share an id, or embeddings of different dimensions.
    """
    out = item_list(items)
    seen: set[str] = set()
    if set(map(type, out)) <= {Item}:
        # Plain items (the usual case): C-level passes; the loop below would only find a repeated id.
        if len(set(map(attrgetter("id"), out))) < len(out):
            twice = next(it.id for it in out if it.id in seen or seen.add(it.id))
            raise ValueError(f"item {twice!r}: id is repeated (ids must be unique)")
    else:
        for pos, it in enumerate(out):
            if not isinstance(it, Item):
                raise TypeError(f"items[{pos}] must be an Item, got {type(it).__name__}")
            if it.id in seen:
                raise ValueError(f"item {it.id!r}: id is repeated (ids must be unique)")
            seen.add(it.id)
    check_embedding_dims(out)
    return out


def check_embedding_dims(items: list[Item]) -> None:
    """Check that the embeddings that are set all have one dimension.

    Raises:
        ValueError: Naming an item whose embedding's dimension differs from the first one's.
    """
    # The embeddings that are set, found by a C-level filter: most items have none, and a Python
    # loop over 10^5 items costs more than the rest of this check.
    dims = set(map(len, filter(partial(is_not, None), map(attrgetter("embedding"), items))))
    if len(dims) > 1:
        embedded = [it for it in items if it.embedding is not None]
        first = embedded[0]
        other = next(it for it in embedded if len(it.embedding) != len(first.embedding))
        raise ValueError(f"item {other.id!r}: embedding has {len(other.embedding)} dimensions, but item "
                         f"{first.id!r} has {len(first.embedding)} (all embeddings must have one dimension)")


def validate_budget(budget: Any) -> int:
    """Check that `budget` is a non-negative int (bools rejected).

    Raises:
        TypeError: Not an int.
        ValueError: Negative.
    """
    if isinstance(budget, bool) or not isinstance(budget, numbers.Integral):
        raise TypeError(f"budget must be a non-negative int, got {type(budget).__name__} {budget!r}")
    if budget < 0:
        raise ValueError(f"budget must be a non-negative int, got {budget!r}")
    return int(budget)


def check_totals(items: list[Item]) -> tuple[int, float]:
    """Reject token and score totals that no numeric solver can add up without overflow.

    Returns:
        (the items' total tokens, their lowest score; 0.0 for no items), which `pack` reuses
        instead of passing over the items again.

    Raises:
        ValueError: Naming the largest item of the total that is too large.
    """
    # One read of each item's fields: reading an item's attribute is what costs at 10^5 items.
    scores = list(map(attrgetter("score"), items))
    tokens = sum(map(attrgetter("tokens"), items))
    if tokens > MAX_TOTAL_TOKENS:
        raise ValueError(f"items: total tokens {tokens} exceed 2**62 (the largest the solvers can add up); "
                         f"largest item {max(items, key=lambda it: it.tokens).id!r}")
    try:
        score = math.fsum(map(abs, scores))
    except OverflowError:
        score = math.inf
    if score > MAX_TOTAL_SCORE:
        raise ValueError(f"items: the absolute scores add up to more than {MAX_TOTAL_SCORE:.3g} (a quarter of the "
                         f"float range), so sums overflow; rescale the scores "
                         f"(largest: item {max(items, key=lambda it: abs(it.score)).id!r})")
    return tokens, min(scores, default=0.0)


def check_near_dup(near_dup: Any) -> float | None:
    """`near_dup` as a float in [0, 1], or None (dedupe off).

    Raises:
        TypeError: Not a real number.
        ValueError: Outside [0, 1].
    """
    if near_dup is None:
        return None
    if isinstance(near_dup, bool) or not isinstance(near_dup, numbers.Real) or not math.isfinite(near_dup):
        raise TypeError(f"near_dup must be a number in [0, 1] or None, got {near_dup!r}")
    if not 0.0 <= near_dup <= 1.0:
        raise ValueError(f"near_dup must be in [0, 1] (or None to turn dedupe off), got {near_dup!r}")
    return float(near_dup)


def check_pinned_overflow(pinned_overflow: Any) -> str:
    """`pinned_overflow` itself, when it is one of `PINNED_OVERFLOW`.

    Raises:
        ValueError: Any other value.
    """
    if pinned_overflow not in PINNED_OVERFLOW:
        raise ValueError(f"pinned_overflow must be one of {list(PINNED_OVERFLOW)}, got {pinned_overflow!r}")
    return pinned_overflow
