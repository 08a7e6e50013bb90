"""Near-duplicate removal: the rule, its reference and its fast implementations, as components.

Methods (`DEDUPE_METHODS`, for ``pack(dedupe=...)``): "pairwise" is the
reference definition (all pairs, O(m^2 L)); "exact" (the default of `pack`) is
the indexed join of `exact`, which returns exactly the same kept list and
`dropped` partners; "minhash" is an approximate MinHash + LSH join for very
large candidate sets. Adding a method is one module with a `DedupeMethod`
subclass plus one entry in the list below.
"""

from __future__ import annotations

from ..component import Registry
from .exact import Exact, dedupe_indexed
from .minhash import MinHash, dedupe_minhash
from .pairwise import Pairwise, dedupe_pairwise
from .rule import DedupeMethod, DedupeResult, dedupe_order, jaccard, shingles
from .tokenise import words

__all__ = ["words", "shingles", "jaccard", "dedupe_pairwise", "dedupe_indexed", "dedupe_minhash",
           "dedupe_order", "DedupeMethod", "DedupeResult", "Exact", "Pairwise", "MinHash", "DEDUPE_METHODS"]

DEDUPE_METHODS: Registry[DedupeMethod] = Registry("dedupe method", [Exact, Pairwise, MinHash])
