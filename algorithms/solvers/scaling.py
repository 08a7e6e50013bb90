"""Integer profits for the integer solvers (CP-SAT, OR-Tools branch and bound)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["integer_profits", "integer_profits_array"]

# Keep the sum of scaled profits below 2**50 so no solver sum can overflow int64
# and every scaled profit is exactly representable in a float64.
_HEADROOM = 2.0 ** 50


def integer_profits(scores: Sequence[float]) -> tuple[list[int], float, float]:
    """Scale non-negative scores to integers.

    Integral scores whose total is below 2**50 are used as they are (one score
    unit per profit unit, no error). Otherwise scores are divided by the largest
    one and multiplied by ``2**k``, the largest power of two keeping the total
    below 2**50, then rounded. A profit unit is then worth
    ``per_profit = max(scores) / 2**k`` of score and each profit is off by at
    most half of that, so the set a solver proves optimal for the integer
    profits scores at most ``n * per_profit`` below the true optimum (n = number
    of items): a relative error below n * 2**-49. Normalising by the largest
    score first keeps every step in the float range even for tiny (subnormal)
    scores.

    Args:
        scores: Non-negative, finite scores.

    Returns:
        (integer profits, score per profit unit, absolute error bound on the total score).
    """
    total = math.fsum(scores)
    if all(float(s).is_integer() for s in scores) and total < _HEADROOM:
        return [int(s) for s in scores], 1.0, 0.0
    unit = max(scores, default=0.0)
    if unit <= 0:
        return [0] * len(scores), 1.0, 0.0
    relative = [s / unit for s in scores]  # the largest is exactly 1
    power = 2.0 ** math.floor(math.log2(_HEADROOM) - math.log2(math.fsum(relative)))
    profits = [int(round(r * power)) for r in relative]
    per_profit = unit / power
    return profits, per_profit, len(scores) * per_profit


def integer_profits_array(scores: np.ndarray) -> tuple[np.ndarray, float, float]:
    """`integer_profits` on a float64 array, returning the profits as a float64 array (exact integers).

    Integral scores (the common case, and the only one checked in numpy) skip the per-item
    Python pass; others go through `integer_profits`, so the profits are the same either way.

    Args:
        scores: Non-negative, finite scores.

    Returns:
        (integer profits as float64, score per profit unit, absolute error bound on the total score).
    """
    scores = np.asarray(scores, dtype=np.float64)
    # Non-negative integers below 2**53 add up exactly in any order: numpy's sum is fsum's there.
    if bool(np.all((scores >= 0) & (scores == np.floor(scores)))) and scores.sum() < _HEADROOM:
        return scores.copy(), 1.0, 0.0
    profits, per_profit, err = integer_profits(scores.tolist())
    return np.array(profits, dtype=np.float64), per_profit, err
