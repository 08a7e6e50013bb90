"""The greedy trap families: instances where a simple heuristic scores far below the optimum.

- density: items (score 2, 1 token) and (W, W), budget W. Density greedy takes
  the small item first, then the big one no longer fits: 2 against W.
- value: one item (10, 100) and ten (9, 10), budget 100. The score-descending
  prefix loop takes the big item and stops: 10 against 90.
- half: items (2, 1), (M, M), (M, M), budget 2M. Greedy and "best single then
  greedy" both reach M + 2 against 2M, a ratio (M + 2) / (2M) that tends to 1/2:
  the best-single fix's guarantee is tight.

The budget is fixed by the trap (``meta["budget"]``, pinned tokens added), so
configs use ``budgets = ["natural"]`` for this family. ``meta["optimum"]`` is
the known optimal candidate score.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.params import Param, int_in, one_of

from ..instances import Instance, Source
from .pinned import PINNED_PARAMS, pinned_items, word_text

__all__ = ["Traps", "TRAPS", "trap_items"]

TRAPS = ("density", "value", "half")


def trap_items(trap: str, W: int, M: int) -> tuple[list[tuple[float, int]], int, float]:
    """The (score, tokens) pairs, budget and optimum of one trap.

    Args:
        trap: One of `TRAPS`.
        W: Budget of the density trap.
        M: Size parameter of the half trap.

    Returns:
        (pairs, budget, optimal score).

    Raises:
        ValueError: Unknown trap name.
    """
    if trap == "density":
        return [(2.0, 1), (float(W), W)], W, float(max(W, 2))
    if trap == "value":
        return [(10.0, 100)] + [(9.0, 10)] * 10, 100, 90.0
    if trap == "half":
        return [(2.0, 1), (float(M), M), (float(M), M)], 2 * M, float(2 * M)
    raise ValueError(f"unknown trap {trap!r}; valid: {', '.join(TRAPS)}")


class Traps(Source):
    """One trap instance per seed (the seed only changes the item texts).

    Params:
        trap: "density", "value" or "half".
        W: Budget of the density trap (>= 2).
        M: Size of the half trap (>= 3).
        system_tokens, question_tokens: Pinned item sizes.
    """

    name = "traps"
    kind = "family"
    DOMAIN = "knapsack"
    PARAMS = MappingProxyType({
        "trap": Param("density", one_of(*TRAPS), "which trap"),
        "W": Param(1000, int_in(2, 10**7), "budget of the density trap"),
        "M": Param(10, int_in(3, 10**7), "size of the half trap: ratio (M+2)/(2M)"),
        **PINNED_PARAMS,
    })

    def instance_keys(self, seed: int) -> list[str]:
        return [f"seed={seed}"]

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        rng = np.random.default_rng([seed, 3])
        pairs, budget, optimum = trap_items(p["trap"], p["W"], p["M"])
        pinned = pinned_items(rng, p["system_tokens"], p["question_tokens"])
        # Distinct texts, so dedupe never merges the identical-looking copies.
        cands = [Item(f"t{k:02d}", f"trap item {k} " + word_text(rng, 6), score, tokens)
                 for k, (score, tokens) in enumerate(pairs)]
        yield Instance(key=f"seed={seed}", items=tuple(pinned + cands), groups={c.id: c.id for c in cands},
                       answers=None, meta={"budget": budget + sum(i.tokens for i in pinned),
                                           "optimum": optimum, "trap": p["trap"]})
