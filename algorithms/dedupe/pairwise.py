"""The reference dedupe: every candidate against every kept item, O(m^2 L)."""

from __future__ import annotations

from collections.abc import Sequence

from ..items import Item
from .rule import DedupeMethod, DedupeResult, dedupe_order, jaccard, shingles
from .tokenise import words

__all__ = ["dedupe_pairwise", "Pairwise"]


def dedupe_pairwise(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
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


class Pairwise(DedupeMethod):
    """The definition: every candidate against every kept item (O(m^2 L)); the reference the others match."""

    name = "pairwise"

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        return dedupe_pairwise(candidates, pinned, threshold)
