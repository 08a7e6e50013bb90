"""Haystack: `LostInTheMiddleRanker`, with its word threshold as it ships, a token-exact variant, and as an order.

Extra: ``pip install 'packbench[peers-haystack]'`` (haystack-ai).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from ..items import Item, Problem, Selection
from ..params import Param, real_in
from .base import PeerOrder, PeerStrategy, peer_selection, require, score_rank

__all__ = ["HaystackLITM", "HaystackLITMTokens", "HaystackReorder", "user_documents"]

_EXTRA = "peers-haystack"
_MODULES = ("haystack",)


def _rank(owner: Any, texts: Sequence[str], threshold: int | None) -> list[int]:
    """Positions (into `texts`, given best first) that the ranker returns, in its order; ids kept distinct."""
    haystack = require(owner, "haystack")
    rankers = require(owner, "haystack.components.rankers")
    docs = [haystack.Document(id=str(k), content=text) for k, text in enumerate(texts)]
    out = rankers.LostInTheMiddleRanker(word_count_threshold=threshold).run(documents=docs)["documents"]
    return [int(d.id) for d in out]


def user_documents(owner: Any, items: Sequence[Item]) -> list[Any]:
    """The Haystack `Document`s a retriever hands the ranker for `items` (given best first).

    As in a user's pipeline: content, the retriever's score, and the item's source as ``meta``
    (when it has one); no id, so Haystack derives it from content and meta, and the ranker's own
    removal of repeated documents (same id: same text and source) applies.
    """
    haystack = require(owner, "haystack")
    return [haystack.Document(content=it.text, score=it.score, meta={"source": it.source} if it.source else {})
            for it in items]


class HaystackLITM(PeerStrategy):
    """Haystack `LostInTheMiddleRanker(word_count_threshold=...)` as it ships: it counts words, not tokens.

    The candidates go in best first as the `Document`s a retriever would give (`user_documents`:
    content, score, source; Haystack's own content-derived ids), so the ranker first removes
    repeated documents (same text and source), keeping the higher-scored one. It then takes them in
    that order until the running word count (``str.split``) reaches the threshold, and *keeps* the
    document that crosses it. The
    threshold is ``floor(room * words_per_token)`` (at least 1). Budget: not enforced by the peer;
    what it keeps may exceed the room in real tokens, and the adapter returns exactly that, with
    the overflow recorded (``budget_violation``, ``over_tokens``). Pair it with the
    ``haystack_reorder`` order for the ranker's own layout.

    Params:
        words_per_token: Threshold words per token of room (1.0: the budget number read as words).
    """

    name = "haystack_litm"
    DOMAINS = frozenset({"retrieval"})
    peer = "haystack-ai"
    extra, modules = _EXTRA, _MODULES
    PARAMS = MappingProxyType({
        "words_per_token": Param(1.0, real_in(0.0, 100.0, lo_open=True), "word threshold per token of room"),
    })

    def select(self, problem: Problem) -> Selection:
        if problem.room < 1 or not problem.candidates:
            return peer_selection(problem, ())
        rankers = require(self, "haystack.components.rankers")
        ranked = score_rank(problem)
        threshold = max(1, int(problem.room * self.params["words_per_token"]))
        docs = user_documents(self, [problem.candidates[k] for k in ranked])
        at = {id(doc): k for doc, k in zip(docs, ranked)}  # the ranker returns the objects it was given
        out = rankers.LostInTheMiddleRanker(word_count_threshold=threshold).run(documents=docs)["documents"]
        return peer_selection(problem, (at[id(d)] for d in out), word_count_threshold=threshold,
                              peer_removed=len(docs) - len({d.id for d in docs}))


class HaystackLITMTokens(PeerStrategy):
    """Not the peer's behaviour: packbench's ``prefix`` strategy, computed through the ranker's threshold loop.

    Each document's content is replaced by as many one-word placeholders as it has tokens (with
    distinct positional ids, since equal placeholders would otherwise be removed as repeats), so
    the ranker's word count is the token count, with the room as threshold; when its result goes
    over the room (it keeps the crossing document) the adapter removes that last-taken document.
    The result is the longest score-order prefix that fits: exactly ``prefix`` (the fidelity test
    asserts it on every list), never over the room. It is kept under this name because committed
    results use it; it measures the token-exact variant of the ranker's cut, not Haystack itself.
    """

    name = "haystack_litm_tokens"
    DOMAINS = frozenset({"retrieval"})
    peer = "haystack-ai"
    extra, modules = _EXTRA, _MODULES

    def select(self, problem: Problem) -> Selection:
        if problem.room < 1 or not problem.candidates:
            return peer_selection(problem, ())
        ranked = score_rank(problem)
        kept = _rank(self, ["w " * problem.candidates[k].tokens for k in ranked], problem.room)
        picked = sorted(kept)  # the ranker takes a prefix of `ranked`; its last member crossed, if any
        if sum(problem.candidates[ranked[p]].tokens for p in picked) > problem.room:
            picked = picked[:-1]
        return peer_selection(problem, (ranked[p] for p in picked))


class HaystackReorder(PeerOrder):
    """Haystack `LostInTheMiddleRanker` (no threshold) as an order, given the chosen items best first.

    Best first, second last, third second, ...: the same layout as packbench's ``lost_in_middle``.
    The documents get distinct positional ids: an order must return every chosen item, and the
    ranker would drop repeated texts (which the strategy and dedupe already decided on).
    """

    name = "haystack_reorder"
    peer = "haystack-ai"
    extra, modules = _EXTRA, _MODULES

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        ranked = sorted(chosen, key=lambda it: (-it.score, it.id))
        return [ranked[p] for p in _rank(self, [it.text or " " for it in ranked], None)]
