"""Budgeted monotone submodular selection: relevance with diminishing returns plus coverage.

The objective, for a set S of chosen candidates, pinned items P and the
candidate pool C (the items the strategy was offered):

    f(S) = sum over sources g of  phi( sum_{i in S, source(i) = g} rel_i )
           + lam * sum_{j in C} max_{i in S ∪ P} sim(i, j)

* ``rel_i = score_i / max_{k in C} score_k`` in [0, 1] (scores are >= 0);
* ``phi = sqrt`` for ``objective="sqrt"`` (Lin and Bilmes 2011, "A class of
  submodular functions for document summarization", ACL: the square root per
  cluster rewards spreading over sources), ``phi(x) = x`` for
  ``objective="linear"``;
* an item whose ``source`` is None is its own source;
* the coverage term is facility location over `algorithms.similarity` (the max
  over an empty set is 0; pinned items count as already chosen).

Both terms are monotone and submodular (a concave function of a modular
function, and facility location with non-negative similarities), so f is.
Pinned items only enter through coverage, which makes ``f(∅)`` a constant
``c >= 0``; the guarantee below is for ``f - c`` and therefore also for f.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import MappingProxyType

import numpy as np

from ..items import Item, Problem, Selection
from ..params import Param, int_in, one_of, real_in
from ..similarity import Similarity, check_similarity, matrix_bytes, similarity_matrix, similarity_name
from .base import Strategy
from .greedy import bounded_selection
from .mmr import relevance
from .submodular_greedy import lazy_greedy
from .submodular_kernel import warm_up as _warm_up

__all__ = ["Submodular", "SubmodularObjective", "objective_value"]

OBJECTIVES = ("sqrt", "linear")


def _none_or(check):
    """A parameter check that also accepts None."""
    def checked(owner: str, name: str, value):
        return None if value is None else check(owner, name, value)
    return checked


class SubmodularObjective:
    """The objective of the module docstring over a fixed candidate pool.

    Args:
        candidates: The pool C (non-pinned items); positions index it.
        pinned: Items counted as chosen in the coverage term.
        lam: Weight of coverage, >= 0.
        similarity: "jaccard", "tfidf" or a callable.
        objective: "sqrt" (per-source square root) or "linear".

    Raises:
        ValueError: `objective` unknown, `lam` negative, or a candidate with a
            negative score (the square root needs relevance >= 0; `pack` sets
            such candidates aside before any strategy runs).
        TypeError: `lam` is not a finite number.
    """

    def __init__(self, candidates: Sequence[Item], pinned: Sequence[Item] = (), *, lam: float = 0.5,
                 similarity: Similarity = "jaccard", objective: str = "sqrt") -> None:
        one_of(*OBJECTIVES)("submodular objective", "objective", objective)
        lam = real_in(0.0)("submodular objective", "lam", lam)
        negative = [it.id for it in candidates if it.score < 0]
        if negative:
            raise ValueError(f"submodular objective: candidate(s) {negative!r} have negative scores; the "
                             f"objective needs scores >= 0 (pack never offers negative-scored candidates)")
        n = len(candidates)
        self.n, self.lam, self.sqrt = n, float(lam), objective == "sqrt"
        self.rel = relevance(np.array([it.score for it in candidates], dtype=np.float64))
        groups: dict[object, int] = {}
        self.group = np.array([groups.setdefault(("src", it.source) if it.source is not None else ("id", k),
                                                 len(groups)) for k, it in enumerate(candidates)], dtype=np.int64)
        self.n_groups = len(groups)
        if self.lam > 0 and n:
            sim = similarity_matrix(list(candidates) + list(pinned), similarity)
            self.sim = np.ascontiguousarray(sim[:n, :n])
            self.base_cover = sim[n:, :n].max(axis=0) if len(pinned) else np.zeros(n)
        else:
            self.sim, self.base_cover = None, np.zeros(n)

    def _phi(self, x):
        return np.sqrt(x) if self.sqrt else x

    def value(self, chosen: Sequence[int]) -> float:
        """f(S) for S = the candidate positions in `chosen`."""
        chosen = np.asarray(sorted(set(chosen)), dtype=np.int64)
        sums = np.bincount(self.group[chosen], weights=self.rel[chosen], minlength=self.n_groups)
        total = float(self._phi(sums).sum())
        if self.sim is not None:
            cover = self.base_cover
            if chosen.size:
                cover = np.maximum(cover, self.sim[chosen].max(axis=0))
            total += self.lam * float(cover.sum())
        return total

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        """The running state of the empty set: (per-source relevance sums, coverage vector)."""
        return np.zeros(self.n_groups), self.base_cover.copy()

    def gain(self, k: int, sums: np.ndarray, cover: np.ndarray) -> float:
        """f(S + k) - f(S) for the set S whose state is (sums, cover)."""
        g = self.group[k]
        out = float(self._phi(sums[g] + self.rel[k]) - self._phi(sums[g]))
        if self.sim is not None:
            out += self.lam * float(np.maximum(self.sim[k] - cover, 0.0).sum())
        return out

    def gains(self, sums: np.ndarray, cover: np.ndarray, ks: np.ndarray | None = None) -> np.ndarray:
        """`gain` of every candidate (or of those in `ks`) at once: the same arithmetic, row by row."""
        group, rel, sim = (self.group, self.rel, self.sim) if ks is None else (
            self.group[ks], self.rel[ks], None if self.sim is None else self.sim[ks])
        out = self._phi(sums[group] + rel) - self._phi(sums[group])
        if sim is not None:
            # ``max(sim - cover, 0)`` in one buffer (the fancy-indexed rows are a copy): one temporary, not two.
            diff = np.subtract(sim, cover[None, :], out=sim if ks is not None else None)
            out = out + self.lam * np.maximum(diff, 0.0, out=diff).sum(axis=1)
        return out

    def single_values(self) -> np.ndarray:
        """f({k}) for every candidate k at once, as `value([k])` computes it."""
        out = self._phi(self.rel)
        if self.sim is not None:
            out = out + self.lam * np.maximum(self.base_cover[None, :], self.sim).sum(axis=1)
        return out

    def add(self, k: int, sums: np.ndarray, cover: np.ndarray) -> None:
        """Update the state (in place) with candidate k."""
        sums[self.group[k]] += self.rel[k]
        if self.sim is not None:
            np.maximum(cover, self.sim[k], out=cover)


def objective_value(items: Sequence[Item], candidates: Sequence[Item] | None = None, *, lam: float = 0.5,
                    similarity: Similarity = "jaccard", objective: str = "sqrt") -> float:
    """f of a chosen set, for experiments (e.g. ``objective_value(packing, all_items)``).

    Args:
        items: The chosen items; those with ``pinned=True`` count as pinned.
        candidates: The pool C that sets the score normalisation and the
            coverage targets (its pinned items are ignored); defaults to the
            non-pinned `items`.
        lam: Weight of coverage, >= 0.
        similarity: "jaccard", "tfidf" or a callable.
        objective: "sqrt" or "linear".

    Returns:
        f(S) as defined in the module docstring.

    Raises:
        ValueError: A chosen non-pinned item whose id is not in `candidates`,
            an unknown `objective`, a negative `lam`, or a non-pinned item with
            a negative score in the pool.
        TypeError: `lam` is not a finite number.
    """
    items = list(items)
    pinned = [it for it in items if it.pinned]
    chosen = [it for it in items if not it.pinned]
    pool = chosen if candidates is None else [it for it in candidates if not it.pinned]
    where = {it.id: k for k, it in enumerate(pool)}
    missing = [it.id for it in chosen if it.id not in where]
    if missing:
        raise ValueError(f"objective_value: chosen item(s) {missing!r} are not among the candidates")
    f = SubmodularObjective(pool, pinned, lam=lam, similarity=similarity, objective=objective)
    return f.value([where[it.id] for it in chosen])


class Submodular(Strategy):
    """Lazy cost-scaled greedy on f, then the better of that and the best single item.

    f is the objective of the module docstring. Guarantee, for ``r = 1``: the
    result is >= 0.405 * max f over budget-feasible sets (Tang, Tang, Lim, Ren
    and Yuan 2021, "Revisiting Modified Greedy Algorithm for Monotone Submodular
    Maximization with a Knapsack Constraint", SIGMETRICS / Proc. ACM Meas.
    Anal. Comput. Syst. 5(1); arXiv:2008.05391. The earlier bound
    (1 - 1/e) / 2 ~ 0.316 of Leskovec et al. 2007, "Cost-effective outbreak
    detection in networks", KDD, is for the better of unit-cost and
    cost-benefit greedy; Kulik, Schwartz and Shachnai 2021 show this algorithm
    cannot do better than 0.42945 in the worst case). For ``r != 1`` only the
    best-single part is guaranteed (>= OPT / n). Exact for f is NP-hard
    (it contains the knapsack: ``objective="linear"``, lam = 0).

    The objective value is reported in ``info["objective"]`` (and ``f(∅)`` in
    ``info["objective_empty"]``); ``upper_bound`` is the Dantzig bound on the
    additive score, so the certified score ratio stays available.

    Params:
        lam: Weight of the coverage term, >= 0.
        r: Cost exponent of the greedy ratio gain / tokens**r, in [0, 2].
        objective: "sqrt" (diminishing returns per source) or "linear".
        similarity: "jaccard", "tfidf", "cosine" or a callable, for coverage.
        top_k: Consider only the best-scored candidates (ties by id); then the
            pool C of the objective is those candidates.
        max_memory_mb: Cap on the similarity matrix (it is n x n float64 plus
            temporaries, counted by `similarity.matrix_bytes`); above it the
            strategy refuses with a ValueError naming the cap and the alternatives.
    """

    name = "submodular"
    DOMAINS = frozenset({"retrieval"})  # diversity among retrieved passages
    PARAMS = MappingProxyType({
        "lam": Param(0.5, real_in(0.0, 100.0), "weight of the facility-location coverage term"),
        "r": Param(1.0, real_in(0.0, 2.0), "greedy ratio gain / tokens**r (the 0.405 bound needs r = 1)"),
        "objective": Param("sqrt", one_of(*OBJECTIVES), "relevance per source: 'sqrt' or 'linear'"),
        "similarity": Param("jaccard", check_similarity,
                            "'jaccard', 'tfidf', 'cosine' (Item.embedding) or a callable (Item, Item) -> [0, 1]"),
        "top_k": Param(None, _none_or(int_in(1)), "consider only the top_k best-scored candidates (None: all)"),
        "max_memory_mb": Param(1024, int_in(1), "refuse when the similarity matrix would need more (MiB)"),
    })

    @staticmethod
    def warm_up() -> None:
        """Load the compiled greedy rounds before anything is timed (`submodular_kernel.warm_up`)."""
        _warm_up()

    def select(self, problem: Problem) -> Selection:
        p = self.params
        pool = list(range(len(problem.candidates)))
        if p["top_k"] is not None and p["top_k"] < len(pool):
            cands = problem.candidates
            pool = sorted(sorted(pool, key=lambda k: (-cands[k].score, cands[k].id))[:p["top_k"]])
        cands = [problem.candidates[k] for k in pool]
        room = problem.room
        n_items = len(cands) + len(problem.pinned)
        need = matrix_bytes(n_items, p["similarity"]) if p["lam"] > 0 else 0
        if need > p["max_memory_mb"] * 2**20:
            max_k = math.isqrt(p["max_memory_mb"] * 2**20 // (need // max(n_items * n_items, 1))) - len(problem.pinned)
            raise ValueError(f"submodular: the {n_items} x {n_items} similarity matrix needs "
                             f"{need / 2**20:,.0f} MiB, over max_memory_mb={p['max_memory_mb']}; pass "
                             f"top_k={max(max_k, 1)} (or fewer) to use only the best-scored candidates, raise "
                             f"max_memory_mb, or use strategy 'mmr' (O(n) memory with 'jaccard' or 'cosine')")
        f = SubmodularObjective(cands, problem.pinned, lam=p["lam"], similarity=p["similarity"],
                                objective=p["objective"])
        tokens = [it.tokens for it in cands]
        chosen = lazy_greedy(f, tokens, room, p["r"])
        value = f.value(chosen)
        singles = f.single_values().tolist() if cands else []
        fits = [k for k in range(len(cands)) if tokens[k] <= room]
        single_value, single = max(((singles[k], -k) for k in fits), default=(float("-inf"), 0))
        if single_value > value:
            chosen, value = [-single], single_value
        sel = bounded_selection(problem, [pool[k] for k in chosen])
        info = {"objective": value, "objective_empty": f.value([]), "lam": p["lam"], "r": p["r"], "pool": len(cands),
                "objective_kind": p["objective"], "similarity": similarity_name(p["similarity"])}
        return Selection(sel.indices, optimal=sel.optimal, upper_bound=sel.upper_bound, info=info)
