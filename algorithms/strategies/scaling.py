"""Integer profits for the integer solvers (CP-SAT, OR-Tools branch and bound)."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["integer_profits"]

# Keep the sum of scaled profits below 2**50 so no solver sum can overflow int64
# and every scaled profit is exactly representable in a float64.
_HEADROOM = 2.0 ** 50


def integer_profits(scores: Sequence[float]) -> tuple[list[int], float, float]:
    """Scale non-negative scores to integers.

    Integral scores whose total is below 2**50 are used as they are (scale 1,
    no error). Otherwise scores are multiplied by the power of two
    ``scale = 2**floor(log2(2**50 / total))`` and rounded; each profit is then
    off by at most 0.5 / scale, so the set a solver proves optimal for the
    integer profits scores at most ``n / scale`` below the true optimum
    (n = number of items), i.e. a relative error below n * 2**-49.

    Args:
        scores: Non-negative, finite scores.

    Returns:
        (integer profits, scale, absolute error bound on the total score).
    """
    total = math.fsum(scores)
    if all(float(s).is_integer() for s in scores) and total < _HEADROOM:
        return [int(s) for s in scores], 1.0, 0.0
    if total <= 0:
        return [0] * len(scores), 1.0, 0.0
    # Capped so that tiny totals (subnormal scores) cannot overflow the float exponent.
    scale = 2.0 ** min(math.floor(math.log2(_HEADROOM) - math.log2(total)), 960)
    profits = [int(round(s * scale)) for s in scores]
    return profits, scale, len(scores) / scale
