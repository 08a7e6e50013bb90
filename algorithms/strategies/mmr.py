"""Maximal Marginal Relevance under a token budget (Carbonell and Goldstein 1998)."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from types import MappingProxyType

import numpy as np

from ..bounds import dantzig_bound_arrays
from ..items import Problem, Selection
from ..params import Param, int_in, real_in
from ..similarity import check_similarity, matrix_bytes, similarity_columns, similarity_name
from ..vectors import CosineColumns, embedding_matrix
from .base import Strategy
from .diversity_kernels import mmr_picks, mmr_picks_cosine32, problem_rows
from .mmr_kernel import warm_up as _warm_up
from .greedy import bounded_selection

__all__ = ["MMR", "relevance"]

def relevance(scores: np.ndarray) -> np.ndarray:
    """Scores divided by the largest one, so relevance is in [0, 1] (all zeros if the max is 0).

    Scores reaching a strategy are >= 0 (`pack` sets negative ones aside), so
    dividing by the maximum keeps 0 meaning "no value" and keeps score ratios.
    """
    scores = np.asarray(scores, dtype=np.float64)
    top = float(scores.max()) if scores.size else 0.0
    return scores / top if top > 0 else np.zeros_like(scores)


class MMR(Strategy):
    """Repeatedly take the fitting candidate with the best MMR value; stop when nothing fits.

    The MMR value of a candidate i is
    ``lam * rel_i - (1 - lam) * max_{j in chosen or pinned} sim(i, j)``
    (the max is 0 before anything is chosen when there are no pinned items),
    with ``rel_i = score_i / max score`` in [0, 1]. With ``cost_exponent`` c > 0
    the value is first shifted by ``1 - lam`` into [0, 1] and then divided by
    ``tokens_i ** c``: dividing a negative value by a cost would favour the
    *expensive* items, and the shift leaves the c = 0 choice unchanged. Ties go
    to the higher score, then the lower id.

    With ``lam = 1`` (and c = 0) this is exactly the score-ordered fill: visit
    the candidates by score descending (ties by id) and take each one that still
    fits. (Room only shrinks, so a candidate that does not fit when visited never
    fits later, and the best fitting candidate at each step is the next one the
    fill takes.)

    No approximation guarantee: MMR is a greedy rule, not the maximiser of any
    stated objective. Its value depends on what was chosen before (the
    redundancy penalty), which makes the induced set function neither monotone
    nor submodular in general, and under a budget it inherits the failure of
    score-ordered filling: with budget W, items (score 1, W tokens) and
    W items (score 0.99, 1 token) it takes the first and scores 1 against about
    0.99 W. Use ``submodular`` for a stated bound. ``upper_bound`` is the
    Dantzig bound on the additive score.

    Params:
        lam: Weight of relevance against redundancy, in [0, 1].
        similarity: "jaccard", "tfidf", "cosine" (embeddings) or a callable (see `algorithms.similarity`).
        cost_exponent: c in [0, 4]; 0 is classic MMR.
        max_memory_mb: Cap for the kinds that need the full matrix ("tfidf",
            callables); "jaccard" and "cosine" compute one column per pick.
    """

    name = "mmr"
    DOMAINS = frozenset({"retrieval"})  # diversity among retrieved passages
    PARAMS = MappingProxyType({
        "lam": Param(0.7, real_in(0.0, 1.0), "relevance weight; 1 = score order, 0 = diversity only"),
        "similarity": Param("jaccard", check_similarity,
                            "'jaccard', 'tfidf', 'cosine' (Item.embedding) or a callable (Item, Item) -> [0, 1]"),
        "cost_exponent": Param(0.0, real_in(0.0, 4.0), "divide the MMR value by tokens**c (0 = classic MMR)"),
        "max_memory_mb": Param(1024, int_in(1), "refuse a full similarity matrix ('tfidf', callables) over this"),
    })

    @staticmethod
    def warm_up() -> None:
        """Load the compiled steps of the cosine path before anything is timed (`mmr_kernel.warm_up`)."""
        _warm_up()

    def select(self, problem: Problem) -> Selection:
        cands, room, pinned = problem.candidates, problem.room, problem.pinned
        n = len(cands)
        lam, c = self.params["lam"], self.params["cost_exponent"]
        # C-level passes over the items: a list comprehension per field costs as much as ten picks.
        scores = np.fromiter(map(attrgetter("score"), cands), dtype=np.float64, count=n)
        tokens = np.fromiter(map(attrgetter("tokens"), cands), dtype=np.int64, count=n)
        kind = self.params["similarity"]
        n_items = n + len(pinned)
        if lam < 1.0 and kind not in ("jaccard", "cosine") and matrix_bytes(n_items, kind) > self.params[
                "max_memory_mb"] * 2**20:
            raise ValueError(f"mmr: similarity {similarity_name(kind)!r} builds the full {n_items} x {n_items} "
                             f"matrix ({matrix_bytes(n_items, kind) / 2**20:,.0f} MiB), over max_memory_mb="
                             f"{self.params['max_memory_mb']}; use similarity 'jaccard' or 'cosine' (one column "
                             f"per pick, O(n) memory) or raise max_memory_mb")
        rel = relevance(scores)
        # Classic cosine MMR: similarities in float32 (half the memory traffic), every pick certified
        # against float64 (see `mmr_picks_cosine32`); None when the vectors' scale rules float32 out.
        chosen = (mmr_picks_cosine32(cands, pinned, rel, tokens, room, lam,
                                     problem_rows(problem, "similarity 'cosine'", np.float32))
                  if kind == "cosine" and c == 0 and 0 < lam < 1.0 and n else None)
        if chosen is None:
            column, redundancy = (_columns(cands, pinned, kind) if lam < 1.0 and n
                                  else (None, np.zeros(n)))  # with lam = 1 the penalty has weight 0
            chosen = mmr_picks(cands, rel, tokens, room, lam, c, redundancy, column)
        sel = bounded_selection(problem, chosen, dantzig_bound_arrays(scores, tokens, room))
        info = {"lam": lam, "similarity": similarity_name(self.params["similarity"]), "cost_exponent": c,
                "pick_order": [cands[k].id for k in chosen]}
        return Selection(sel.indices, optimal=sel.optimal, upper_bound=sel.upper_bound, info=info)


def _columns(cands, pinned, kind) -> tuple[Callable[[int], np.ndarray], np.ndarray]:
    """(similarities of every candidate with candidate j, as a function of j; the pinned items' max)."""
    n, items = len(cands), list(cands) + list(pinned)
    if kind == "cosine":
        cos = CosineColumns(embedding_matrix(items, "similarity 'cosine'"))

        def column(j: int) -> np.ndarray:
            return np.clip(cos.column(j, n), 0.0, 1.0)  # the column's own entry is never read: j is chosen

        pins = np.arange(n, len(items))
        return column, (np.clip(cos.block(pins, n), 0.0, 1.0).max(axis=1) if len(pins) else np.zeros(n))
    sim = similarity_columns(items, kind)
    redundancy = sim.block(range(n, len(items)))[:n].max(axis=1) if pinned else np.zeros(n)
    return (lambda j: sim.block([j])[:n, 0]), redundancy
