"""pyversity: MMR and DPP diversification, with the candidates' scores as relevance.

Extra: ``pip install 'packbench[peers-pyversity]'`` (pyversity).
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from ..items import Problem, Selection
from ..params import Param, int_in, one_of, real_in
from .base import PeerStrategy, fill_in_order, peer_selection, require
from .embedding import DEFAULT_DIM, item_vectors

__all__ = ["Pyversity"]


class Pyversity(PeerStrategy):
    """pyversity `diversify` (MMR or DPP) over the items' embeddings (else hashing ones) and the scores, then its ranking while it fits.

    Relevance is the score over the largest score (in [0, 1], like the cosine similarities
    pyversity is used with; raw BM25 scores in the tens would drown any diversity weight).

    pyversity picks ``k`` items, not tokens: the adapter asks for every candidate (``k = n``; DPP may
    stop earlier when no item adds volume) and takes them in pyversity's selection order, each one
    that still fits the room. The result never exceeds the room.

    Params:
        method: "mmr" or "dpp".
        diversity: pyversity's `diversity` in [0, 1] (0: relevance only).
        dim: Length of the hashing embeddings.
    """

    name = "pyversity"
    DOMAINS = frozenset({"retrieval"})
    peer = "pyversity"
    extra, modules = "peers-pyversity", ("pyversity",)
    PARAMS = MappingProxyType({
        "method": Param("mmr", one_of("mmr", "dpp"), "pyversity strategy"),
        "diversity": Param(0.5, real_in(0.0, 1.0), "diversity weight"),
        "dim": Param(DEFAULT_DIM, int_in(8, 1 << 16), "hashing embedding length"),
    })

    def select(self, problem: Problem) -> Selection:
        pv = require(self, "pyversity")
        cands = problem.candidates
        if not cands:
            return peer_selection(problem, ())
        vectors = item_vectors(cands, self.params["dim"])
        scores = np.array([it.score for it in cands], dtype=float)
        if scores.max() > 0:  # relevance in [0, 1], as cosine similarities are, so `diversity` keeps its meaning
            scores = scores / scores.max()
        result = pv.diversify(vectors, scores, k=len(cands), strategy=self.params["method"],
                              diversity=self.params["diversity"])
        return peer_selection(problem, fill_in_order(problem, [int(k) for k in result.indices]))
