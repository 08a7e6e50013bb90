"""Latency classes in reference ms, and "surely slower": the two latency relations the decision uses.

Times are per-instance CPU ms per call in reference ms (`frame.reference_ms`).
One relation serves both: `a` is surely slower than `b` when the 95%
interval of the geometric mean of their paired ratios (`stats.ratio_interval`,
scipy's bootstrap) lies above `PAIR_MARGIN`; a strategy is above a class bound when the same interval
of its time / bound lies above `LATENCY_MARGIN`; a class bound is a strategy
that costs the bound on every instance.
"""

from __future__ import annotations

import functools

import numpy as np

from .stats import ratio_interval

__all__ = ["LATENCY_CLASSES", "LATENCY_MARGIN", "PAIR_MARGIN", "latency_class", "class_text", "surely_slower"]

LATENCY_CLASSES = (0.1, 1.0, 10.0)  # upper bounds, reference ms of CPU per call; the last is "above 10 ms"
# A class bound counts only when a strategy is surely above it by this factor (the 95% interval of its
# time / bound). One strategy's time in reference ms moved by up to 1.25x between runs (workers, load:
# docs/decisions.md); the margin leaves room above that, or a strategy near a bound follows the machine.
LATENCY_MARGIN = 2.0
# Between two strategies both times are measured, so their ratio can move by 1.25^2 ~ 1.56x: the margin for
# "surely slower" grows in proportion (1.56 x the room above) and is rounded up.
PAIR_MARGIN = 3.0


def latency_class(cpu_ms) -> int:
    """The class of a strategy's per-instance CPU times (reference ms per call, or one figure).

    A strategy is within a class bound unless it is *surely above* it: the 95% interval of the
    geometric mean of ``time / bound`` over the instances (`stats.ratio_interval`, as for two
    strategies in `slower`) lies above `LATENCY_MARGIN`. A strategy whose interval straddles the
    band around a bound is given the class below it, always: near a bound the data cannot tell
    the side, so the rule does not pretend to.

    Returns:
        The index of the first bound of `LATENCY_CLASSES` the times are not surely above
        (``len(LATENCY_CLASSES)`` for the open top class).
    """
    values = (float(cpu_ms),) if np.ndim(cpu_ms) == 0 else tuple(float(v) for v in cpu_ms)
    return next((k for k, bound in enumerate(LATENCY_CLASSES)
                 if _ratio_low(values, (bound,) * len(values)) <= LATENCY_MARGIN), len(LATENCY_CLASSES))


def class_text(k: int) -> str:
    """A class for readers: ``<= 0.1 ms``, ..., ``> 10 ms`` (reference CPU ms per call)."""
    return f"≤ {LATENCY_CLASSES[k]:g} ms" if k < len(LATENCY_CLASSES) else f"> {LATENCY_CLASSES[-1]:g} ms"


def surely_slower(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether per-instance times `a` are surely `PAIR_MARGIN` x those of `b` (paired, same instances)."""
    return _ratio_low(a, b) > PAIR_MARGIN


@functools.lru_cache(maxsize=1 << 16)
def _ratio_low(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return ratio_interval(a, b).low
