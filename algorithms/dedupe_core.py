"""Near-duplicate removal: the definitions (seed 000's exact semantics) and the pairwise reference.

Words are the ``[a-z0-9]+`` runs of the lower-cased text. Candidates are visited
in descending score (ties by id); one is dropped when its word list equals, or
its word-trigram Jaccard similarity is >= the threshold with, a pinned item or
an already kept candidate. Texts under three words form a single shingle: the
whole word tuple.

The `dropped` mapping names, for each dropped candidate, the first item it
matched in visiting order (pinned items in input order, then kept candidates in
the order they were kept), so every implementation reports the same partner.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from operator import attrgetter

from .items import Item

__all__ = ["words", "shingles", "jaccard", "dedupe_pairwise", "dedupe_order", "Deduper"]

_WORD = re.compile(r"[a-z0-9]+")

Deduper = Callable[[Sequence[Item], Sequence[Item], float], tuple[list[Item], dict[str, str]]]


def words(text: str) -> tuple[str, ...]:
    """The normalised word tuple of `text`."""
    return tuple(_WORD.findall(text.lower()))


def shingles(ws: Sequence[str], n: int = 3) -> frozenset[tuple[str, ...]]:
    """Word n-gram set; a text shorter than `n` words is one shingle (its whole tuple)."""
    if len(ws) < n:
        return frozenset([tuple(ws)])
    return frozenset(tuple(ws[i:i + n]) for i in range(len(ws) - n + 1))


def jaccard(a: frozenset, b: frozenset) -> float:
    """Jaccard similarity; two empty sets count as identical."""
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def dedupe_order(candidates: Sequence[Item]) -> list[Item]:
    """Candidates in the order dedupe visits them: score descending, ties by id."""
    # Two stable C-level sorts (ids, then scores descending) instead of a key tuple per item.
    return sorted(sorted(candidates, key=attrgetter("id")), key=attrgetter("score"), reverse=True)


def dedupe_pairwise(candidates: Sequence[Item], pinned: Sequence[Item],
                    threshold: float) -> tuple[list[Item], dict[str, str]]:
    """Reference dedupe: compare every candidate with every kept item.

    O(m^2 L) for m candidates of L words; the definition the faster methods
    must reproduce.

    Args:
        candidates: Non-pinned items.
        pinned: Pinned items (anchors that are never dropped).
        threshold: Jaccard threshold in [0, 1].

    Returns:
        (kept candidates in visiting order, dropped id -> id of the item it matched).
    """
    anchors: list[tuple[str, tuple[str, ...], frozenset]] = []
    for p in pinned:
        w = words(p.text)
        anchors.append((p.id, w, shingles(w)))
    kept: list[Item] = []
    dropped: dict[str, str] = {}
    for item in dedupe_order(candidates):
        w = words(item.text)
        sh = shingles(w)
        match = next((aid for aid, aw, ash in anchors if aw == w or jaccard(sh, ash) >= threshold), None)
        if match is not None:
            dropped[item.id] = match
            continue
        kept.append(item)
        anchors.append((item.id, w, sh))
    return kept, dropped

