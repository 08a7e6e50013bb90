"""astromesh-context: containment dedupe, then its `ScoredKnapsack` selection policy.

Extra: ``pip install 'packbench[peers-astromesh]'`` (astromesh-context, which needs only pyyaml;
the ``astromesh`` runtime package itself requires Python >= 3.12 and is not needed).
"""

from __future__ import annotations

from types import MappingProxyType

from ..items import Problem, Selection
from ..params import Param, one_of, real_in
from .base import PeerStrategy, peer_selection, require

__all__ = ["Astromesh"]


class Astromesh(PeerStrategy):
    """astromesh-context's `dedupe` (5-word-shingle containment) and `ScoredKnapsack` under the room.

    Each candidate is a ``knowledge`` `ContextItem` with its own id (as in a user's pipeline: the
    peer breaks ties by id, so positional ids would change its choices), score and tokens (scored
    items with ``final`` = score). The dedupe visits candidates by score and drops one whose id, normalised
    hash or shingle containment (overlap coefficient >= `threshold`) matches a kept one.
    `ScoredKnapsack`, despite its name, is a greedy fill by ``score / tokens**beta`` (ties by id)
    that skips what does not fit; with ``beta = 0`` it is the score-order fill. Budget: the policy
    checks every addition against ``Budget(total=room)``, so it never overflows; a room of 0 (which
    `Budget` refuses) returns nothing.

    Params:
        prefilter: "containment" (the peer's dedupe first) or "off".
        threshold: Containment threshold of the dedupe.
        beta: Token exponent of the density order.
    """

    name = "astromesh"
    DOMAINS = frozenset({"retrieval"})
    peer = "astromesh-context"
    extra, modules = "peers-astromesh", ("astromesh_context",)
    PARAMS = MappingProxyType({
        "prefilter": Param("containment", one_of("containment", "off"), "the peer's dedupe before selection"),
        "threshold": Param(0.8, real_in(0.0, 1.0), "containment threshold"),
        "beta": Param(0.0, real_in(0.0, 4.0), "density exponent: score / tokens**beta"),
    })

    def select(self, problem: Problem) -> Selection:
        types = require(self, "astromesh_context.types")
        dedupe = require(self, "astromesh_context.dedupe")
        policy = require(self, "astromesh_context.policy")
        if problem.room < 1 or not problem.candidates:
            return peer_selection(problem, ())
        at = {it.id: k for k, it in enumerate(problem.candidates)}
        scored = [types.ScoredItem(item=types.ContextItem(id=it.id, content=it.text, source=it.source or "",
                                                          kind="knowledge", stability="volatile",
                                                          score=it.score, tokens=it.tokens),
                                   calibrated=it.score, final=it.score)
                  for it in problem.candidates]
        dropped = 0
        if self.params["prefilter"] == "containment":
            scored, gone = dedupe.dedupe(scored, threshold=self.params["threshold"])
            dropped = len(gone)
        chosen = policy.ScoredKnapsack(beta=self.params["beta"]).select(scored, types.Budget(total=problem.room))
        return peer_selection(problem, (at[s.item.id] for s in chosen.included), deduped=dropped)
