"""Near-duplicate removal with seed 000's exact semantics, and the registry of methods.

Words are the ``[a-z0-9]+`` runs of the lower-cased text. Candidates are visited
in descending score (ties by id); one is dropped when its word list equals, or
its word-trigram Jaccard similarity is >= the threshold with, a pinned item or
an already kept candidate. Texts under three words form a single shingle: the
whole word tuple.

The `dropped` mapping names, for each dropped candidate, the first item it
matched in visiting order (pinned items in input order, then kept candidates in
the order they were kept), so every exact implementation reports the same partner.

Methods: "pairwise" is the reference definition (all pairs, O(m^2 L));
"exact" (the default of `pack`) is the indexed join of `dedupe_index`, which
returns exactly the same kept list and partners; "minhash" (`minhash`) is an
approximate MinHash + LSH join for very large candidate sets.
"""

from __future__ import annotations

from .dedupe_core import Deduper, dedupe_order, dedupe_pairwise, jaccard, shingles, words
from .dedupe_index import dedupe_indexed
from .minhash import dedupe_minhash

__all__ = ["words", "shingles", "jaccard", "dedupe_pairwise", "dedupe_indexed", "dedupe_minhash",
           "dedupe_order", "DEDUPE_METHODS"]

DEDUPE_METHODS: dict[str, Deduper] = {
    "exact": dedupe_indexed,
    "pairwise": dedupe_pairwise,
    "minhash": dedupe_minhash,
}
