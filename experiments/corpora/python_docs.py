"""The Python language reference topics that ship with CPython (`pydoc_data.topics`).

Every topic text (``assert``, ``assignment``, ``atom-identifiers``, ...) is cut
with `algorithms.chunking.recursive_chunks` into chunks of at most
``chunk_tokens`` real tokens that overlap by up to ``overlap`` tokens, so
neighbouring chunks of a topic share text. An instance asks about one topic
(the seed picks which): its words are the query, the top-k chunks by the
retriever (`retrieval`: "bm25", "dense" or "hybrid") are the candidates with
the retriever's scores (each with its `embedder` embedding), and a system prompt and the question are
pinned. Ground truth: `answers` are the retrieved chunks of the asked topic.
There is no exact duplicate-group ground truth (overlap is partial), so
`groups` is None and leakage needs an independent detector.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.chunking import recursive_chunks
from packbench.algorithms.params import Param, int_in
from packbench.algorithms.tokens import DEFAULT_ENCODING, check_encoding_param, count_tokens_batch

from ..instances import Instance, Source
from packbench.algorithms.embed import embed_texts

from .retrieval import check_embedder, check_retriever, make_index

__all__ = ["PythonDocs"]

SYSTEM_PROMPT = "Answer the question about Python using only the provided documentation excerpts."


class PythonDocs(Source):
    """Python reference topics, chunked with overlap, retrieved by BM25 per topic query.

    Params:
        n_queries: Topics asked per seed (at most the number of topics).
        top_k: BM25 candidates per query.
        chunk_tokens: Maximum tokens per chunk.
        overlap: Maximum tokens a chunk repeats from its predecessor.
        encoding: tiktoken encoding or model name.
        retriever: ``"bm25"``, ``"dense"`` or ``"hybrid"`` (see `retrieval`).
        embedder: Name in `algorithms.embed.EMBEDDERS`.
    """

    name = "python_docs"
    kind = "corpus"
    DOMAIN = "retrieval"
    PARAMS = MappingProxyType({
        "n_queries": Param(40, int_in(1, 100_000), "topics asked per seed"),
        "top_k": Param(20, int_in(1, 10_000), "BM25 candidates per query"),
        "chunk_tokens": Param(256, int_in(8, 100_000), "maximum tokens per chunk"),
        "overlap": Param(32, int_in(0, 100_000), "maximum tokens repeated from the previous chunk"),
        "encoding": Param(DEFAULT_ENCODING, check_encoding_param, "tiktoken encoding or model name"),
        "retriever": Param("bm25", check_retriever, "'bm25', 'dense' (embeddings) or 'hybrid' (rank fusion)"),
        "embedder": Param("hashing", check_embedder, "embedder for dense retrieval and Item.embedding"),
    })

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["overlap"] >= self.params["chunk_tokens"]:
            raise ValueError(f"corpus 'python_docs': overlap={self.params['overlap']} must be < "
                             f"chunk_tokens={self.params['chunk_tokens']}")
        self._cache: dict[str, Any] = {}  # chunks and index, built once per object

    def _prepared(self) -> dict[str, Any]:
        if not self._cache:
            from pydoc_data.topics import topics

            p = self.params
            names = sorted(topics)
            ids, texts, owners = [], [], []
            for name in names:
                for k, chunk in enumerate(recursive_chunks(topics[name], p["chunk_tokens"], p["overlap"],
                                                           p["encoding"])):
                    ids.append(f"{name}#{k}")
                    texts.append(chunk.text)
                    owners.append(name)
            vectors = embed_texts(texts, p["embedder"])  # wordllama: disk cache
            self._cache.update(names=names, ids=ids, texts=texts, owners=owners, vectors=vectors,
                               index=make_index(p["retriever"], texts, p["embedder"], vectors),
                               tokens=count_tokens_batch(texts, p["encoding"]))
        return self._cache

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        prep = self._prepared()
        names = prep["names"]
        rng = np.random.default_rng([int(seed), 11])
        asked = sorted(names[int(k)] for k in rng.choice(len(names), size=min(p["n_queries"], len(names)),
                                                          replace=False))
        queries = [name.replace("-", " ") for name in asked]
        docs, scores = prep["index"].top_k(queries, p["top_k"])
        questions = [f"Question: how does '{q}' work in Python?" for q in queries]
        fixed = count_tokens_batch([SYSTEM_PROMPT, *questions], p["encoding"])
        pinned_vecs = embed_texts([SYSTEM_PROMPT, *questions], p["embedder"], cache=False)
        for k, name in enumerate(asked):
            cands, answers = [], set()
            for j, score in zip(docs[k], scores[k]):
                j = int(j)
                cands.append(Item(prep["ids"][j], prep["texts"][j], round(float(score), 6), prep["tokens"][j],
                                  source=prep["owners"][j], embedding=prep["vectors"][j]))
                if prep["owners"][j] == name:
                    answers.add(prep["ids"][j])
            pinned = [Item("system", SYSTEM_PROMPT, 0.0, fixed[0], pinned=True, embedding=pinned_vecs[0]),
                      Item("question", questions[k], 0.0, fixed[k + 1], pinned=True, embedding=pinned_vecs[k + 1])]
            yield Instance(key=f"topic={name}", items=tuple(pinned + cands), groups=None,
                           answers=frozenset(answers), meta={"topic": name, "query": queries[k]})
