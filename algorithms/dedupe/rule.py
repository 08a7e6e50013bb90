"""The "jaccard" dedupe rule (seed 000's semantics on ASCII text) and the base class of every dedupe method.

Candidates are visited in descending score (ties by id); one is dropped when
its word list equals, or its word-trigram Jaccard similarity is >= the
threshold with, a pinned item or an already kept candidate. Texts under three
words form a single shingle: the whole word tuple. Words (Unicode-aware, equal
to seed 000's ``[a-z0-9]+`` on ASCII) and the signature of a text without
words are defined in `tokenise`.

The `dropped` mapping names, for each dropped candidate, the first item it
matched in visiting order (pinned items in input order, then kept candidates in
the order they were kept), so every implementation reports the same partner.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, ClassVar

from ..component import Component
from ..items import Item

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DedupeMethod", "shingles", "jaccard", "containment", "absorb_all", "dedupe_order", "visiting_order",
           "DedupeResult"]

DedupeResult = tuple[list[Item], dict[str, str]]


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


def containment(a: frozenset, b: frozenset) -> float:
    """Shingle containment |A & B| / min(|A|, |B|): how much of the smaller set is inside the larger.

    Shingle sets are never empty (a text without words has its signature as its one shingle).
    """
    return len(a & b) / min(len(a), len(b))


def dedupe_order(candidates: Sequence[Item]) -> list[Item]:
    """Candidates in the order dedupe visits them: score descending, ties by id."""
    # Two stable C-level sorts (ids, then scores descending) instead of a key tuple per item.
    return sorted(sorted(candidates, key=attrgetter("id")), key=attrgetter("score"), reverse=True)


def visiting_order(candidates: Sequence[Item], scores: np.ndarray | None = None) -> np.ndarray:
    """The positions in `candidates` in the order dedupe visits them (that of `dedupe_order`), as an int64 array.

    For callers that read the candidates in input order (where they lie in
    memory) and only need to know where each one is visited: the scores are
    sorted as floats, and only runs of equal scores are put in id order (equal
    ids in input order).

    Args:
        candidates: The candidates (only those in runs of equal scores are read when `scores` is given).
        scores: Their scores as float64, if already read.
    """
    import numpy as np  # lazy: the rule itself needs no numpy

    from ..ties import equal_runs, id_ranks

    if scores is None:
        scores = np.fromiter(map(attrgetter("score"), candidates), dtype=np.float64, count=len(candidates))
    # Any sort will do (runs of equal scores are put in id order below): the default is the fastest.
    order = np.argsort(-scores)
    runs = equal_runs(scores[order])
    if runs is None:
        return order
    in_run, run = runs
    pos = order[in_run]
    # By run, then id: id order within each run of equal scores. The id ranks are taken in input order,
    # so equal ids stay in input order as `dedupe_order`'s stable sorts leave them (and the order of any
    # subset, listed in input order, is this order restricted to it).
    by_pos = np.argsort(pos)
    ranks = np.empty(len(pos), dtype=np.int64)
    ranks[by_pos] = id_ranks(candidates, pos[by_pos])
    order[in_run] = pos[np.lexsort((ranks, run))]
    return order


def absorb_all(visit: Sequence[Item], pinned: Sequence[Item]) -> DedupeResult:
    """The answer when every pair matches (threshold 0): the first anchor absorbs every candidate."""
    if not visit:
        return [], {}
    head = pinned[0].id if pinned else visit[0].id
    kept = [] if pinned else [visit[0]]
    rest = visit if pinned else visit[1:]
    return kept, {it.id: head for it in rest}


class DedupeMethod(Component):
    """Base class: declare `name` and `PARAMS`, implement `dedupe`.

    Args:
        **params: Values for the names declared in `PARAMS`.
    """

    kind: ClassVar[str] = "dedupe method"

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        """Drop the candidates that duplicate a pinned item or a higher-ranked kept candidate.

        Args:
            candidates: Non-pinned items.
            pinned: Pinned items (anchors that are never dropped).
            threshold: Similarity threshold in [0, 1].

        Returns:
            (kept candidates in visiting order, dropped id -> id of the item it matched).
        """
        raise NotImplementedError

    def kept_flags(self, candidates: Sequence[Item], pinned: Sequence[Item],
                   threshold: float) -> tuple[list[bool], dict[str, str]]:
        """What `pack` needs of `dedupe`: per candidate, in input order, whether it is kept; and the dropped map.

        The default reads the kept ids off `dedupe`; a method that knows where
        its kept candidates are may answer without listing them in visiting
        order (with 10^5 candidates, reading each kept item in that order costs
        a cache miss or more per item).

        Args:
            candidates: Non-pinned items.
            pinned: Pinned items (anchors that are never dropped).
            threshold: Similarity threshold in [0, 1].

        Returns:
            (a bool per candidate, True if kept, as a list or a numpy bool array; dropped id -> id of the
            item it matched), as `dedupe` decides.
        """
        kept, dropped = self.dedupe(candidates, pinned, threshold)
        kept_ids = set(map(attrgetter("id"), kept))
        return list(map(kept_ids.__contains__, map(attrgetter("id"), candidates))), dropped
