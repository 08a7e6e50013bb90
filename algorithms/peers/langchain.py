"""LangChain: `trim_messages`, `EmbeddingsRedundantFilter`, `maximal_marginal_relevance`, `LongContextReorder`.

Extra: ``pip install 'packbench[peers-langchain]'`` (langchain-core, langchain-community).
Embeddings come from the project's `HashingEmbedder` (deterministic, no model download), wrapped as a
LangChain `Embeddings` object; the query and the documents are embedded the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from ..items import Item, Problem, Selection
from ..params import Param, int_in, one_of, real_in
from .base import PeerOrder, PeerStrategy, fill_in_order, peer_selection, require, score_rank
from .embedding import DEFAULT_DIM, text_vectors

__all__ = ["LangChainTrim", "LangChainRedundantFilter", "LangChainMMR", "LangChainReorder"]

_EXTRA = "peers-langchain"
_MODULES = ("langchain_core", "langchain_community")


def _embeddings(owner: Any, dim: int) -> Any:
    """A LangChain `Embeddings` backed by `text_vectors` (built on first use, so the import stays lazy)."""
    base = require(owner, "langchain_core.embeddings").Embeddings

    class HashEmbeddings(base):  # type: ignore[misc, valid-type]
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return text_vectors(texts, dim).tolist()

        def embed_query(self, text: str) -> list[float]:
            return text_vectors([text], dim)[0].tolist()

    return HashEmbeddings()


def _documents(owner: Any, items: Sequence[Item]) -> list[Any]:
    document = require(owner, "langchain_core.documents").Document
    return [document(page_content=it.text, metadata={"pos": k}) for k, it in enumerate(items)]


class LangChainTrim(PeerStrategy):
    """LangChain `trim_messages`: keep the last (or first) candidates, in input order, that fit.

    Every candidate is a `HumanMessage` in input order (conversation order for chats). Budget: with
    ``counter="tokens"`` LangChain's `token_counter` is packbench's own per-item tiktoken count, so
    the result always fits; with ``counter="approximate"`` it is LangChain's
    `count_tokens_approximately` (characters / 4 plus a per-message overhead), as many users ship it,
    and the real tokens of what it keeps may exceed the room: that overflow is recorded, never cut.

    Params:
        keep: trim_messages' `strategy`: "last" (keep the most recent) or "first".
        counter: "tokens" (exact item tokens) or "approximate" (LangChain's estimate).
    """

    name = "langchain_trim"
    DOMAINS = frozenset({"chat"})
    peer = "langchain-core"
    extra, modules = _EXTRA, ("langchain_core",)
    PARAMS = MappingProxyType({
        "keep": Param("last", one_of("last", "first"), "trim_messages' strategy: which end to keep"),
        "counter": Param("tokens", one_of("tokens", "approximate"), "token counter given to trim_messages"),
    })

    def select(self, problem: Problem) -> Selection:
        messages = require(self, "langchain_core.messages")
        cands = problem.candidates
        msgs = [messages.HumanMessage(content=it.text, id=str(k)) for k, it in enumerate(cands)]
        if self.params["counter"] == "tokens":
            def counter(batch: list[Any]) -> int:
                return sum(cands[int(m.id)].tokens for m in batch)
        else:
            counter = messages.utils.count_tokens_approximately
        kept = messages.trim_messages(msgs, max_tokens=problem.room, token_counter=counter,
                                      strategy=self.params["keep"])
        return peer_selection(problem, (int(m.id) for m in kept))


class LangChainRedundantFilter(PeerStrategy):
    """LangChain `EmbeddingsRedundantFilter`, then the candidates it keeps in score order while they fit.

    The filter sees the candidates in retrieval order (score descending) and, of each pair with
    cosine similarity above the threshold, drops the *earlier* one, as it ships: it keeps the
    lower-ranked copy. Budget: the filter knows no budget; the adapter takes the kept candidates by
    score, each one that still fits (never over the room).

    Params:
        threshold: `similarity_threshold` of the filter.
        dim: Length of the hashing embeddings.
    """

    name = "langchain_redundant"
    DOMAINS = frozenset({"retrieval"})
    peer = "langchain-community"
    extra, modules = _EXTRA, _MODULES
    PARAMS = MappingProxyType({
        "threshold": Param(0.95, real_in(0.0, 1.0), "cosine similarity above which a pair is redundant"),
        "dim": Param(DEFAULT_DIM, int_in(8, 1 << 16), "hashing embedding length"),
    })

    def select(self, problem: Problem) -> Selection:
        module = require(self, "langchain_community.document_transformers")
        ranked = score_rank(problem)
        docs = _documents(self, [problem.candidates[k] for k in ranked])
        filt = module.EmbeddingsRedundantFilter(embeddings=_embeddings(self, self.params["dim"]),
                                                similarity_threshold=self.params["threshold"])
        kept = [ranked[d.metadata["pos"]] for d in filt.transform_documents(docs)]
        return peer_selection(problem, fill_in_order(problem, kept), filtered=len(ranked) - len(kept))


class LangChainMMR(PeerStrategy):
    """LangChain `maximal_marginal_relevance` over hashing embeddings, then its ranking while it fits.

    The query vector embeds the pinned items' text (the question); MMR ranks every candidate
    (``k`` = all of them) by ``lambda * cos(query, d) - (1 - lambda) * max cos(d, chosen)``.
    It ignores the candidates' scores. Budget: MMR picks a count, not tokens; the adapter takes
    its ranking in order, each candidate that still fits (never over the room). Without pinned
    text there is no query, and the strategy declines (a ``skipped`` row).

    Params:
        lambda_mult: LangChain's `lambda_mult` (1: relevance only).
        dim: Length of the hashing embeddings.
    """

    name = "langchain_mmr"
    DOMAINS = frozenset({"retrieval"})
    peer = "langchain-community"
    extra, modules = _EXTRA, ("langchain_core",)
    PARAMS = MappingProxyType({
        "lambda_mult": Param(0.5, real_in(0.0, 1.0), "relevance weight"),
        "dim": Param(DEFAULT_DIM, int_in(8, 1 << 16), "hashing embedding length"),
    })

    def skip(self, problem: Problem) -> str | None:
        if not any(it.text.strip() for it in problem.pinned):
            return "langchain_mmr needs a query: no pinned item (e.g. the question) has text"
        return super().skip(problem)

    def select(self, problem: Problem) -> Selection:
        utils = require(self, "langchain_core.vectorstores.utils")
        if not problem.candidates:
            return peer_selection(problem, ())
        query = text_vectors(["\n".join(it.text for it in problem.pinned)], self.params["dim"])[0]
        vectors = text_vectors([it.text for it in problem.candidates], self.params["dim"])
        order = utils.maximal_marginal_relevance(np.asarray(query), vectors.tolist(),
                                                 lambda_mult=self.params["lambda_mult"], k=len(vectors))
        return peer_selection(problem, fill_in_order(problem, order))


class LangChainReorder(PeerOrder):
    """LangChain `LongContextReorder` (langchain-community), given the chosen items best first.

    As it ships: it reverses the list and alternates front/back, so for an even count the best item
    ends up *last* (n = 4: score ranks 2, 4, 3, 1), unlike packbench's ``lost_in_middle``.
    """

    name = "langchain_reorder"
    peer = "langchain-community"
    extra, modules = _EXTRA, _MODULES

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        module = require(self, "langchain_community.document_transformers")
        ranked = sorted(chosen, key=lambda it: (-it.score, it.id))
        docs = _documents(self, ranked)
        return [ranked[d.metadata["pos"]] for d in module.LongContextReorder().transform_documents(docs)]
