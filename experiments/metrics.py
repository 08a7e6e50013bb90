"""Per-run metrics and the declared metric table that the runner and the report read.

All metrics look at the chosen candidates only (pinned items excluded), in the
order the packing returns them. `ALL_METRICS` (in the spirit of
ann-benchmarks' ``all_metrics``) declares each metric once: its row column,
the function that computes it from a `Measured` run, how the report
aggregates it into summary columns, a description, its unit and range.
Adding a metric is one `Metric` entry here; the runner fills the column and
the report summarises it.
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

from packbench.algorithms import DEDUPE_METHODS, Item, Packing
from packbench.algorithms.bounds import dantzig_bound
from packbench.algorithms.dedupe import shingles, words
from packbench.algorithms.orders import curves

__all__ = ["Metric", "Better", "Aggregate", "Measured", "ALL_METRICS", "Optimum", "score_ratio", "duplicate_leakage",
           "containment_leaks", "position_weights", "positional_utility", "answer_recall", "budget_utilisation", "certified_bound",
           "LEAK_GROUND_TRUTH", "LEAK_DETECTOR"]

LEAK_GROUND_TRUTH = "ground_truth"
LEAK_DETECTOR = "word5_containment>=0.8"


@dataclass(frozen=True)
class Optimum:
    """The best candidate score a run is held against: what the score ratio divides by.

    Attributes:
        value: The optimal candidate score when `proven`, else a certified upper bound on it.
        proven: True when `value` is a proven optimum (the ratio is then exact, not a lower bound).
        source: Where it came from, e.g. ``"exact_dp"`` (the config's reference strategy) or
            ``"dantzig_bound"``.
    """

    value: float
    proven: bool
    source: str

    @property
    def exact(self) -> bool:
        """Deprecated: `proven`."""
        warnings.warn("Optimum.exact is deprecated; use Optimum.proven", DeprecationWarning, stacklevel=2)
        return self.proven


def score_ratio(score: float, optimum: Optimum) -> tuple[float, str]:
    """Candidate score over the optimum.

    Args:
        score: The run's candidate score (pinned excluded).
        optimum: The optimum, or a certified upper bound on it.

    Returns:
        The ratio and what it rests on (the row's ``ratio_kind``): "exact" against a proven optimum,
        else "certified_lower_bound" (the true ratio is at least this value). When the optimum is 0
        nothing could be chosen and the ratio is 1.
    """
    basis = "exact" if optimum.proven else "certified_lower_bound"
    if optimum.value <= 0:
        return 1.0, basis
    return score / optimum.value, basis


def certified_bound(items: Sequence[Item], budget: int, near_dup: float | None, dedupe: str = "jaccard") -> float:
    """Dantzig's bound on the best candidate score `pack` could reach, after the same dedupe.

    Args:
        items: Pinned items and candidates.
        budget: Token budget (pinned tokens included).
        near_dup: Dedupe threshold, or None for no dedupe.
        dedupe: Name in `DEDUPE_METHODS`.

    Returns:
        The bound (0 when the pinned items fill the budget).
    """
    pinned = [it for it in items if it.pinned]
    cands = [it for it in items if not it.pinned]
    if near_dup is not None:
        cands, _ = DEDUPE_METHODS.lookup(dedupe)().dedupe(cands, pinned, near_dup)
    room = budget - sum(it.tokens for it in pinned)
    if room <= 0:
        return 0.0
    return dantzig_bound([it for it in cands if it.score >= 0], room)


def containment_leaks(chosen: Sequence[Item], threshold: float = 0.8, n: int = 5) -> set[str]:
    """Ids of chosen items whose word n-grams are >= `threshold` contained in one earlier chosen item.

    An independent duplicate detector for sources without ground truth: it
    uses word 5-gram containment, not the trigram Jaccard that dedupe uses, so
    it can see what dedupe let through.
    """
    seen: list[frozenset] = []
    leaked = set()
    for item in chosen:
        grams = shingles(words(item.text), n)
        if grams and any(len(grams & prev) / len(grams) >= threshold for prev in seen):
            leaked.add(item.id)
        seen.append(grams)
    return leaked


def duplicate_leakage(chosen: Sequence[Item], groups: Mapping[str, str] | None) -> dict[str, object]:
    """Share of chosen items and tokens that duplicate an earlier-chosen item.

    With ground truth (`groups`), an item leaks when its group already has an
    earlier-chosen member (ids missing from `groups` are their own group).
    Without it, `containment_leaks` decides.

    Args:
        chosen: The chosen candidates in context order.
        groups: Candidate id -> duplicate group, or None.

    Returns:
        ``leak_items`` and ``leak_tokens`` (shares in [0, 1]; 0 when nothing
        is chosen) and ``leak_detector`` (which rule was used).
    """
    if groups is None:
        leaked, detector = containment_leaks(chosen), LEAK_DETECTOR
    else:
        seen_groups, leaked, detector = set(), set(), LEAK_GROUND_TRUTH
        for item in chosen:
            group = groups.get(item.id, item.id)
            if group in seen_groups:
                leaked.add(item.id)
            seen_groups.add(group)
    total_tokens = sum(it.tokens for it in chosen)
    leak_tokens = sum(it.tokens for it in chosen if it.id in leaked)
    return {"leak_items": len(leaked) / len(chosen) if chosen else 0.0,
            "leak_tokens": leak_tokens / total_tokens if total_tokens else 0.0,
            "leak_detector": detector}


def position_weights(curve: str | Sequence[float], n: int) -> np.ndarray:
    """Attention weight of each of `n` context positions: `algorithms.orders.curves.position_weights`.

    Args:
        curve: A preset of `algorithms.orders.curves.PRESETS` (Liu et al. 2024) or a
            list of weights spread evenly over relative positions 0..1.
        n: Number of positions.

    Raises:
        ValueError: Unknown preset or weights that are empty or negative.
        TypeError: `curve` is neither a name nor a list of numbers.
    """
    return np.asarray(curves.position_weights(curve, n), dtype=float)


def positional_utility(chosen: Sequence[Item], curve: str | Sequence[float]) -> tuple[float, float]:
    """Position-weighted utility of the chosen items in their context order.

    Args:
        chosen: Chosen candidates, in context order.
        curve: Preset name or weights (see `position_weights`).

    Returns:
        (utility = sum of weight(position) * score, efficiency = utility over
        the best utility any order of the same items reaches; 1 when nothing
        scores).
    """
    scores = np.array([it.score for it in chosen], dtype=float)
    weights = position_weights(curve, len(chosen))
    utility = float(weights @ scores) if len(chosen) else 0.0
    best = float(np.sort(weights)[::-1] @ np.sort(scores)[::-1]) if len(chosen) else 0.0
    return utility, (utility / best if best > 0 else 1.0)


def answer_recall(chosen_ids: Sequence[str], answers: frozenset[str] | None) -> float | None:
    """Whether the packed context holds an answer-bearing candidate: 1.0 or 0.0.

    Averaged over the instances of a corpus (one per question) this is the
    share of questions whose packed context contains an answer-bearing
    passage. A question none of whose candidates bears the answer scores 0:
    its context cannot contain one.

    Args:
        chosen_ids: Ids of the returned items.
        answers: Ids of the answer-bearing candidates, or None when unlabelled.

    Returns:
        1.0 or 0.0, or None when the instance has no answer labels.
    """
    if answers is None:
        return None
    return 1.0 if answers.intersection(chosen_ids) else 0.0


def budget_utilisation(tokens: int, budget: int) -> float | None:
    """Tokens used (pinned included) over the budget; None for a zero budget."""
    return tokens / budget if budget > 0 else None


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


def __getattr__(name: str) -> Any:
    if name == "Reference":  # renamed: it is the optimum (or a bound on it), whatever strategy gave it
        warnings.warn("packbench.experiments.metrics.Reference is deprecated; use Optimum (its `exact` is "
                      "now `proven`)", DeprecationWarning, stacklevel=2)
        return Optimum
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
