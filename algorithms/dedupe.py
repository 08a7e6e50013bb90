"""The registry of near-duplicate removal methods (the rule itself: see `dedupe_core`).

Methods: "pairwise" is the reference definition (all pairs, O(m^2 L));
"exact" (the default of `pack`) is the indexed join of `dedupe_index`, which
returns exactly the same kept list and `dropped` partners; "minhash"
(`minhash`) is an approximate MinHash + LSH join for very large candidate sets.
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
