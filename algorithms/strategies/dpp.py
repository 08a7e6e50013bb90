"""Budgeted DPP: greedy MAP of a quality-diversity kernel under a token budget (Chen, Zhang and Zhou 2018)."""

from __future__ import annotations

from operator import attrgetter
from types import MappingProxyType

import numpy as np

from ..bounds import dantzig_bound_arrays
from ..items import Problem, Selection
from ..params import Param, int_in, real_in
from ..similarity import (
    check_similarity,
    matrix_bytes,
    similarity_columns,
    similarity_name,
)
from ..vectors import CosineColumns, embedding_matrix, problem_embeddings
from .base import Strategy
from .greedy import bounded_selection
from .diversity_kernels import cosine32_bound, float32_inverse_norms, problem_rows, tie_break
from .dpp_kernel import CONTENDED, DONE, FULL, LOST, dpp32_steps, dpp_steps
from .dpp_kernel import warm_up as _warm_up
from .mmr import relevance

__all__ = ["DPP", "quality_weights", "dpp_picks", "float32_picks", "VOLUME_EPS", "FLOAT32_MIN_N"]

# A candidate whose residual d_i^2 is at most this share of the largest quality^2 adds no volume
# (it lies in the span of the chosen ones, up to rounding): the greedy stops there.
VOLUME_EPS = 1e-9
_TIE_TOL = 1e-9
# From this many candidates the cosine picks run on float32 projections (`float32_picks`): below it,
# the per-pick basis row costs more than the float32 product saves (measured on 256-d vectors, 32
# picks: 0.64 vs 0.56 ms at 200 candidates, even at 400, 1.9 vs 2.3 ms at 1,000). Same picks either way.
FLOAT32_MIN_N = 400


def quality_weights(scores: np.ndarray, theta: float) -> np.ndarray:
    """q_i = exp(theta * z_i), z the z-score of the relevance (score / max score); all ones for equal scores.

    The weighting pyversity's DPP uses (with theta = its ``(1 - diversity) * scale``), so both
    strategies see the same kernel; z-scores make theta independent of the score scale.
    """
    rel = relevance(scores)
    if rel.size == 0:
        return rel
    # ``rel.std()`` and ``rel.mean()`` by the very operations numpy's own make (the sum over n, the
    # deviations, their squares' sum over n), once each: numpy's Python-level `_var` and a second
    # mean cost about as much as the rest of the weights.
    dev = rel - np.add.reduce(rel) / rel.size
    std = float(np.sqrt(np.add.reduce(dev * dev) / rel.size))
    z = dev / std if std > 0 else np.zeros_like(rel)
    return np.exp(theta * z)


class _Kernel:
    """Columns of L = diag(q) S diag(q) on demand: S the raw cosine of the embeddings for "cosine"
    (PSD, `CosineColumns`; its picks run compiled, see `dpp_kernel`), else `similarity_columns`."""

    def __init__(self, cands, similarity, q: np.ndarray, rows: np.ndarray | None = None) -> None:
        self.q, self.cos = q, None
        if similarity == "cosine":  # `rows`: the candidates' float64 embeddings, when the caller has them
            self.cos = CosineColumns(embedding_matrix(cands, "strategy 'dpp'") if rows is None else rows)
        else:
            self.columns = similarity_columns(cands, similarity)

    def diagonal(self) -> np.ndarray:
        """L_ii = q_i^2 S_ii, S_ii being 1, or 0 for a zero embedding (which adds no volume)."""
        return self.q * self.q * (self.cos.diagonal if self.cos is not None else 1.0)

    def column(self, j: int, out: np.ndarray) -> np.ndarray:
        """L[:, j], written into `out`."""
        out[:] = self.columns.block([j])[:, 0]
        out *= self.q
        out *= self.q[j]
        return out


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

    @staticmethod
    def warm_up() -> None:
        """Load the compiled steps of the cosine path before anything is timed (`dpp_kernel.warm_up`)."""
        _warm_up()

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        n = len(cands)
        kind = self.params["similarity"]
        if kind not in ("jaccard", "cosine") and matrix_bytes(n, kind) > self.params["max_memory_mb"] * 2**20:
            raise ValueError(f"dpp: similarity {similarity_name(kind)!r} builds the full {n} x {n} matrix "
                             f"({matrix_bytes(n, kind) / 2**20:,.0f} MiB), over max_memory_mb="
                             f"{self.params['max_memory_mb']}; use 'cosine' or 'jaccard' or raise max_memory_mb")
        # C-level passes over the items: a list comprehension per field costs as much as ten picks.
        tokens = np.fromiter(map(attrgetter("tokens"), cands), dtype=np.int64, count=n)
        scores = np.fromiter(map(attrgetter("score"), cands), dtype=np.float64, count=n)
        q = quality_weights(scores, self.params["theta"])
        chosen, e64 = None, None
        if kind == "cosine" and n:
            e64 = problem_rows(problem, "strategy 'dpp'", pinned=False)
            if n >= FLOAT32_MIN_N:
                chosen = float32_picks(cands, q, tokens, room, e64, problem_embeddings(problem, "", np.float32, False))
        if chosen is None:
            chosen = dpp_picks(cands, q, tokens, room, _Kernel(cands, kind, q, e64)) if n else []
        sel = bounded_selection(problem, chosen, dantzig_bound_arrays(scores, tokens, room))
        info = {"theta": self.params["theta"], "similarity": similarity_name(kind),
                "pick_order": [cands[k].id for k in chosen]}
        return Selection(sel.indices, optimal=sel.optimal, upper_bound=sel.upper_bound, info=info)


def dpp_picks(cands, q: np.ndarray, tokens: np.ndarray, room: int, kernel: _Kernel) -> list[int]:
    """The greedy MAP picks of `DPP`, in pick order: one Cholesky row per pick, in preallocated buffers.

    ``d2`` holds the residuals (clipped at 0, as the definition has them); ``gate`` is 0 for a
    candidate still open and -inf once it is chosen or no longer fits, so ``d2 + gate`` is the
    residual among the open ones in one pass. The fit is re-checked only when the best residual
    does not fit (room only shrinks).
    """
    n = len(q)
    d2 = kernel.diagonal()
    floor = VOLUME_EPS * float((q * q).max())
    rows = np.empty((min(n, 64), n))  # row t: the t-th Cholesky row of every candidate; doubled when full
    gate = np.zeros(n)
    gate[tokens > room] = -np.inf
    live = np.empty(n)
    if kernel.cos is not None:
        return _compiled_picks(cands, kernel, d2, gate, live, rows, tokens, room, floor)
    chosen: list[int] = []
    left, tok = room, tokens.tolist()  # Python ints: a numpy scalar per read costs more than the read
    while True:
        np.add(d2, gate, out=live)
        j = int(live.argmax())
        if tok[j] > left:  # room shrank under the best: set aside everything that no longer fits
            gate[tokens > left] = -np.inf
            np.add(d2, gate, out=live)
            j = int(live.argmax())
        best = float(live[j])
        if best == -np.inf or best <= floor:
            break
        ties = np.flatnonzero(live >= best - _TIE_TOL * best)
        if len(ties) > 1:
            ties = ties[tokens[ties] <= left]  # a tie that no longer fits may not have been set aside yet
            j = tie_break(cands, ties)
        t = len(chosen)
        chosen.append(j)
        gate[j] = -np.inf
        left -= tok[j]
        if t == len(rows):
            rows = np.concatenate([rows, np.empty_like(rows)])
        # One Cholesky row for every candidate at once: e = (L[:, j] - C c_j) / d_j.
        e = kernel.column(j, rows[t])
        if t:
            e -= rows[:t, j] @ rows[:t]
        e /= np.sqrt(d2[j])
        np.multiply(e, e, out=live)
        d2 -= live
        np.maximum(d2, 0.0, out=d2)
    return chosen


def _compiled_picks(cands, kernel: _Kernel, d2: np.ndarray, gate: np.ndarray, live: np.ndarray,
                    rows: np.ndarray, tokens: np.ndarray, room: int, floor: float) -> list[int]:
    """`dpp_picks`' loop for cosine compiled (`dpp_kernel.dpp_steps`); ties and the row buffer's
    growth are handled here."""
    cos = kernel.cos
    chosen = np.empty(len(d2), dtype=np.int64)
    count, left, forced = 0, room, -1
    while True:
        count, left, status, best, j = dpp_steps(cos.matrix, cos.inv, kernel.q, d2, gate, live, rows, tokens,
                                                 left, floor, _TIE_TOL, chosen, count, forced)
        if status == DONE:
            return chosen[:count].tolist()
        if status == FULL:
            rows, forced = np.concatenate([rows, np.empty_like(rows)]), j
        else:  # tied: every open fitting candidate within the tolerance of the best
            forced = tie_break(cands, (live >= best - _TIE_TOL * best).nonzero()[0])


def float32_picks(cands, q: np.ndarray, tokens: np.ndarray, room: int, e64: np.ndarray | None = None,
                  e32: np.ndarray | None = None) -> list[int] | None:
    """`dpp_picks` for cosine with float32 projections, every pick certified (`dpp_kernel.dpp32_steps`).

    The residual ``d_i^2`` is written as ``q_i^2 (1 - |B u_i|^2)``, B an orthonormal basis of the picks'
    unit vectors (float64, Gram-Schmidt twice), so each step is one float32 matrix-vector product with
    a new basis row, whose error per coordinate is bounded a priori (`cosine32_bound` plus the basis
    row's float64 error): the Cholesky recursion of `dpp_picks` would carry float32 errors through
    divisions by the residuals, with no such bound. A step where a second candidate (or the volume
    floor) is within those bounds plus the tie tolerance of the best is decided in float64 among
    those contenders; where that float64 comparison is within 64 (dim + t + 8) ulps of q^2 of the tie
    tolerance or the floor, two float64 computations of the residual (this basis, the Cholesky loop)
    may disagree (seen at residuals of 7e-7 from vectors 1e-12 apart), and None sends the caller to
    `dpp_picks`, the definition's own loop. So the picks are those of `dpp_picks`.

    Args:
        e64, e32: The candidates' float64 rows and their float32 copy, when the caller has them.

    Returns:
        The picks, or None (use `dpp_picks`) when a row's norm is outside float32's safe range, a float64
        comparison is too close to call, or a pick lies so nearly in the span of the others that the
        float64 basis loses precision.
    """
    n = len(cands)
    e64 = embedding_matrix(cands, "strategy 'dpp'") if e64 is None else e64
    if e32 is None:
        with np.errstate(over="ignore", under="ignore"):  # such rows are found by `float32_inverse_norms`
            e32 = e64.astype(np.float32)
    inv = float32_inverse_norms(e32, cands)
    if inv is None:
        return None
    inv64 = np.full(n, -1.0)  # float64 1 / norms, computed in the loop for the rows it reads in float64
    diag = (inv > 0).astype(np.float64)  # a zero float32 row is a zero row (`float32_inverse_norms`)
    q2 = q * q
    floor = VOLUME_EPS * float(q2.max())
    gate = np.zeros(n)
    gate[tokens > room] = -np.inf
    size = min(n, 64)  # basis rows; doubled when full
    basis, basis32 = np.empty((size, e64.shape[1])), np.empty((size, e64.shape[1]), dtype=np.float32)
    res, s1, state = diag.copy(), np.zeros(n), np.zeros(2 + size)  # see `dpp32_steps`
    chosen, ties, exact = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n)
    gamma, count, left, forced = cosine32_bound(e64.shape[1]), 0, room, -1
    while True:
        count, left, status, j = dpp32_steps(e32, inv, e64, inv64, diag, q2, res, s1, gate, basis, basis32, tokens,
                                             left, floor, gamma, _TIE_TOL, state, chosen, count, forced, ties, exact)
        if status == DONE:
            return chosen[:count].tolist()
        if status in (LOST, CONTENDED):
            return None
        if status == FULL:
            basis, basis32, forced = np.concatenate([basis, basis]), np.concatenate([basis32, basis32]), j
            state = np.concatenate([state, np.zeros(len(basis) // 2)])
        else:  # tied in float64: the first j entries of `ties`
            forced = tie_break(cands, np.sort(ties[:j]))
