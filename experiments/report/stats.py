"""Paired intervals over instances: what every "better", "tied" and "slower" in the decision rests on.

Two strategies are compared on the same instances: per instance the
difference of a quality value (or the log of a CPU-time ratio), then the mean
of those differences with a 95% percentile bootstrap interval
(`scipy.stats.bootstrap`, a fixed seed, so the same values give the same
interval on any machine). When every difference is equal the interval is that
value exactly (a resample cannot move it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["CONFIDENCE", "RESAMPLES", "Interval", "paired_interval", "ratio_interval"]

CONFIDENCE = 0.95
RESAMPLES = 1999
_SEED = 20240601  # fixed: the interval is a function of the values alone


@dataclass(frozen=True)
class Interval:
    """The mean of paired per-instance values and its confidence interval.

    Attributes:
        mean: Mean over the instances.
        low: Lower end of the interval.
        high: Upper end of the interval.
        n: Number of instances (pairs).
    """

    mean: float
    low: float
    high: float
    n: int


def paired_interval(a, b) -> Interval:
    """Mean of ``a - b`` over paired instances with its bootstrap interval.

    Args:
        a: Per-instance values of one strategy.
        b: The other strategy's values on the same instances, in the same order.

    Returns:
        The `Interval` of the mean difference.

    Raises:
        ValueError: The two have different lengths or no instances.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.size == 0:
        raise ValueError(f"paired values need the same non-zero length; got {a.size} and {b.size}")
    # Rounded: float noise (0.99999999 vs 1.0) of equal packings is not a difference.
    d = np.round(a - b, 12)
    mean = float(np.round(d.mean(), 12))
    if np.all(d == d[0]) or d.size < 2:
        return Interval(mean, float(d.min()), float(d.max()), int(d.size))
    from scipy import stats

    res = stats.bootstrap((d,), np.mean, n_resamples=RESAMPLES, confidence_level=CONFIDENCE,
                          method="percentile", vectorized=True, rng=np.random.default_rng(_SEED))
    low, high = res.confidence_interval
    return Interval(mean, float(np.round(low, 12)), float(np.round(high, 12)), int(d.size))


def ratio_interval(a, b) -> Interval:
    """Geometric-mean ratio ``a / b`` of paired positive values (CPU times) with its interval.

    Values are floored at a microsecond's worth (1e-6) so a call below the
    clock's resolution does not make an infinite ratio.
    """
    a = np.maximum(np.asarray(a, dtype=float), 1e-6)
    b = np.maximum(np.asarray(b, dtype=float), 1e-6)
    iv = paired_interval(np.log(a), np.log(b))
    return Interval(float(np.exp(iv.mean)), float(np.exp(iv.low)), float(np.exp(iv.high)), iv.n)
