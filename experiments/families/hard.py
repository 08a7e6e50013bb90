"""Hard knapsack families: Pisinger's 2005 hard classes and Jooken, Leyman & De Causmaecker's 2022 class.

Weights are item tokens and profits are item scores.

Pisinger (2005, "Where are the hard knapsack problems?", Computers & Operations
Research 32(9)), weights w uniform in [1, R]:

- ``spanner_uncorrelated`` / ``spanner_weakly_correlated`` /
  ``spanner_strongly_correlated`` (span(v, m)): a spanner set of v items is
  drawn from the named base class, each normalised by dividing weight and
  profit by m + 1 (rounded up, so they stay >= 1); every instance item is a
  spanner item chosen uniformly, times a multiplier a uniform in [1, m].
  The paper's hardest setting is v = 2, m = 10.
- ``multiple_strongly_correlated`` (mstr(k1, k2, d)): p = w + k1 when d
  divides w, otherwise p = w + k2; the paper uses k1 = 3R/10, k2 = 2R/10, d = 6.
- ``profit_ceiling`` (pceil(d)): p = d * ceil(w / d), with d = 3.
- ``circle`` (circle(d)): p = d * sqrt(4 R^2 - (w - 2R)^2) (rounded down), with
  d = 2/3: profits on an arc of an ellipse.

The capacity is ``capacity_fraction`` of the total weight (the paper's
instance h of H = 100 uses h / (H + 1)).

Jooken, Leyman & De Causmaecker (2022, "A new class of hard problem instances
for the 0-1 knapsack problem", EJOR 301(3)): capacity c, g groups. Groups
j = 1..g-1 hold (n - floor(f n)) // (g - 1) items each, whose profit and
weight are independently floor((1/2^j + eps) * c) plus an integer uniform in
[1, s]; the last group holds the remaining (about f n) items with profit and
weight uniform in [1, s]. The paper's grid: n in 400..1200, c in 10^5..10^10,
g in 2..10 (2..14 for larger c), f in {0.1, 0.2, 0.3}, eps in {0, 10^-5, ..., 0.1},
s in {100, 200, 300}.
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

__all__ = ["PisingerHard", "Jooken", "HARD_CLASSES", "pisinger_hard_weights_profits", "jooken_weights_profits"]

HARD_CLASSES = ("spanner_uncorrelated", "spanner_weakly_correlated", "spanner_strongly_correlated",
                "multiple_strongly_correlated", "profit_ceiling", "circle")


def _base_pairs(base: str, v: int, R: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """v (weight, profit) pairs of an uncorrelated, weakly or strongly correlated class."""
    tenth = R // 10
    w = rng.integers(1, R + 1, size=v)
    if base == "uncorrelated":
        p = rng.integers(1, R + 1, size=v)
    elif base == "weakly_correlated":
        p = np.maximum(1, w + rng.integers(-tenth, tenth + 1, size=v))
    else:
        p = w + tenth
    return w, p


def pisinger_hard_weights_profits(cls: str, n: int, R: int, rng: np.random.Generator, *, v: int = 2,
                                  m: int = 10, k1: float = 0.3, k2: float = 0.2, divisor: int = 6,
                                  ceiling: int = 3, arc: float = 2 / 3) -> tuple[np.ndarray, np.ndarray]:
    """Draw `n` (weight, profit) pairs of one of Pisinger's hard classes (`HARD_CLASSES`).

    Args:
        cls: The class.
        n: Number of items.
        R: Coefficient range (a multiple of 10).
        rng: The random generator.
        v, m: Spanner set size and multiplier limit.
        k1, k2: mstr's profit offsets as shares of R.
        divisor: mstr's d.
        ceiling: pceil's d.
        arc: circle's d.

    Returns:
        (weights, profits), int64 arrays of length n.
    """
    if cls not in HARD_CLASSES:
        raise ValueError(f"unknown hard class {cls!r}; valid: {', '.join(HARD_CLASSES)}")
    if cls.startswith("spanner_"):
        sw, sp = _base_pairs(cls[len("spanner_"):], v, R, rng)
        sw, sp = -(-sw // (m + 1)), -(-sp // (m + 1))
        pick = rng.integers(0, v, size=n)
        mult = rng.integers(1, m + 1, size=n)
        return (mult * sw[pick]).astype(np.int64), (mult * sp[pick]).astype(np.int64)
    w = rng.integers(1, R + 1, size=n).astype(np.int64)
    if cls == "multiple_strongly_correlated":
        p = np.where(w % divisor == 0, w + math.floor(k1 * R), w + math.floor(k2 * R))
    elif cls == "profit_ceiling":
        p = ceiling * -(-w // ceiling)
    else:  # circle
        p = np.floor(arc * np.sqrt(4.0 * R * R - (w - 2.0 * R) ** 2))
    return w, np.maximum(p, 1).astype(np.int64)


def jooken_weights_profits(n: int, c: int, g: int, f: float, eps: float, s: int,
                           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw the `n` (weight, profit) pairs of a Jooken et al. (2022) instance of capacity `c`.

    Returns:
        (weights, profits), int64 arrays of length n, in group order.
    """
    small = math.floor(n * f)
    per_group = (n - small) // (g - 1)
    w_parts, p_parts = [], []
    for j in range(1, g):
        base = math.floor((1 / 2**j + eps) * c)
        p_parts.append(base + rng.integers(1, s + 1, size=per_group))
        w_parts.append(base + rng.integers(1, s + 1, size=per_group))
    rest = n - per_group * (g - 1)
    p_parts.append(rng.integers(1, s + 1, size=rest))
    w_parts.append(rng.integers(1, s + 1, size=rest))
    return np.concatenate(w_parts).astype(np.int64), np.concatenate(p_parts).astype(np.int64)


def _instance(rng: np.random.Generator, weights: np.ndarray, profits: np.ndarray, budget_room: int,
              params: dict[str, Any], meta: dict[str, Any]) -> Instance:
    pinned = pinned_items(rng, params["system_tokens"], params["question_tokens"])
    width = len(str(len(weights) - 1))
    cands = [Item(f"i{k:0{width}d}", word_text(rng, 8), float(profits[k]), int(weights[k]))
             for k in range(len(weights))]
    budget = budget_room + sum(i.tokens for i in pinned)
    return Instance(key=meta.pop("key"), items=tuple(pinned + cands), groups={c.id: c.id for c in cands},
                    answers=None, meta={"budget": budget, **meta})


class PisingerHard(Source):
    """One instance of a Pisinger (2005) hard class per seed; the natural budget is a share of the total weight.

    Params:
        cls: One of `HARD_CLASSES`.
        n, R: Number of candidates and coefficient range (multiple of 10).
        capacity_fraction: Natural budget / total weight.
        v, m: Spanner set size and multiplier limit (spanner classes).
        k1, k2, divisor: mstr(k1 R, k2 R, divisor).
        ceiling: pceil's d.  arc: circle's d.
        system_tokens, question_tokens: Pinned item sizes (0: none).
    """

    name = "pisinger_hard"
    kind = "family"
    DOMAIN = "knapsack"
    PARAMS = MappingProxyType({
        "cls": Param("spanner_uncorrelated", one_of(*HARD_CLASSES), "Pisinger hard class"),
        "n": Param(50, int_in(1, 100_000), "number of candidates"),
        "R": Param(1000, int_in(10, 10**7), "coefficient range (multiple of 10)"),
        "capacity_fraction": Param(0.5, real_in(0.0, 1.0, lo_open=True), "natural budget / total weight"),
        "v": Param(2, int_in(1, 1000), "spanner set size"),
        "m": Param(10, int_in(1, 1000), "spanner multiplier limit"),
        "k1": Param(0.3, real_in(-1.0, 1.0), "mstr: profit offset (share of R) when divisor divides w"),
        "k2": Param(0.2, real_in(-1.0, 1.0), "mstr: profit offset (share of R) otherwise"),
        "divisor": Param(6, int_in(1, 10**6), "mstr: d"),
        "ceiling": Param(3, int_in(1, 10**6), "pceil: d"),
        "arc": Param(2 / 3, real_in(0.0, 10.0, lo_open=True), "circle: d"),
        **PINNED_PARAMS,
    })

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["R"] % 10:
            raise ValueError(f"family 'pisinger_hard': parameter 'R' must be a multiple of 10, "
                             f"got {self.params['R']!r}")

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        rng = np.random.default_rng([seed, 2])
        w, pr = pisinger_hard_weights_profits(p["cls"], p["n"], p["R"], rng, v=p["v"], m=p["m"], k1=p["k1"],
                                              k2=p["k2"], divisor=p["divisor"], ceiling=p["ceiling"],
                                              arc=p["arc"])
        room = max(int(w.max()), math.floor(p["capacity_fraction"] * int(w.sum())))
        yield _instance(rng, w, pr, room, p, {"key": f"seed={seed}", "cls": p["cls"]})


class Jooken(Source):
    """One Jooken, Leyman & De Causmaecker (2022) instance per seed; the natural budget is the capacity c.

    Params:
        n: Number of candidates.  c: Capacity (the natural budget).
        g: Number of groups (>= 2).  f: Share of items in the last (small) group.
        eps: Extra share of c in every large item.  s: Perturbation range.
        system_tokens, question_tokens: Pinned item sizes (0: none).
    """

    name = "jooken"
    kind = "family"
    DOMAIN = "knapsack"
    PARAMS = MappingProxyType({
        "n": Param(400, int_in(2, 100_000), "number of candidates"),
        "c": Param(10**6, int_in(1, 10**12), "knapsack capacity (the natural budget)"),
        "g": Param(2, int_in(2, 60), "number of groups"),
        "f": Param(0.2, real_in(0.0, 1.0, hi_open=True), "share of items in the last (small) group"),
        "eps": Param(0.001, real_in(0.0, 1.0), "extra share of c in each large item"),
        "s": Param(300, int_in(1, 10**9), "perturbation: uniform integers in [1, s]"),
        **PINNED_PARAMS,
    })

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        if (p["n"] - math.floor(p["n"] * p["f"])) // (p["g"] - 1) < 1:
            raise ValueError(f"family 'jooken': n={p['n']} leaves no item per large group with "
                             f"g={p['g']} and f={p['f']}")

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        rng = np.random.default_rng([seed, 3])
        w, pr = jooken_weights_profits(p["n"], p["c"], p["g"], p["f"], p["eps"], p["s"], rng)
        yield _instance(rng, w, pr, p["c"], p, {"key": f"seed={seed}", "g": p["g"]})
