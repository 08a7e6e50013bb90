"""The metric functions: what a run is scored by, each a pure function of its chosen items.

All of them look at the chosen candidates only (pinned items excluded), in the order the packing returns
them; `table` declares which of them fill a row's columns.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from packbench.algorithms import DEDUPE_METHODS, Item
from packbench.algorithms.bounds import dantzig_bound
from packbench.algorithms.dedupe import shingles, words
from packbench.algorithms.orders import curves

__all__ = ["Optimum", "score_ratio", "certified_bound", "duplicate_leakage", "containment_leaks",
           "position_weights", "positional_utility", "answer_recall", "budget_utilisation", "LEAK_GROUND_TRUTH",
           "LEAK_DETECTOR"]

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
