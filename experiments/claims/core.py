"""Shared pieces of the claims run: cases, exact optima, verdicts, saved instances.

A *case* is one small knapsack-style instance (items + budget). Every claim
row compares what a heuristic achieves on cases against an exact optimum and
records the worst ratio, the case that achieved it and how many cases were
tried. Ratios are compared with the bound using `TOL` (absolute, on ratios
that are O(1)): float sums of the same set in a different order differ by a
few ulps, so a ratio is only called below its bound when it is below by more
than `TOL`.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.items import Problem

__all__ = ["TOL", "Case", "ClaimResult", "ClaimViolation", "HOLDS", "VIOLATED", "NOT_APPLICABLE", "VERDICTS",
           "brute_force_best", "brute_force_optimum", "subset_masks", "case_from_json", "case_to_json",
           "run_strategy", "strategy_value", "derive_rng", "below", "items_of", "measure", "measure_table",
           "TEXT_POOL"]

TOL = 1e-9
# A claim row's verdict: the claimed bound held on everything tried, was broken, or the claim does not
# apply to what this run can check (e.g. a group whose optional dependency is missing).
HOLDS, VIOLATED, NOT_APPLICABLE = "holds", "violated", "not applicable"
VERDICTS = (HOLDS, VIOLATED, NOT_APPLICABLE)

# Texts sharing word trigrams to different degrees, so coverage and redundancy matter (the
# submodular and MMR searches draw from it).
TEXT_POOL = (
    "refund window is thirty days from delivery",
    "refund window is thirty days from purchase",
    "the refund window is thirty days",
    "shipping is free on orders over fifty dollars",
    "shipping is free on all orders",
    "warranty lasts one year from delivery",
    "warranty lasts two years from delivery",
    "returns need a receipt and the original box",
    "returns need a receipt",
    "support is open every day from nine to five",
    "support is open on weekdays from nine to five",
    "gift cards never expire and cannot be refunded",
)

Measure = Callable[..., "tuple[float, float] | None"]


def measure(name: str) -> Callable[[Measure], Measure]:
    """Decorator naming a measure ``(case, params) -> (value, reference) | None``.

    The name is what a saved instance records so that `measures.rerun` finds
    the function again; it is written once, here on the function.
    """
    def mark(fn: Measure) -> Measure:
        fn.measure_name = name
        return fn
    return mark


def measure_table(*fns: Measure) -> dict[str, Measure]:
    """Name -> measure for named measures (see `measure`)."""
    return {fn.measure_name: fn for fn in fns}


class ClaimViolation(RuntimeError):
    """Raised after the report is written when a claimed bound was broken."""


@dataclass(frozen=True)
class Case:
    """One instance: items (all candidates, none pinned) and a token budget."""

    items: tuple[Item, ...]
    budget: int

    @property
    def n(self) -> int:
        """Number of items."""
        return len(self.items)


@dataclass
class ClaimResult:
    """One row of the claims table.

    Attributes:
        claim: Row id, e.g. ``"2a"``.
        statement: What is claimed, in one sentence.
        source: Author, year, theorem/table.
        bound: The claimed bound in words (e.g. ``">= 0.5"``).
        worst: Worst ratio observed (None when not applicable).
        instance: File name (under ``instances/``) of the case that achieved it, or "".
        tried: Number of instances evaluated.
        verdict: holds / violated / not applicable.
        note: How it was checked, or why it is not applicable.
        family: The textbook family's worst ratio, as text ("-" when none).
        search: The adversarial search's worst ratio, as text ("-" when none).
        records: File name -> JSON record of each saved instance (written by the report).
        margin: Worst ratio minus the claimed lower bound (how close the worst instance found comes to
            the bound; None when the claim has no numeric lower bound).
    """

    claim: str
    statement: str
    source: str
    bound: str
    worst: float | None
    instance: str
    tried: int
    verdict: str
    note: str = ""
    family: str = "-"
    search: str = "-"
    records: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    margin: float | None = None

    def __post_init__(self) -> None:
        # numpy scalars would print as "np.float64(...)" in the CSV.
        if self.worst is not None:
            self.worst = float(self.worst)
        if self.margin is not None:
            self.margin = float(self.margin)


def below(ratio: float, bound: float) -> bool:
    """True when `ratio` is below `bound` by more than the tolerance."""
    return ratio < bound - TOL


def derive_rng(seed: int, label: str) -> np.random.Generator:
    """A generator determined by the run seed and a stable label (no hash randomisation)."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), zlib.crc32(label.encode())]))


@lru_cache(maxsize=16)
def subset_masks(n: int) -> np.ndarray:
    """All 2**n subsets of n items as a read-only (2**n, n) 0/1 float matrix."""
    masks = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(float)
    masks.setflags(write=False)
    return masks


def brute_force_best(scores: Sequence[float], tokens: Sequence[int], room: int) -> float:
    """Best total score of any subset within `room` tokens, by enumerating all subsets.

    The one brute-force knapsack oracle of the project: the claims and the
    tests (tests/oracles.py) both use it. Negative scores never help (the
    empty set scores 0).

    Raises:
        ValueError: More than 20 items (2**n subsets would not fit in memory).
    """
    n = len(scores)
    if n > 20:
        raise ValueError(f"brute force needs n <= 20 items, got {n}")
    if n == 0:
        return 0.0
    masks = subset_masks(n)
    feasible = masks @ np.asarray(tokens, dtype=float) <= room
    return float(max(0.0, np.max(np.where(feasible, masks @ np.asarray(scores, dtype=float), 0.0))))


def brute_force_optimum(case: Case) -> float:
    """`brute_force_best` of a case's items and budget.

    Raises:
        ValueError: More than 16 items (the claims keep enumeration small).
    """
    if case.n > 16:
        raise ValueError(f"brute force needs n <= 16 items, got {case.n}")
    return brute_force_best([it.score for it in case.items], [it.tokens for it in case.items], case.budget)


def run_strategy(name: str, case: Case, **params: Any) -> list[int]:
    """Indices chosen by the registered strategy `name` on `case` (all items as candidates).

    The strategy is called directly on a `Problem`, bypassing `pack`'s dedupe,
    so texts never change which items the strategy sees.
    """
    from packbench.algorithms import STRATEGIES

    strategy = STRATEGIES[name](**params)
    chosen = list(strategy.select(Problem(case.items, case.budget, ())).indices)
    used = sum(case.items[k].tokens for k in chosen)
    if used > case.budget:
        raise RuntimeError(f"strategy {name!r} chose {used} tokens for a budget of {case.budget}")
    return chosen


def strategy_value(name: str, case: Case, **params: Any) -> float:
    """Total score of the set the registered strategy `name` chooses on `case`."""
    return math.fsum(case.items[k].score for k in run_strategy(name, case, **params))


def case_to_json(case: Case) -> dict[str, Any]:
    """The case as a JSON-serialisable dict (floats round-trip exactly)."""
    items = []
    for it in case.items:
        row: dict[str, Any] = {"id": it.id, "text": it.text, "score": it.score, "tokens": it.tokens}
        if it.source is not None:
            row["source"] = it.source
        items.append(row)
    return {"budget": case.budget, "items": items}


def case_from_json(obj: dict[str, Any]) -> Case:
    """Inverse of `case_to_json`.

    Raises:
        ValueError: Missing ``budget``/``items`` or an invalid item (message names it).
    """
    if not isinstance(obj, dict) or "budget" not in obj or "items" not in obj:
        raise ValueError("a saved case needs 'budget' and 'items'")
    items: list[Item] = []
    for pos, row in enumerate(obj["items"]):
        try:
            items.append(Item(**row))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"items[{pos}]: {exc}") from None
    return Case(tuple(items), int(obj["budget"]))


def items_of(scores: Sequence[float], tokens: Sequence[int], texts: Sequence[str] | None = None,
             sources: Sequence[str | None] | None = None) -> tuple[Item, ...]:
    """Items ``x0, x1, ...`` from parallel lists (texts default to the id)."""
    out = []
    for k, (s, t) in enumerate(zip(scores, tokens)):
        text = texts[k] if texts is not None else f"x{k}"
        src = sources[k] if sources is not None else None
        out.append(Item(f"x{k}", text, float(s), int(t), source=src))
    return tuple(out)

