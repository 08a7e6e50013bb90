"""The reference dedupes: every candidate against every kept item, O(m^2 L).

`dedupe_pairwise` defines "jaccard" (equal normalised words, or word-trigram Jaccard
>= the threshold with a pinned or higher-scored kept item); `pairwise_containment`
and `pairwise_semantic` are the definitions of the containment and semantic
methods. The fast methods must return exactly what these return.
"""

from __future__ import annotations

from collections.abc import Sequence

from collections.abc import Callable

from ..items import Item
from ..vectors import cosine, embedding_matrix, normalised_rows
from .rule import DedupeMethod, DedupeResult, containment, dedupe_order, jaccard, shingles
from .tokenise import signature

__all__ = ["dedupe_pairwise", "pairwise_containment", "pairwise_semantic", "Pairwise"]


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
        w = signature(p.text)
        anchors.append((p.id, w, shingles(w)))
    kept: list[Item] = []
    dropped: dict[str, str] = {}
    for item in dedupe_order(candidates):
        w = signature(item.text)
        sh = shingles(w)
        match = next((aid for aid, aw, ash in anchors if aw == w or jaccard(sh, ash) >= threshold), None)
        if match is not None:
            dropped[item.id] = match
            continue
        kept.append(item)
        anchors.append((item.id, w, sh))
    return kept, dropped


def _pairwise_by(candidates: Sequence[Item], pinned: Sequence[Item], key: Callable[[Item], object],
                 matches: Callable[[object, object], bool]) -> DedupeResult:
    anchors = [(p.id, key(p)) for p in pinned]
    kept: list[Item] = []
    dropped: dict[str, str] = {}
    for item in dedupe_order(candidates):
        k = key(item)
        match = next((aid for aid, ak in anchors if matches(k, ak)), None)
        if match is not None:
            dropped[item.id] = match
            continue
        kept.append(item)
        anchors.append((item.id, k))
    return kept, dropped


def pairwise_containment(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
    """Reference containment dedupe: equal signatures or `containment` of the shingle sets >= threshold."""
    def key(it: Item):
        sig = signature(it.text)
        return sig, shingles(sig)

    return _pairwise_by(candidates, pinned, key,
                        lambda a, b: a[0] == b[0] or containment(a[1], b[1]) >= threshold)


def pairwise_semantic(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
    """Reference semantic dedupe: `cosine` of the unit embeddings >= threshold."""
    # The same row order as the fast method, so both divide the same rows by the same norms.
    items = list(pinned) + dedupe_order(candidates)
    units = normalised_rows(embedding_matrix(items, "dedupe 'semantic'"))
    row = {it.id: units[k] for k, it in enumerate(items)}
    return _pairwise_by(candidates, pinned, lambda it: row[it.id], lambda a, b: cosine(a, b) >= threshold)


class Pairwise(DedupeMethod):
    """The definition: every candidate against every kept item (O(m^2 L)); the reference the others match."""

    name = "pairwise"

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        return dedupe_pairwise(candidates, pinned, threshold)
