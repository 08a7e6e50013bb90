"""Near-copy dedupe: the `jaccard` rule plus word-bigram containment, for retrieved text.

The `jaccard` rule (equal words, or word-trigram Jaccard >= `near_dup`)
misses the near-copies retrieval lists are full of: a
chunk with a few words dropped or swapped (trigram Jaccard about 0.6) and a
cut (the first part of a paragraph: Jaccard well under 0.8, though every
shingle of the cut is in the paragraph). This rule keeps seed 000's visiting
order (score descending, ties by id) and partner rule and adds one test on
word bigrams, which a dropped word breaks in two places rather than three.

With t = `near_dup`, b = `BIGRAM_SHARE` * t, B(x) the word-bigram set and T(x)
the word-trigram set of a text's signature (`tokenise.signature`; a text
shorter than n words is one n-gram, as in `rule.shingles`), a candidate y meets
an anchor x (a pinned item or a kept candidate) in one of three ways:

* **seed**: equal signatures, or ``jaccard(T(x), T(y)) >= t`` (the `jaccard` rule);
* **inside**: ``|B(y)| <= |B(x)|`` and ``|B(x) & B(y)| / |B(y)| >= b``: y is
  (nearly) a part of x;
* **contains**: ``|B(x)| < |B(y)|`` and ``|B(x) & B(y)| / |B(x)| >= b``: x is
  (nearly) a part of y.

Which copy is kept. `NearCopy` ("nearcopy") drops y when it meets any anchor
(partner: the first, in anchor order), except that a candidate containing a
*pinned* item (a passage quoting the question) is kept, since it says more
than the pinned text. So of two copies the retriever's higher-ranked one is
kept, which is the container when the container ranks higher. The variant
`NearCopyContainer` ("nearcopy_container") instead keeps y when it only
*contains* kept candidates and drops those in its favour (their own dropped
copies are re-pointed to y, so partners always name a kept or pinned item):
the complete paragraph rather than the cut that scored higher. It costs more
tokens at a lower score; on the tuning corpora it lowered answer recall
(docs/dedupe-rules.md has the figures), so it is not the recommended rule.
Every drop by *seed* is one seed 000 makes, and when no pair meets by
*inside* or *contains* the answer is exactly seed 000's.

The join: containment >= b of the smaller set needs its first
``s - ceil(b * s) + 1`` n-grams in a fixed rarity order (its prefix) to meet
the larger set, and Jaccard >= t implies containment >= t. So each anchor
files its whole trigram and bigram sets and their prefixes; a candidate looks
up its prefixes among the anchors' whole sets and its whole sets among their
prefixes, and only anchors found so are verified, with the same integers and
divisions as `pairwise_nearcopy`, the definition it is tested against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from ..items import Item
from .filter import prefix_lengths
from .rule import (
    DedupeMethod,
    DedupeResult,
    absorb_all,
    dedupe_order,
    jaccard,
    shingles,
)
from .tokenise import signature

__all__ = ["NearCopy", "NearCopyContainer", "dedupe_nearcopy", "pairwise_nearcopy", "meets", "BIGRAM_SHARE",
           "PAIRWISE_BELOW"]

SEED, INSIDE, CONTAINS = "seed", "inside", "contains"
# Below this many texts every live anchor is verified (C-level set operations) rather than found
# through the index, whose filing costs more than it saves on a retrieval list of 20-40 (measured:
# 1.8 ms against 6 ms CPU per NQ-Open list of 20). Both give the same answer.
PAIRWISE_BELOW = 128
# The bigram test's threshold relative to near_dup: 0.7 at 0.8. Chosen on the tuning parts only
# (docs/dedupe-rules.md): planted edits of short chunks keep 0.72-0.8 of their bigrams.
BIGRAM_SHARE = 0.875


def meets(y: tuple[tuple, frozenset, frozenset], x: tuple[tuple, frozenset, frozenset],
          threshold: float) -> str | None:
    """How candidate y meets anchor x: `SEED`, `INSIDE`, `CONTAINS` or None (see the module doc).

    Args:
        y: (signature, trigram set, bigram set) of the candidate.
        x: The same of the anchor.
        threshold: t in [0, 1] (the bigram tests use ``BIGRAM_SHARE * t``).
    """
    if y[0] == x[0] or jaccard(y[1], x[1]) >= threshold:
        return SEED
    by, bx = y[2], x[2]
    inter = len(by & bx)
    share = BIGRAM_SHARE * threshold
    if len(by) <= len(bx):
        return INSIDE if inter / len(by) >= share else None
    return CONTAINS if inter / len(bx) >= share else None


def _grams(text: str) -> tuple[tuple, frozenset, frozenset]:
    sig = signature(text)
    return sig, shingles(sig, 3), shingles(sig, 2)


def _resolve(items: list[Item], n_pinned: int, threshold: float, found, prefer_container: bool) -> dict[str, str]:
    """The rule's loop over `items` (pinned first, then candidates in visiting order).

    `found(pos)` gives the anchor positions worth verifying for text `pos` (a
    superset of the live anchors that meet it); ``found.add`` and
    ``found.remove`` are told as anchors come and go, and ``found.grams`` holds
    each text's (signature, trigrams, bigrams).
    """
    grams = found.grams
    alive: set[int] = set(range(n_pinned))
    order: dict[int, int] = {p: p for p in range(n_pinned)}  # anchor position -> anchor rank
    for p in range(n_pinned):
        found.add(p)
    dropped: dict[str, str] = {}
    by_partner: dict[str, list[str]] = {}
    for pos in range(n_pinned, len(items)):
        hits = sorted((a for a in found(pos) if a in alive), key=order.__getitem__)
        absorbed, partner = [], None
        for a in hits:
            how = meets(grams[pos], grams[a], threshold)
            if how is None or (how == CONTAINS and a < n_pinned):
                continue
            if how == CONTAINS and prefer_container:
                absorbed.append(a)
                continue
            partner = a
            break
        if partner is not None:
            dropped[items[pos].id] = items[partner].id
            by_partner.setdefault(items[partner].id, []).append(items[pos].id)
            continue
        new_id = items[pos].id
        for a in absorbed:
            alive.discard(a)
            found.remove(a)
            old = items[a].id
            moved = by_partner.pop(old, []) + [old]
            for d in moved:
                dropped[d] = new_id
            by_partner.setdefault(new_id, []).extend(moved)
        alive.add(pos)
        order[pos] = len(order)
        found.add(pos)
    return dropped


class _Index:
    """Anchors' whole n-gram sets and prefixes, filed by n-gram id; `__call__` finds the anchors worth verifying."""

    def __init__(self, items: Sequence[Item], threshold: float) -> None:
        self.grams = [_grams(it.text) for it in items]
        ids: dict[tuple, int] = {}
        sets = []
        for g in self.grams:
            sets.append(tuple([ids.setdefault(s, len(ids)) for s in sorted(grams)] for grams in (g[1], g[2])))
        df = Counter(k for tri, bi in sets for k in (*tri, *bi))
        rare = lambda k: (df[k], k)
        self.full, self.prefix = [], []
        for tri, bi in sets:
            k_tri = int(prefix_lengths(np.array([len(tri)]), threshold)[0])
            k_bi = int(prefix_lengths(np.array([len(bi)]), BIGRAM_SHARE * threshold)[0])
            self.full.append((tri, bi))
            self.prefix.append((sorted(tri, key=rare)[:k_tri], sorted(bi, key=rare)[:k_bi]))
        self.sig_of: dict[tuple, list[int]] = {}
        # Per n-gram id: anchors holding it (whole set) and anchors with it in a prefix.
        self.by_full: dict[int, set[int]] = {}
        self.by_prefix: dict[int, set[int]] = {}

    def _file(self, pos: int, add: bool) -> None:
        for table, lists in ((self.by_full, self.full[pos]), (self.by_prefix, self.prefix[pos])):
            for keys in lists:
                for k in keys:
                    (table.setdefault(k, set()).add if add else table[k].discard)(pos)
        sig = self.grams[pos][0]
        if add:
            self.sig_of.setdefault(sig, []).append(pos)
        else:
            self.sig_of[sig].remove(pos)

    def add(self, pos: int) -> None:
        self._file(pos, True)

    def remove(self, pos: int) -> None:
        self._file(pos, False)

    def __call__(self, pos: int) -> set[int]:
        out = set(self.sig_of.get(self.grams[pos][0], ()))
        for table, lists in ((self.by_full, self.prefix[pos]), (self.by_prefix, self.full[pos])):
            for keys in lists:
                for k in keys:
                    hit = table.get(k)
                    if hit:
                        out |= hit
        return out


class _All:
    """Every live anchor is worth verifying: the definition, O(m^2 L)."""

    def __init__(self, items: Sequence[Item]) -> None:
        self.grams = [_grams(it.text) for it in items]
        self.live: set[int] = set()

    def add(self, pos: int) -> None:
        self.live.add(pos)

    def remove(self, pos: int) -> None:
        self.live.discard(pos)

    def __call__(self, pos: int) -> set[int]:
        return set(self.live)


def _dedupe(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float, indexed: bool,
            prefer_container: bool) -> DedupeResult:
    visit = dedupe_order(candidates)
    if threshold <= 0.0 or not visit:  # every pair meets by seed at t = 0
        return absorb_all(visit, list(pinned))
    items = list(pinned) + visit
    found = _Index(items, threshold) if indexed else _All(items)
    dropped = _resolve(items, len(pinned), threshold, found, prefer_container)
    return [it for it in visit if it.id not in dropped], dropped


def pairwise_nearcopy(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float,
                      prefer_container: bool = False) -> DedupeResult:
    """The definition: every candidate verified against every live anchor; arguments as `dedupe_nearcopy`."""
    return _dedupe(candidates, pinned, threshold, False, prefer_container)


def dedupe_nearcopy(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float,
                    prefer_container: bool = False) -> DedupeResult:
    """Near-copy dedupe (through the prefix index from `PAIRWISE_BELOW` texts on); as `pairwise_nearcopy`.

    Args:
        candidates: Non-pinned items.
        pinned: Pinned items (anchors that are never dropped).
        threshold: t in [0, 1].
        prefer_container: The `NearCopyContainer` rule (keep a later container) instead of `NearCopy`'s.

    Returns:
        (kept candidates in visiting order, dropped id -> id of the kept or pinned item it gave way to).
    """
    return _dedupe(candidates, pinned, threshold, len(candidates) + len(pinned) >= PAIRWISE_BELOW, prefer_container)


class NearCopy(DedupeMethod):
    """The `jaccard` rule plus word-bigram containment >= 0.875 * near_dup; the higher-ranked copy is kept.

    (`jaccard`: equal words, or word-trigram Jaccard >= near_dup, with a kept or pinned item.)
    """

    name = "nearcopy"
    prefer_container: ClassVar[bool] = False

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        return dedupe_nearcopy(candidates, pinned, threshold, self.prefer_container)


class NearCopyContainer(NearCopy):
    """As nearcopy, but a lower-ranked copy that contains kept ones replaces them (the whole over the part)."""

    name = "nearcopy_container"
    prefer_container = True
    # The copy kept is the container even when it ranks lower, so a part is dropped onto a later item.
    expected_failed_checks = {"check_dedupe_partners_are_anchors":
                              "a dropped part's partner is the lower-ranked container that replaced it"}
