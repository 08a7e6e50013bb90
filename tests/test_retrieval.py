"""Retrievers: BM25, dense and hybrid (reciprocal rank fusion) over a tiny corpus; corpora use them."""

from __future__ import annotations

import numpy as np
import pytest

from packbench.experiments.corpora.python_docs import PythonDocs
from packbench.experiments.corpora.retrieval import RRF_K, BM25Index, DenseIndex, HybridIndex, make_index

DOCS = ["the eiffel tower is in paris france", "pandas eat bamboo in the mountains of sichuan",
        "paris is the capital of france", "bamboo grows fast", "the louvre museum is in paris"]


def test_dense_ranks_by_cosine_best_first_ties_by_position():
    index = DenseIndex(DOCS + [DOCS[2]])
    docs, scores = index.top_k(["capital of france paris"], 6)
    assert docs[0][0] == 2 and docs[0][1] == 5  # the exact copy ties and comes after the original
    assert np.all(np.diff(scores[0]) <= 0) and scores.min() >= 0


def test_hybrid_is_reciprocal_rank_fusion_of_both_rankings():
    bm25, dense = BM25Index(DOCS), DenseIndex(DOCS)
    hybrid = HybridIndex(bm25, dense)
    query = ["bamboo pandas"]
    docs, scores = hybrid.top_k(query, 5)
    expected = np.zeros(len(DOCS))
    for ranked, _ in (bm25.top_k(query, 5), dense.top_k(query, 5)):
        for rank, d in enumerate(ranked[0], start=1):
            expected[d] += 1.0 / (RRF_K + rank)
    assert np.allclose(scores[0], np.sort(expected)[::-1])
    assert docs[0][0] == 1
    with pytest.raises(ValueError, match="must be one of bm25, dense, hybrid"):
        PythonDocs(retriever="splade")
    assert isinstance(make_index("hybrid", DOCS, "hashing"), HybridIndex)


@pytest.mark.parametrize("retriever", ["bm25", "dense", "hybrid"])
def test_python_docs_with_each_retriever_is_deterministic_and_embedded(retriever):
    a = list(PythonDocs(n_queries=3, top_k=5, retriever=retriever).instances(0))
    b = list(PythonDocs(n_queries=3, top_k=5, retriever=retriever).instances(0))
    assert [[it.id for it in i.items] for i in a] == [[it.id for it in i.items] for i in b]
    assert all(it.embedding is not None for i in a for it in i.items)
    assert all(len(i.items) == 7 for i in a)
