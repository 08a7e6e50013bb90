"""The declared metric table: each metric once, with its row column, function, summaries and direction.

`ALL_METRICS` (in the spirit of ann-benchmarks' ``all_metrics``) declares each metric once: its row
column, the function that computes it from a `Measured` run, how the report aggregates it into summary
columns, a description, its unit, range and which way is better. Adding a metric is one `Metric` entry
here; the runner fills the column and the report summarises it.
"""

from __future__ import annotations

import enum
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np

from packbench.algorithms import Item, Packing

from .measures import Optimum, answer_recall, budget_utilisation, duplicate_leakage, positional_utility, score_ratio

__all__ = ["Measured", "Metric", "Better", "Aggregate", "ALL_METRICS"]


@dataclass(frozen=True)
class Measured:
    """What one measured run produced: the input of every metric function.

    Attributes:
        packing: The first of the run's `pack` results.
        candidates: Number of candidates of the instance (pinned excluded).
        budget: The token budget.
        optimum: What the score ratio divides by (a proven optimum or a certified bound).
        seconds: Wall time of each repeated call.
        groups: Ground-truth duplicate groups of the instance, or None.
        answers: Answer-bearing candidate ids, or None.
        curve: The position-attention curve of the config.
        cpu_seconds: Process CPU time of each repeated call (empty when not measured).
    """

    packing: Packing
    candidates: int
    budget: int
    optimum: Optimum
    seconds: tuple[float, ...]
    groups: Mapping[str, str] | None
    answers: frozenset[str] | None
    curve: str | Sequence[float]
    cpu_seconds: tuple[float, ...] = ()

    @property
    def reference(self) -> Optimum:
        """Deprecated: `optimum`."""
        warnings.warn("Measured.reference is deprecated; use Measured.optimum", DeprecationWarning, stacklevel=2)
        return self.optimum

    @cached_property
    def chosen(self) -> list[Item]:
        """The chosen candidates in context order (pinned excluded)."""
        return [it for it in self.packing if not it.pinned]

    @cached_property
    def score(self) -> float:
        """Candidate score of the packing."""
        return math.fsum(it.score for it in self.chosen)

    @cached_property
    def ratio(self) -> tuple[float, str]:
        return score_ratio(self.score, self.optimum)

    @cached_property
    def leakage(self) -> dict[str, object]:
        return duplicate_leakage(self.chosen, self.groups)

    @cached_property
    def positional(self) -> tuple[float, float]:
        return positional_utility(self.chosen, self.curve)


@dataclass(frozen=True)
class Aggregate:
    """One summary column derived from a metric.

    Attributes:
        column: The summary column, e.g. ``"ratio_mean"``.
        how: "mean", "min", "max", "median", "p95" or "all_exact" (the
            category "exact" when every value is, else "certified_lower_bound").
        scale: Factor applied after aggregating (e.g. 1e3 for seconds -> ms).
    """

    column: str
    how: str
    scale: float = 1.0


class Better(enum.StrEnum):
    """Which way a metric improves (read by the report, both regression gates and the bench)."""

    HIGHER = "higher"
    LOWER = "lower"


@dataclass(frozen=True)
class Metric:
    """A declared metric.

    Attributes:
        name: Its column in the result rows.
        function: Computes the value from a `Measured` run.
        aggregation: The summary columns the report derives from it (may be empty).
        description: One line for tables and docs.
        unit: What the value is measured in.
        range: (low, high) bounds of the value, None where unbounded; None for a category.
        better: `Better.HIGHER` or `Better.LOWER`; None for a category or a figure that is neither.
    """

    name: str
    function: Callable[[Measured], Any]
    aggregation: tuple[Aggregate, ...]
    description: str
    unit: str
    range: tuple[float | None, float | None] | None
    better: Better | None = None


_HI, _LO = Better.HIGHER, Better.LOWER  # short, for the table below

ALL_METRICS: Mapping[str, Metric] = MappingProxyType({m.name: m for m in (
    Metric("score_ratio", lambda m: m.ratio[0], (Aggregate("ratio_mean", "mean"), Aggregate("ratio_worst", "min")),
           "candidate score over the reference optimum or a certified bound on it", "ratio", (0.0, 1.0), _HI),
    Metric("ratio_kind", lambda m: m.ratio[1], (Aggregate("ratio_kind", "all_exact"),),
           "exact (against a proven optimum) or certified_lower_bound", "category", None),
    Metric("seconds_median", lambda m: float(np.median(m.seconds)),
           (Aggregate("runtime_median_ms", "median", 1e3), Aggregate("runtime_p95_ms", "p95", 1e3)),
           "median wall time of the repeated pack calls", "s", (0.0, None), _LO),
    Metric("cpu_seconds_median", lambda m: float(np.median(m.cpu_seconds)) if m.cpu_seconds else None,
           (Aggregate("cpu_median_ms", "median", 1e3),), "median process CPU time of the repeated pack calls",
           "s", (0.0, None), _LO),
    # The least CPU time of the repeats: interference only ever adds time, so the minimum moves least with load.
    Metric("cpu_seconds_min", lambda m: float(min(m.cpu_seconds)) if m.cpu_seconds else None, (),
           "least process CPU time of the repeated pack calls (what latency classes rest on)", "s", (0.0, None), _LO),
    Metric("seconds_p95", lambda m: float(np.percentile(m.seconds, 95)), (),
           "95th percentile wall time of the repeated pack calls", "s", (0.0, None), _LO),
    Metric("leak_items", lambda m: m.leakage["leak_items"], (),
           "share of chosen items that duplicate an earlier chosen item", "share of items", (0.0, 1.0), _LO),
    Metric("leak_tokens", lambda m: m.leakage["leak_tokens"], (Aggregate("leak_tokens_mean", "mean"),),
           "share of chosen tokens that duplicate an earlier chosen item", "share of tokens", (0.0, 1.0), _LO),
    Metric("leak_detector", lambda m: m.leakage["leak_detector"], (),
           "how duplicates were recognised (ground truth or containment)", "category", None),
    Metric("utilisation", lambda m: budget_utilisation(m.packing.tokens, m.budget),
           (Aggregate("utilisation_mean", "mean"),), "tokens used (pinned included) over the budget",
           "share of budget", (0.0, 1.0)),
    # Only a peer adapter can go over the budget (pack raises for packbench's own strategies); the
    # packing is what the peer chose, so the violation is counted here, never hidden.
    Metric("budget_violation", lambda m: m.packing.tokens > m.budget, (Aggregate("budget_violations", "sum"),),
           "the packing uses more tokens than the budget (a peer's own overflow)", "bool", (0.0, 1.0), _LO),
    Metric("over_tokens", lambda m: max(0, m.packing.tokens - m.budget), (Aggregate("over_tokens_max", "max"),),
           "tokens over the budget (0 when within)", "tokens", (0.0, None), _LO),
    Metric("utility", lambda m: m.positional[0], (),
           "position-weighted utility: sum of attention weight x score", "score", (0.0, None), _HI),
    Metric("order_efficiency", lambda m: m.positional[1], (),
           "utility over the best utility any order of the chosen items reaches", "ratio", (0.0, 1.0), _HI),
    Metric("answer_recall", lambda m: answer_recall([it.id for it in m.chosen], m.answers),
           (Aggregate("answer_recall_mean", "mean"),),
           "1 when an answer-bearing candidate is in the context (None when unlabelled)", "share", (0.0, 1.0), _HI),
    Metric("limit_kind", lambda m: m.packing.info.get("limit_kind"), (),
           "how the solver's time limit is measured: wall (machine-dependent), deterministic or work"
           " (exact's work_limit)", "category", None),
    Metric("tie_break", lambda m: m.packing.info.get("tie_break"), (),
           "how `exact` chose among equal optima: lex (earliest candidates), pareto (the first the Pareto-list"
           " DP proves), core (the expanding-core search's) or none (the proving solver's set: it can differ"
           " between runs)", "category", None),
)})
