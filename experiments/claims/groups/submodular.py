"""Claim 5: budgeted monotone submodular maximisation (greedy + best singleton >= 0.405).

The objective is the `submodular` strategy's own (`SubmodularObjective`). The
exact optimum enumerates every subset of n <= 12 items at once in numpy
(per-source sums as one matrix product, coverage as a max over a
subsets x items x items array), then re-evaluates the best subset with the
objective's own `value` and refuses to go on if the two disagree. A monotone
objective has its optimum at a maximal feasible set, but enumerating all sets
is simpler and still fast at this size. With ``objective="linear"`` and lam = 0
the objective is additive, so large families use the exact knapsack DP.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..adversarial import SearchSpace
from ..checks import GroupOutput, Settings, claim_row
from ..core import TEXT_POOL, TOL, Case, items_of, measure, measure_table, subset_masks

__all__ = ["objective_for", "submodular_optimum", "subset_objective_values", "submodular_claims", "SUBMODULAR_MEASURES"]

TANG = ("Tang, Tang, Lim, Ren & Yuan (2021), SIGMETRICS, arXiv:2008.05391; constant in [0.427, 0.4295] "
        "per Feldman, Nutov & Shoham (2021) and Kulik, Schwartz & Shachnai (2021)")
LESKOVEC = "Leskovec et al. (2007), KDD, Thm. 2"

SPACE = SearchSpace(n_min=2, n_max=10, budget_max=30, sources=("a", "b", "c"), texts=TEXT_POOL)


def objective_for(case: Case, params: Mapping[str, Any]):
    """The `submodular` strategy's objective over the case's items (params: lam, objective)."""
    from packbench.algorithms.strategies.submodular import SubmodularObjective

    return SubmodularObjective(case.items, (), lam=params.get("lam", 0.5), objective=params.get("objective", "sqrt"))


def subset_objective_values(f, masks: np.ndarray) -> np.ndarray:
    """f(S) of every subset S given by `masks` (row m = the bits of m), vectorised.

    Coverage of subset m is built from m without its highest bit, one bit level
    at a time, so no (2**n, n, n) array is ever formed.

    Args:
        f: A `SubmodularObjective` over n candidates.
        masks: `subset_masks(n)`.

    Returns:
        One objective value per row of `masks`.
    """
    n = masks.shape[1]
    onehot = np.zeros((n, f.n_groups))
    onehot[np.arange(n), f.group] = f.rel
    sums = masks @ onehot
    total = (np.sqrt(sums) if f.sqrt else sums).sum(axis=1)
    if f.sim is not None:
        cover = np.empty((2 ** n, n))
        cover[0] = f.base_cover
        for b in range(n):
            cover[2 ** b:2 ** (b + 1)] = np.maximum(cover[:2 ** b], f.sim[b])
        total = total + f.lam * cover.sum(axis=1)
    return total


def submodular_optimum(case: Case, params: Mapping[str, Any]) -> float:
    """Exact max of the strategy's objective over budget-feasible subsets.

    Raises:
        ValueError: n > 12 for a non-additive objective.
        RuntimeError: The vectorised value disagrees with the objective's own `value`.
    """
    f = objective_for(case, params)
    tokens = np.array([it.tokens for it in case.items], dtype=float)
    if case.n > 12:
        if params.get("objective") == "linear" and f.sim is None:
            from .knapsack import exact_optimum

            rel_case = Case(items_of(f.rel, tokens.astype(int)), case.budget)
            return exact_optimum(rel_case)
        raise ValueError(f"submodular optimum by enumeration needs n <= 12, got {case.n}")
    values = subset_objective_values(f, subset_masks(case.n))
    feasible = subset_masks(case.n) @ tokens <= case.budget
    best = int(np.argmax(np.where(feasible, values, -np.inf)))
    check = f.value([k for k in range(case.n) if best >> k & 1])
    if abs(check - values[best]) > TOL * max(1.0, abs(check)):
        raise RuntimeError(f"vectorised objective {values[best]!r} != SubmodularObjective.value {check!r}")
    return float(check)


@measure("submodular/optimum")
def _strategy(case: Case, params: Mapping[str, Any]):
    from packbench.algorithms.items import Problem
    from packbench.algorithms.strategies.submodular import Submodular

    sel = Submodular(lam=params.get("lam", 0.5), objective=params.get("objective", "sqrt"), r=1.0).select(
        Problem(case.items, case.budget, ()))
    opt = submodular_optimum(case, params)
    return (float(sel.info["objective"]), opt) if opt > 0 else None


def _greedy_alone(case: Case, params: Mapping[str, Any], r: float) -> float:
    from packbench.algorithms.strategies.submodular import lazy_greedy

    f = objective_for(case, params)
    return f.value(lazy_greedy(f, [it.tokens for it in case.items], case.budget, r))


@measure("cost_benefit_greedy/optimum")
def _cost_benefit(case: Case, params: Mapping[str, Any]):
    opt = submodular_optimum(case, params)
    return (_greedy_alone(case, params, 1.0), opt) if opt > 0 else None


@measure("unit_cost_greedy/optimum")
def _unit_cost(case: Case, params: Mapping[str, Any]):
    opt = submodular_optimum(case, params)
    return (_greedy_alone(case, params, 0.0), opt) if opt > 0 else None


@measure("max(unit_cost, cost_benefit greedy)/optimum")
def _better_of_two(case: Case, params: Mapping[str, Any]):
    opt = submodular_optimum(case, params)
    value = max(_greedy_alone(case, params, 0.0), _greedy_alone(case, params, 1.0))
    return (value, opt) if opt > 0 else None


SUBMODULAR_MEASURES = measure_table(_strategy, _cost_benefit, _unit_cost, _better_of_two)


def _case(pairs: list[tuple[float, int]], budget: int) -> Case:
    return Case(items_of([s for s, _ in pairs], [t for _, t in pairs]), budget)


def submodular_claims(settings: Settings) -> GroupOutput:
    """Claims 5a (three objectives), 5b (cost-benefit alone), 5c (unit-cost alone), 5d (Leskovec)."""
    out = GroupOutput()
    ms = [2, 3, 5, 10, 30, 100] if settings.quick else [2, 3, 5, 10, 30, 100, 1000]
    linear = {"objective": "linear", "lam": 0.0}
    tight = [(f"M={m}", _case([(2, 1), (m, m), (m, m)], 2 * m), (m + 2) / (2 * m)) for m in ms]
    for label, params, family in (("sqrt, lam=0.5", {"objective": "sqrt", "lam": 0.5}, []),
                                  ("sqrt, lam=0", {"objective": "sqrt", "lam": 0.0}, []),
                                  ("linear, lam=0", linear, tight)):
        claim_row(f"5a {label}", f"submodular (lazy cost-benefit greedy + best singleton, r=1) >= 0.405 * "
                  f"optimum of its objective ({label}).", TANG, _strategy, params, family, SPACE,
                  settings, bound=0.405, bound_text=">= 0.405", out=out,
                  note="linear, lam=0 is the knapsack, whose tight family gives (M+2)/(2M)" if family else "")
    ws = [10, 30, 100, 300, 1000] if settings.quick else [10, 30, 100, 300, 1000, 3000]
    claim_row("5b", "Cost-benefit greedy alone (gain/tokens, no best singleton) has no constant bound: "
              "budget W, items (2,1), (W,W) give 2/W.", LESKOVEC, _cost_benefit, linear,
              [(f"W={w}", _case([(2, 1), (w, w)], w), 2 / w) for w in ws], SPACE, settings,
              bound=None, bound_text="none (2/W -> 0)", out=out)
    wu = [10, 20, 50, 100, 200] if settings.quick else [10, 20, 50, 100, 200, 500]
    claim_row("5c", "Unit-cost greedy alone (largest gain first) has no constant bound: budget W, one item "
              "(1+d, W), W items (1,1) give (1+d)/W.", LESKOVEC, _unit_cost, linear,
              [(f"W={w}, d=0.5", _case([(1.5, w)] + [(1, 1)] * w, w), 1.5 / w) for w in wu], SPACE, settings,
              bound=None, bound_text="none ((1+d)/W -> 0)", out=out)
    claim_row("5d", "Better of unit-cost and cost-benefit greedy >= (1 - 1/e)/2 * optimum.", LESKOVEC,
              _better_of_two, {"objective": "sqrt", "lam": 0.5}, [], SPACE,
              settings, bound=(1 - 1 / math.e) / 2, bound_text=f">= (1-1/e)/2 = {(1 - 1 / math.e) / 2:.4f}",
              out=out)
    return out
