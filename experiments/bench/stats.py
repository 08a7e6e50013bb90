"""Paired timing statistics: the median of per-pair ratios and a distribution-free interval for it.

Each pair is one timing of the current tree and one of the reference taken
back to back, so load that changes over seconds hits both alike; the ratio of
a pair is current / reference. The interval is the sign-test (order-statistic)
confidence interval of the median: it assumes nothing about the shape of the
timing noise, and a few preempted timings move it by at most one rank.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Paired", "median_interval", "paired"]


def _binom_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


def median_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """Sign-test confidence interval of the median of `values`.

    Args:
        values: At least one sample.
        confidence: Coverage in (0, 1); with few samples the interval widens to
            the extremes (n = 5 covers 94% at best).

    Returns:
        (low, high): order statistics k and n - k + 1 with the largest k whose
        two-sided coverage is at least `confidence` (k = 1: min and max).

    Raises:
        ValueError: No values, or `confidence` outside (0, 1).
    """
    if not values:
        raise ValueError("median_interval needs at least one value")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    xs = sorted(values)
    n = len(xs)
    k = 1
    while k + 1 <= (n + 1) // 2 and _binom_cdf(k, n) <= (1.0 - confidence) / 2:
        k += 1
    return xs[k - 1], xs[n - k]


@dataclass(frozen=True)
class Paired:
    """Summary of one case's pairs.

    Attributes:
        n: Number of pairs.
        ratio: Median of current / reference over the pairs.
        low: Lower end of the ratio's confidence interval.
        high: Upper end.
        current: Median seconds of the current tree.
        reference: Median seconds of the reference.
        diff: Median of the per-pair differences, current - reference, in seconds.
    """

    n: int
    ratio: float
    low: float
    high: float
    current: float
    reference: float
    diff: float


def paired(current: Sequence[float], reference: Sequence[float], confidence: float = 0.95) -> Paired:
    """Summarise pairs (current[i], reference[i]).

    Raises:
        ValueError: Different lengths, no pairs, or a non-positive reference time.
    """
    if len(current) != len(reference) or not current:
        raise ValueError(f"need equally many current and reference timings, got {len(current)} and {len(reference)}")
    if min(reference) <= 0:
        raise ValueError("reference timings must be positive")
    ratios = [c / r for c, r in zip(current, reference)]
    low, high = median_interval(ratios, confidence)
    return Paired(len(ratios), statistics.median(ratios), low, high, statistics.median(current),
                  statistics.median(reference), statistics.median([c - r for c, r in zip(current, reference)]))
