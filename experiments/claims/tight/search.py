"""Searching the chained coverage family's few continuous parameters (scipy differential evolution).

The search minimises the ratio the chain is designed to produce
(`coverage.predicted_ratio`, no `pack` call, a few ms per point) over the
block costs, values and water-filling tilts, with a fixed seed; the best point
is then built, run through the shipped `submodular` strategy via `pack` and
certified (`coverage.certify`). The reported ratio is the measured one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .coverage import ChainInstance, ChainParams, build_chain, certify, predicted_ratio, ratio_through_pack

__all__ = ["TightResult", "decode", "search_chain"]

# Tilts range over exp(-9)..exp(9): draining one block thousands of times sooner than by density is
# what the best points use (cover the small block first while the decoys' density stays at the big ones').
TILT_LOG = 9.0


@dataclass(frozen=True)
class TightResult:
    """The certified worst instance of one search.

    Attributes:
        params: Its parameters (rebuild with `build_chain`).
        ratio: f - f(empty) of the strategy over the optimum's, measured through `pack`.
        predicted: The ratio the design predicts (equal up to float rounding when the greedy follows the chain).
        certificate: `certify`'s figures.
        evaluations: Parameter points evaluated.
        instance: The built instance.
    """

    params: ChainParams
    ratio: float
    predicted: float
    certificate: dict
    evaluations: int
    instance: ChainInstance


BOUNDS = ((0.005, 0.3), (0.34, 0.499), (0.0, TILT_LOG))


def decode(x: np.ndarray, budget: int, step: int) -> ChainParams:
    """A search point (sigma, rho, log tilt) as `ChainParams` of the "pair + small block" family.

    Two big blocks of cost (1 - sigma) / 2 and value rho each, one small block of
    cost sigma and value 1 - 2 rho, drained exp(log tilt) times sooner than by density.
    """
    sigma, rho, tilt = (float(a) for a in x)
    big = (1.0 - sigma) / 2 * (1 - 1e-9)  # the three costs add up to at most 1 after rounding
    return ChainParams((big, big, sigma), (rho, rho, 1.0 - 2 * rho), budget, step,
                       tilt=(1.0, 1.0, float(np.exp(tilt))))


def search_chain(seed: int, *, budget: int = 2000, step: int = 10, maxiter: int = 60,
                 popsize: int = 12, polish: int = 2000) -> TightResult:
    """Differential evolution over one family size, then the measured, certified ratio of its best point.

    Args:
        seed: Seed of the search (the result is a function of it).
        budget: Token budget of the instances.
        step: Tokens per decoy.
        maxiter: Differential-evolution generations.
        popsize: Population multiplier (scipy's ``popsize``).
        polish: Nelder-Mead iterations from the evolution's best point (0: none).

    Returns:
        The certified worst instance found.
    """
    from scipy.optimize import differential_evolution, minimize

    count = 0
    lo, hi = np.array(BOUNDS).T

    def objective(x: np.ndarray) -> float:
        nonlocal count
        count += 1
        return predicted_ratio(decode(np.clip(x, lo, hi), budget, step))

    res = differential_evolution(objective, list(BOUNDS), seed=seed, maxiter=maxiter,
                                 popsize=popsize, tol=1e-10, polish=False, updating="immediate")
    x = res.x
    if polish:
        x = np.clip(minimize(objective, x, method="Nelder-Mead",
                             options={"maxiter": polish, "xatol": 1e-9, "fatol": 1e-11}).x, lo, hi)
    params = decode(x, budget, step)
    inst = build_chain(params)
    cert = certify(inst)
    ratio, _, _ = ratio_through_pack(inst)
    return TightResult(params, ratio, predicted_ratio(params), cert, count, inst)
