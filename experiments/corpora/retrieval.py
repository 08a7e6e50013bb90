"""Retrievers for the corpora: BM25 (bm25s), dense (embeddings, cosine) and hybrid (reciprocal rank fusion).

* ``"bm25"``: bm25s with English stopwords, no stemming; the candidate score is
  the BM25 score.
* ``"dense"``: the query and every document are embedded (`algorithms.embed`,
  document embeddings cached on disk); the score is the cosine, clipped at 0
  (a candidate score must be >= 0 to be chosen).
* ``"hybrid"``: both rankings fused by reciprocal rank fusion (Cormack, Clarke
  and Buettcher 2009): score ``sum 1 / (60 + rank)`` over the two top lists
  (ranks from 1; a document missing from one list gets nothing from it).

Every retriever returns the k best documents per query, best first, ties by
document position, so instances are deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from packbench.algorithms.embed import EMBEDDERS, embed_texts
from packbench.algorithms.vectors import normalised_rows

__all__ = ["BM25Index", "DenseIndex", "HybridIndex", "RETRIEVERS", "make_index", "check_retriever",
           "check_embedder", "RRF_K"]

RETRIEVERS = ("bm25", "dense", "hybrid")
RRF_K = 60


def check_retriever(owner: str, name: str, value: Any) -> str:
    """Param check: one of `RETRIEVERS`."""
    if value not in RETRIEVERS:
        raise ValueError(f"{owner}: parameter {name!r} must be one of {', '.join(RETRIEVERS)}, got {value!r}")
    return value


def check_embedder(owner: str, name: str, value: Any) -> str:
    """Param check: a name in `EMBEDDERS`."""
    if value not in EMBEDDERS:
        raise ValueError(f"{owner}: parameter {name!r} must be one of {', '.join(sorted(EMBEDDERS))}, "
                         f"got {value!r}")
    return value


def _best_first(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the k best columns (score descending, ties by column) and their scores."""
    order = np.lexsort((np.broadcast_to(np.arange(scores.shape[1]), scores.shape), -scores), axis=1)[:, :k]
    return order, np.take_along_axis(scores, order, axis=1)


class BM25Index:
    """A bm25s index over fixed texts (English stopwords, no stemming).

    Args:
        texts: The documents.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self._bm25s = bm25s
        self._retriever = bm25s.BM25()
        self._retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False),
                              show_progress=False)
        self.size = len(texts)

    def top_k(self, queries: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and BM25 scores of the `k` best documents per query, best first.

        A query with no indexable word gets the first `k` documents with score 0.
        """
        k = min(k, self.size)
        tokens = self._bm25s.tokenize(list(queries), stopwords="en", return_ids=False, show_progress=False)
        tokens = [t if t else ["\x00"] for t in tokens]  # bm25s needs a token; an unknown one scores 0
        docs, scores = self._retriever.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return np.asarray(docs), np.asarray(scores, dtype=float)


class DenseIndex:
    """Cosine retrieval over document embeddings.

    Args:
        texts: The documents.
        embedder: A name in `EMBEDDERS`.
        vectors: The documents' embeddings, if already computed (else embedded and cached).
    """

    def __init__(self, texts: Sequence[str], embedder: str = "hashing", vectors: np.ndarray | None = None) -> None:
        self.embedder = embedder
        self.vectors = embed_texts(list(texts), embedder) if vectors is None else vectors
        self._units = normalised_rows(np.asarray(self.vectors, dtype=np.float64))
        self.size = len(texts)

    def top_k(self, queries: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and cosine scores (clipped at 0) of the `k` best documents per query, best first."""
        k = min(k, self.size)
        q = normalised_rows(np.asarray(embed_texts(list(queries), self.embedder, cache=False), dtype=np.float64))
        docs, scores = _best_first(q @ self._units.T, k)
        return docs, np.maximum(scores, 0.0)


class HybridIndex:
    """BM25 and dense rankings fused by reciprocal rank fusion (see the module doc).

    Args:
        bm25: The lexical index.
        dense: The dense index over the same documents.
        depth: How deep each ranking is read before fusing (at least k).
    """

    def __init__(self, bm25: BM25Index, dense: DenseIndex, depth: int = 100) -> None:
        self.bm25, self.dense, self.depth, self.size = bm25, dense, depth, bm25.size

    def top_k(self, queries: Sequence[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and fused scores of the `k` best documents per query, best first."""
        k = min(k, self.size)
        depth = min(max(self.depth, k), self.size)
        fused = np.zeros((len(queries), self.size))
        for docs, _ in (self.bm25.top_k(queries, depth), self.dense.top_k(queries, depth)):
            rows = np.repeat(np.arange(len(queries)), docs.shape[1])
            fused[rows, docs.ravel()] += 1.0 / (RRF_K + np.tile(np.arange(1, docs.shape[1] + 1), len(queries)))
        return _best_first(fused, k)


def make_index(kind: str, texts: Sequence[str], embedder: str, vectors: np.ndarray | None = None):
    """The index of retriever `kind` over `texts`."""
    if kind == "bm25":
        return BM25Index(texts)
    dense = DenseIndex(texts, embedder, vectors)
    return dense if kind == "dense" else HybridIndex(BM25Index(texts), dense)
