"""tokenpack-rag: its budgeted chunk selectors (`select_chunks`).

No extra: tokenpack-rag's own dependencies (sentence-transformers, torch, ...; about 5.9 GB) are
only needed for its embedding and reranking models, never by its selectors, so install it with
``pip install --no-deps tokenpack-rag`` (0.6 MB).
"""

from __future__ import annotations

from types import MappingProxyType

from ..items import Problem, Selection
from ..params import Param, int_in, one_of, real_in
from .base import PeerStrategy, peer_selection, require
from .embedding import DEFAULT_DIM, item_vectors

__all__ = ["TokenPack", "SELECTORS"]

SELECTORS = ("knapsack", "budget-top-k", "greedy-density", "mmr", "knapsack-augment", "production-rag")


class TokenPack(PeerStrategy):
    """tokenpack-rag `select_chunks` with one of its selectors; chunk value and similarity = the score.

    Each candidate is a tokenpack `ScoredChunk` whose ``value`` and ``raw_similarity`` are its score
    and whose ``weight`` is its tokens (for ``mmr``, with the item's embedding, else a hashing one). Budget: every
    selector fills against ``weight`` itself (the knapsack rounds weights *up* when it coarsens its
    table, above 10^7 cells, so it never overflows); the adapter checks and records any overflow.
    As it ships, only the best ``candidate_pool`` candidates by value are considered.

    Params:
        selector: The tokenpack strategy name.
        candidate_pool: tokenpack's `candidate_pool`.
        mmr_lambda: tokenpack's `mmr_lambda` (for "mmr").
        dim: Length of the hashing embeddings (for "mmr").
    """

    name = "tokenpack"
    DOMAINS = frozenset({"retrieval"})
    peer = "tokenpack-rag"
    extra, modules = "peers", ("tokenpack.selectors",)
    install = "pip install --no-deps 'tokenpack-rag>=0.1.2'"
    PARAMS = MappingProxyType({
        "selector": Param("knapsack", one_of(*SELECTORS), "tokenpack selection strategy"),
        "candidate_pool": Param(250, int_in(1, 10**9), "candidates considered (best by value)"),
        "mmr_lambda": Param(0.75, real_in(0.0, 1.0), "relevance weight of its mmr"),
        "dim": Param(DEFAULT_DIM, int_in(8, 1 << 16), "hashing embedding length"),
    })

    def select(self, problem: Problem) -> Selection:
        selectors = require(self, "tokenpack.selectors")
        models = require(self, "tokenpack.models")
        cands = problem.candidates
        vectors = (item_vectors(cands, self.params["dim"]).tolist()
                   if self.params["selector"] == "mmr" and cands else [None] * len(cands))
        scored = []
        for k, it in enumerate(cands):
            chunk = models.Chunk(id=str(k), text=it.text, source_path=it.source or "", document_index=k,
                                 start_page=None, end_page=None, start_paragraph=0, end_paragraph=0,
                                 char_start=0, char_end=len(it.text), token_count=it.tokens)
            scored.append(models.ScoredChunk(chunk=chunk, value=it.score, raw_similarity=it.score,
                                             weight=it.tokens, embedding=vectors[k]))
        result = selectors.select_chunks(scored, self.params["selector"], problem.room,
                                         candidate_pool=self.params["candidate_pool"],
                                         mmr_lambda=self.params["mmr_lambda"])
        return peer_selection(problem, (int(s.chunk.id) for s in result.selected))
