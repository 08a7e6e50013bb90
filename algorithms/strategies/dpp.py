"""Budgeted DPP: greedy MAP of a quality-diversity kernel under a token budget (Chen, Zhang and Zhou 2018)."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from ..dedupe.rule import visiting_order
from ..items import Problem, Selection
from ..params import Param, int_in, real_in
from ..similarity import (
    check_similarity,
    matrix_bytes,
    similarity_columns,
    similarity_name,
)
from ..vectors import embedding_matrix, unit_rows
from .base import Strategy
from .greedy import bounded_selection
from .mmr import relevance

__all__ = ["DPP", "quality_weights", "VOLUME_EPS"]

# A candidate whose residual d_i^2 is at most this share of the largest quality^2 adds no volume
# (it lies in the span of the chosen ones, up to rounding): the greedy stops there.
VOLUME_EPS = 1e-9
_TIE_TOL = 1e-9


def quality_weights(scores: np.ndarray, theta: float) -> np.ndarray:
    """q_i = exp(theta * z_i), z the z-score of the relevance (score / max score); all ones for equal scores.

    The weighting pyversity's DPP uses (with theta = its ``(1 - diversity) * scale``), so both
    strategies see the same kernel; z-scores make theta independent of the score scale.
    """
    rel = relevance(scores)
    if rel.size == 0:
        return rel
    std = float(rel.std())
    z = (rel - rel.mean()) / std if std > 0 else np.zeros_like(rel)
    return np.exp(theta * z)


class _Kernel:
    """Columns of S on demand: raw cosine of unit embeddings for "cosine" (PSD), else `similarity_columns`."""

    def __init__(self, cands, similarity) -> None:
        self.units = None
        if similarity == "cosine":
            self.units = unit_rows(embedding_matrix(cands, "strategy 'dpp'"))
        else:
            self.columns = similarity_columns(cands, similarity)

    def diagonal(self, n: int) -> np.ndarray:
        """S_ii: 1, or 0 for a zero embedding (which adds no volume)."""
        if self.units is not None:
            return np.einsum("ij,ij->i", self.units, self.units)
        return np.ones(n)

    def column(self, j: int) -> np.ndarray:
        if self.units is not None:
            return self.units @ self.units[j]
        return self.columns.block([j])[:, 0]


class DPP(Strategy):
    """Greedy MAP of the DPP kernel L = diag(q) S diag(q) among the candidates that fit, until nothing fits.

    Each step takes the fitting candidate i with the largest residual
    ``d_i^2 = L_ii - c_i . c_i`` (the factor by which adding i multiplies
    ``det(L_Y)``), updating every residual by one Cholesky row (Chen et al. 2018:
    ``e_i = (L_ji - c_j . c_i) / d_j``, ``d_i^2 -= e_i^2``), O(n k) work for k
    picks. Quality is ``q = exp(theta * z)`` (`quality_weights`); S is the
    similarity ("cosine": raw cosine of the unit embeddings, a Gram matrix and
    so positive semidefinite; "jaccard" and "tfidf" are PSD kernels too; a
    callable is used as given, residuals clipped at 0). The greedy stops when
    nothing fits or no fitting candidate adds volume (``d_i^2 <= VOLUME_EPS *
    max q^2``: a repeat of what is chosen). Ties: higher score, then lower id.
    Pinned items are not in the kernel: conditioning on the question would push
    out the passages most like it, the ones that answer it.

    No approximation guarantee under the budget (log det is submodular but not
    monotone, and the greedy ignores token costs); ``upper_bound`` is the
    Dantzig bound on the additive score.

    Params:
        theta: Quality weight: 0 makes q = 1 (diversity only); larger favours relevance.
        similarity: "jaccard" (as `mmr`: needs no embeddings), "tfidf", "cosine" (Item.embedding) or a
            callable (see `algorithms.similarity`).
        max_memory_mb: Cap for the kinds that need the full matrix ("tfidf", callables).
    """

    name = "dpp"
    DOMAINS = frozenset({"retrieval"})  # diversity among retrieved passages
    PARAMS = MappingProxyType({
        "theta": Param(0.5, real_in(0.0, 50.0), "quality weight in q = exp(theta * z-score of relevance)"),
        "similarity": Param("jaccard", check_similarity,
                            "'jaccard', 'tfidf', 'cosine' (Item.embedding) or a callable (Item, Item) -> [0, 1]"),
        "max_memory_mb": Param(1024, int_in(1), "refuse a full similarity matrix ('tfidf', callables) over this"),
    })

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        n = len(cands)
        kind = self.params["similarity"]
        if kind not in ("jaccard", "cosine") and matrix_bytes(n, kind) > self.params["max_memory_mb"] * 2**20:
            raise ValueError(f"dpp: similarity {similarity_name(kind)!r} builds the full {n} x {n} matrix "
                             f"({matrix_bytes(n, kind) / 2**20:,.0f} MiB), over max_memory_mb="
                             f"{self.params['max_memory_mb']}; use 'cosine' or 'jaccard' or raise max_memory_mb")
        tokens = np.array([it.tokens for it in cands], dtype=np.int64)
        q = quality_weights(np.array([it.score for it in cands], dtype=np.float64), self.params["theta"])
        rank = np.empty(n, dtype=np.int64)
        rank[visiting_order(cands)] = np.arange(n)  # ties: higher score, then lower id
        kernel = _Kernel(cands, kind) if n else None
        d2 = q * q * kernel.diagonal(n) if n else q * q
        floor = VOLUME_EPS * float((q * q).max()) if n else 0.0
        rows = np.zeros((n, min(n, 64)))  # c_i, grown by doubling: most contexts hold a few dozen items
        open_ = tokens <= room
        chosen: list[int] = []
        left = room
        while True:
            open_ &= tokens <= left
            live = np.flatnonzero(open_)
            if not len(live):
                break
            best = float(d2[live].max())
            if best <= floor:
                break
            ties = live[d2[live] >= best - _TIE_TOL * best]
            j = int(ties[np.argmin(rank[ties])])
            t = len(chosen)
            chosen.append(j)
            open_[j] = False
            left -= int(tokens[j])
            if t == rows.shape[1]:
                rows = np.concatenate([rows, np.zeros_like(rows)], axis=1)
            # One Cholesky row for every candidate at once: e = (L[:, j] - C c_j) / d_j.
            e = q * kernel.column(j) * q[j] - rows[:, :t] @ rows[j, :t]
            e /= np.sqrt(d2[j])
            rows[:, t] = e
            d2 -= e * e
            np.maximum(d2, 0.0, out=d2)
        sel = bounded_selection(problem, chosen)
        info = {"theta": self.params["theta"], "similarity": similarity_name(kind),
                "pick_order": [cands[k].id for k in chosen]}
        return Selection(sel.indices, optimal=sel.optimal, upper_bound=sel.upper_bound, info=info)
