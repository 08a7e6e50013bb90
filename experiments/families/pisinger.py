"""Pisinger's knapsack classes (Pisinger 2005, "Where are the hard knapsack problems?").

Weights are item tokens and profits are item scores. With coefficient range R,
every class draws integer weights w uniformly in [1, R], then:

- uncorrelated: p uniform in [1, R]
- weakly_correlated: p uniform in [w - R/10, w + R/10], and p >= 1
- strongly_correlated: p = w + R/10
- inverse_strongly_correlated: p uniform in [1, R] and w = p + R/10 (so w is
  redrawn from p; this class is defined from the profits)
- almost_strongly_correlated: p uniform in [w + R/10 - R/500, w + R/10 + R/500]
- subset_sum: p = w

R must be a multiple of 10 so R/10 is an integer, as in the paper's
R = 1000 and 10000; bounds of the uniform draws are rounded inward.
The natural budget (``meta["budget"]``) is ``capacity_fraction`` of the total
weight, plus the pinned tokens.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.params import Param, int_in, one_of, real_in

from ..instances import Instance, Source
from .pinned import PINNED_PARAMS, pinned_items, word_text

__all__ = ["Pisinger", "PISINGER_CLASSES", "pisinger_weights_profits"]

PISINGER_CLASSES = ("uncorrelated", "weakly_correlated", "strongly_correlated",
                    "inverse_strongly_correlated", "almost_strongly_correlated", "subset_sum")


def _uniform_ints(rng: np.random.Generator, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Integers uniform in [ceil(lo), floor(hi)], elementwise."""
    lo_i = np.ceil(lo).astype(np.int64)
    hi_i = np.floor(hi).astype(np.int64)
    return rng.integers(lo_i, hi_i + 1)


def pisinger_weights_profits(cls: str, n: int, R: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw `n` (weight, profit) pairs of Pisinger class `cls`.

    Args:
        cls: One of `PISINGER_CLASSES`.
        n: Number of items.
        R: Coefficient range (a multiple of 10).
        rng: The random generator.

    Returns:
        (weights, profits), integer arrays of length n.

    Raises:
        ValueError: Unknown class or R not a positive multiple of 10.
    """
    if cls not in PISINGER_CLASSES:
        raise ValueError(f"unknown Pisinger class {cls!r}; valid: {', '.join(PISINGER_CLASSES)}")
    if R < 10 or R % 10:
        raise ValueError(f"family 'pisinger': parameter 'R' must be a multiple of 10 and >= 10, got {R!r}")
    tenth = R // 10
    w = rng.integers(1, R + 1, size=n)
    if cls == "uncorrelated":
        p = rng.integers(1, R + 1, size=n)
    elif cls == "weakly_correlated":
        p = _uniform_ints(rng, np.maximum(1, w - tenth), w + tenth)
    elif cls == "strongly_correlated":
        p = w + tenth
    elif cls == "inverse_strongly_correlated":
        p = rng.integers(1, R + 1, size=n)
        w = p + tenth
    elif cls == "almost_strongly_correlated":
        p = _uniform_ints(rng, w + tenth - R / 500, w + tenth + R / 500)
    else:  # subset_sum
        p = w.copy()
    return w.astype(np.int64), p.astype(np.int64)


class Pisinger(Source):
    """One Pisinger instance per seed, with short random word texts (never near-duplicates).

    Params:
        cls: The class name.
        n: Number of candidates.
        R: Coefficient range (multiple of 10).
        capacity_fraction: Natural budget as a share of the total weight.
        system_tokens, question_tokens: Pinned item sizes (0: none).
    """

    name = "pisinger"
    kind = "family"
    DOMAIN = "knapsack"
    PARAMS = MappingProxyType({
        "cls": Param("uncorrelated", one_of(*PISINGER_CLASSES), "Pisinger class"),
        "n": Param(50, int_in(1, 100_000), "number of candidates"),
        "R": Param(1000, int_in(10, 10**7), "coefficient range (multiple of 10)"),
        "capacity_fraction": Param(0.5, real_in(0.0, 1.0, lo_open=True), "natural budget / total weight"),
        **PINNED_PARAMS,
    })

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["R"] % 10:
            raise ValueError(f"family 'pisinger': parameter 'R' must be a multiple of 10, got {self.params['R']!r}")

    def instance_keys(self, seed: int) -> list[str]:
        return [f"seed={seed}"]

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        rng = np.random.default_rng([seed, 1])
        weights, profits = pisinger_weights_profits(p["cls"], p["n"], p["R"], rng)
        pinned = pinned_items(rng, p["system_tokens"], p["question_tokens"])
        width = len(str(p["n"] - 1))
        cands = [Item(f"i{k:0{width}d}", word_text(rng, 8), float(profits[k]), int(weights[k]))
                 for k in range(p["n"])]
        budget = math.floor(p["capacity_fraction"] * int(weights.sum())) + sum(i.tokens for i in pinned)
        # Ground truth is known: every candidate is its own group (no duplicates).
        yield Instance(key=f"seed={seed}", items=tuple(pinned + cands), groups={c.id: c.id for c in cands},
                       answers=None,
                       meta={"budget": budget, "cls": p["cls"]})
