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

__all__ = ["HaystackLITM", "HaystackLITMTokens", "HaystackReorder"]

_EXTRA = "peers-haystack"
_MODULES = ("haystack",)


def _rank(owner: Any, texts: Sequence[str], threshold: int | None) -> list[int]:
    """Positions (into `texts`, given best first) that the ranker returns, in its order."""
    haystack = require(owner, "haystack")
    rankers = require(owner, "haystack.components.rankers")
    docs = [haystack.Document(id=str(k), content=text) for k, text in enumerate(texts)]
    out = rankers.LostInTheMiddleRanker(word_count_threshold=threshold).run(documents=docs)["documents"]
    return [int(d.id) for d in out]


class HaystackLITM(PeerStrategy):
    """Haystack `LostInTheMiddleRanker(word_count_threshold=...)` as it ships: it counts words, not tokens.

    The candidates go in best first; the ranker takes them in that order until the running word
    count (``str.split``) reaches the threshold, and *keeps* the document that crosses it. The
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
        ranked = score_rank(problem)
        threshold = max(1, int(problem.room * self.params["words_per_token"]))
        kept = _rank(self, [problem.candidates[k].text for k in ranked], threshold)
        return peer_selection(problem, (ranked[p] for p in kept), word_count_threshold=threshold)


class HaystackLITMTokens(PeerStrategy):
    """The same ranker made token-exact: it counts each document's real tokens, and the crossing one is dropped.

    Each document's content is replaced by as many one-word placeholders as it has tokens, so the
    ranker's word count is the token count, with the room as threshold; when its result goes over
    the room (it keeps the crossing document) the adapter removes that last-taken document. The
    result is the longest score-order prefix that fits, and never exceeds the room.
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
    """

    name = "haystack_reorder"
    peer = "haystack-ai"
    extra, modules = _EXTRA, _MODULES

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        ranked = sorted(chosen, key=lambda it: (-it.score, it.id))
        return [ranked[p] for p in _rank(self, [it.text or " " for it in ranked], None)]
