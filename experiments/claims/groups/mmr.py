"""Claim 6: MMR has no approximation guarantee, measured against its own objective.

MMR states no set objective, so the one it greedily builds is used: a
sequence x_1..x_m scores

    F(x_1..x_m) = sum_t [ lam * rel(x_t) - (1 - lam) * max_{s < t} sim(x_t, x_s) ]

(the sum of the MMR values of the picks, the first pick having no
redundancy). MMR's value is F of its own pick order; the optimum is the best F
over every budget-feasible set in its best order (the empty set scores 0).
For a set T the least total redundancy over its orders, g(T), satisfies
g(T) = min_{x in T} [ g(T - x) + max_{y in T - x} sim(x, y) ] (the last pick
pays against all the others), computed for all subsets of n <= 10 items at
once, one popcount layer at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..adversarial import SearchSpace
from ..checks import GroupOutput, Settings, claim_row
from ..core import TEXT_POOL, Case, items_of, measure, measure_table, subset_masks

__all__ = ["relevance_and_similarity", "mmr_sequence_value", "mmr_optimum", "mmr_claims", "MMR_MEASURES"]

SOURCE = "Carbonell & Goldstein (1998), SIGIR; no guarantee is claimed"
SPACE = SearchSpace(n_min=2, n_max=10, budget_max=30, texts=TEXT_POOL)
MIN_OPTIMUM = 0.05


def relevance_and_similarity(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """MMR's relevance (score / top score) and its default Jaccard similarity matrix for the case."""
    from packbench.algorithms.similarity import similarity_matrix
    from packbench.algorithms.strategies.mmr import relevance

    rel = relevance(np.array([it.score for it in case.items], dtype=float))
    return rel, np.asarray(similarity_matrix(list(case.items), "jaccard"), dtype=float)


def mmr_sequence_value(order: list[int], rel: np.ndarray, sim: np.ndarray, lam: float) -> float:
    """F of a pick sequence (positions into the case)."""
    total = 0.0
    for t, k in enumerate(order):
        total += lam * rel[k] - (1 - lam) * (max(sim[k, j] for j in order[:t]) if t else 0.0)
    return total


def mmr_optimum(case: Case, lam: float) -> float:
    """Best F over budget-feasible sets in their best order (0 for the empty set).

    Raises:
        ValueError: More than 12 items with non-zero similarities (too many subsets).
    """
    rel, sim = relevance_and_similarity(case)
    n = case.n
    tokens = np.array([it.tokens for it in case.items], dtype=float)
    off_diag = sim - np.diag(np.diag(sim))
    if not off_diag.any():  # no redundancy at all: F is additive, the knapsack on lam * rel
        from .knapsack import exact_optimum

        return exact_optimum(Case(items_of(lam * rel, tokens.astype(int)), case.budget))
    if n > 12:
        raise ValueError(f"MMR optimum by enumeration needs n <= 12, got {n}")
    masks = subset_masks(n)
    # most[U, x] = max_{y in U} sim(x, y), 0 for empty U (similarities are >= 0).
    most = np.max(masks[:, :, None] * off_diag[None, :, :], axis=1)
    sizes = masks.sum(axis=1).astype(int)
    ids = np.arange(2 ** n)
    g = np.zeros(2 ** n)
    for size in range(2, n + 1):
        layer = ids[sizes == size]
        best = np.full(layer.size, np.inf)
        for x in range(n):
            has = (layer >> x) & 1 == 1
            rest = layer[has] ^ (1 << x)
            best[has] = np.minimum(best[has], g[rest] + most[rest, x])
        g[layer] = best
    values = lam * (masks @ rel) - (1 - lam) * g
    feasible = masks @ tokens <= case.budget
    return float(max(0.0, np.max(np.where(feasible, values, -np.inf))))


@measure("mmr/optimum of its objective")
def _mmr(case: Case, params: Mapping[str, Any]):
    from packbench.algorithms.items import Problem
    from packbench.algorithms.strategies.mmr import MMR

    lam = params["lam"]
    sel = MMR(lam=lam).select(Problem(case.items, case.budget, ()))
    where = {it.id: k for k, it in enumerate(case.items)}
    order = [where[i] for i in sel.info["pick_order"]]
    rel, sim = relevance_and_similarity(case)
    opt = mmr_optimum(case, lam)
    # Relevance is normalised by the top score even when that item cannot fit; an optimum below
    # MIN_OPTIMUM * lam only measures that scale, so such cases are skipped as degenerate.
    return (mmr_sequence_value(order, rel, sim, lam), opt) if opt >= MIN_OPTIMUM * lam else None


MMR_MEASURES = measure_table(_mmr)


def mmr_claims(settings: Settings) -> GroupOutput:
    """Claim 6 for lam = 0.7 (the default) and 0.5."""
    out = GroupOutput()
    ws = [10, 20, 50, 100, 200] if settings.quick else [10, 20, 50, 100, 200, 500]
    for lam in (0.7, 0.5):
        # Distinct one-word texts: no shared shingles, so F is additive and the family's optimum is W units.
        family = [(f"W={w}", Case(items_of([1.0] + [0.99] * w, [w] + [1] * w,
                                           [f"doc{k}" for k in range(w + 1)]), w), 1 / (0.99 * w)) for w in ws]
        claim_row(f"6 lam={lam:g}", f"MMR (lam={lam:g}) has no approximation guarantee for its own objective F: "
                  "budget W, one item (1, W) and W items (0.99, 1), no overlap, give 1/(0.99 W).", SOURCE,
                  _mmr, {"lam": lam}, family, SPACE, settings, bound=None,
                  bound_text="none (1/(0.99W) -> 0)", out=out,
                  note="F = sum of MMR values along the pick order; optimum = best F over feasible sets in "
                       "their best order (exhaustive subset DP); a negative ratio means MMR ended with F < 0: it "
                       "keeps adding redundant items while they fit, each costing more redundancy than it adds; cases whose optimum is below 0.05 * lam (the relevance "
                       "scale set by an item that cannot fit) are skipped")
    return out
