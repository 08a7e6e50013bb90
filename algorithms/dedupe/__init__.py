"""Near-duplicate removal: the rule, its reference and its fast implementations, as components.

Methods (`DEDUPE_METHODS`, for ``pack(dedupe=...)``): "pairwise" is the
reference definition (all pairs, O(m^2 L)); "jaccard" (the default of `pack`:
equal normalised words, or word-trigram Jaccard >= the threshold with a pinned
or higher-scored kept item) is the indexed join of `exact`, which returns
exactly the same kept list and `dropped` partners ("exact" is its deprecated
old name); "minhash" is an approximate MinHash + LSH join for very
large candidate sets; "containment" drops a text mostly contained in another
(shingle containment, same join); "semantic" compares `Item.embedding` by
cosine; "nearcopy" adds word-bigram containment to the jaccard rule and keeps
the retriever's higher-ranked copy (`nearcopy`, the recommended rule for
retrieved text; "nearcopy_container" keeps the containing copy instead).
Adding a method is one module with a `DedupeMethod`
subclass plus one entry in the list below.
"""

from __future__ import annotations

from ..component import Registry
from .containment import Containment, dedupe_containment
from .exact import ExactAlias, JaccardJoin, dedupe_indexed
from .minhash import MinHash, dedupe_minhash
from .nearcopy import NearCopy, NearCopyContainer, dedupe_nearcopy, pairwise_nearcopy
from .pairwise import Pairwise, dedupe_pairwise, pairwise_containment, pairwise_semantic
from .rule import DedupeMethod, DedupeResult, containment, dedupe_order, jaccard, shingles
from .semantic import Semantic, dedupe_semantic
from .tokenise import normalise, signature, words

__all__ = ["words", "signature", "normalise", "shingles", "jaccard", "dedupe_pairwise", "dedupe_indexed", "dedupe_minhash",
           "dedupe_containment", "dedupe_semantic", "pairwise_containment", "pairwise_semantic", "containment",
           "dedupe_order", "DedupeMethod", "DedupeResult", "JaccardJoin", "ExactAlias", "Pairwise", "MinHash", "Containment", "Semantic",
           "NearCopy", "NearCopyContainer", "dedupe_nearcopy", "pairwise_nearcopy", "DEDUPE_METHODS"]

DEDUPE_METHODS: Registry[DedupeMethod] = Registry("dedupe method", [JaccardJoin, ExactAlias, Pairwise, MinHash,
                                                                     Containment, Semantic, NearCopy,
                                                                     NearCopyContainer], group="packbench.dedupe")
