"""Position-weight curves: how much an item is worth at each position of the context.

Presets are the multi-document QA accuracies of Liu et al. 2024, "Lost in the
Middle: How Language Models Use Long Contexts", TACL 12:157-173 (arXiv:2307.03172),
Appendix G: accuracy (%) on NaturalQuestions-Open when the one document holding
the answer is at 0-based index i among k retrieved documents. Table 5 is k = 10
(indices 0, 4, 9), Table 6 k = 20 (0, 4, 9, 14, 19), Table 7 k = 30
(0, 4, 9, 14, 19, 24, 29):

=======================  ========  ==================================================
preset                   table     accuracy (%) at the measured indices
=======================  ========  ==================================================
gpt-3.5-turbo-10         5         76.8 61.2 62.4
gpt-3.5-turbo-16k-10     5         76.9 61.0 62.5
claude-1.3-10            5         62.9 58.3 59.7
claude-1.3-100k-10       5         63.1 58.3 59.7
gpt-3.5-turbo-20         6         75.8 57.2 53.8 55.4 63.2
gpt-3.5-turbo-16k-20     6         75.7 57.3 54.1 55.4 63.1
claude-1.3-20            6         59.9 55.9 56.8 57.2 60.1
claude-1.3-100k-20       6         59.8 55.9 57.0 57.4 60.0
gpt-3.5-turbo-16k-30     7         73.4 55.1 50.5 50.9 51.8 54.9 63.7
claude-1.3-30            7         59.1 55.1 54.8 55.7 56.4 56.2 59.9
claude-1.3-100k-30       7         59.1 55.1 54.9 55.7 56.6 56.1 60.0
=======================  ========  ==================================================

Not shipped: ``gpt-3.5-turbo-30``. Table 7 has no row for the 4K GPT-3.5-Turbo
(30 documents do not fit its window); use ``gpt-3.5-turbo-16k-30``, the same
model family with a 16K window, whose 10- and 20-document rows are within 0.3
points of the 4K model's.

A curve is turned into one weight per position by linear interpolation: the
measured index i of k documents sits at relative position i / (k - 1), the
j-th of n positions at j / (n - 1) (a single position sits at 0). A curve given
as a list of m weights puts them at relative positions 0, 1/(m-1), ..., 1.
Preset weights are accuracies as fractions (75.8 % -> 0.758).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Union

import numpy as np

from ..items import Item

__all__ = ["CurvePreset", "PRESETS", "Curve", "check_curve", "curve_points", "position_weights",
           "expected_utility"]

Curve = Union[str, Sequence[float]]


@dataclass(frozen=True)
class CurvePreset:
    """One measured curve.

    Attributes:
        model: Model name as in the paper.
        documents: Total retrieved documents k.
        table: Table number in Liu et al. 2024.
        indices: 0-based positions of the answer document that were measured.
        accuracy: Accuracy in percent at each index.
    """

    model: str
    documents: int
    table: int
    indices: tuple[int, ...]
    accuracy: tuple[float, ...]


_IDX = {10: (0, 4, 9), 20: (0, 4, 9, 14, 19), 30: (0, 4, 9, 14, 19, 24, 29)}
_TABLE = {10: 5, 20: 6, 30: 7}
_ROWS = (
    ("gpt-3.5-turbo-10", "GPT-3.5-Turbo", 10, (76.8, 61.2, 62.4)),
    ("gpt-3.5-turbo-16k-10", "GPT-3.5-Turbo (16K)", 10, (76.9, 61.0, 62.5)),
    ("claude-1.3-10", "Claude-1.3", 10, (62.9, 58.3, 59.7)),
    ("claude-1.3-100k-10", "Claude-1.3 (100K)", 10, (63.1, 58.3, 59.7)),
    ("gpt-3.5-turbo-20", "GPT-3.5-Turbo", 20, (75.8, 57.2, 53.8, 55.4, 63.2)),
    ("gpt-3.5-turbo-16k-20", "GPT-3.5-Turbo (16K)", 20, (75.7, 57.3, 54.1, 55.4, 63.1)),
    ("claude-1.3-20", "Claude-1.3", 20, (59.9, 55.9, 56.8, 57.2, 60.1)),
    ("claude-1.3-100k-20", "Claude-1.3 (100K)", 20, (59.8, 55.9, 57.0, 57.4, 60.0)),
    ("gpt-3.5-turbo-16k-30", "GPT-3.5-Turbo (16K)", 30, (73.4, 55.1, 50.5, 50.9, 51.8, 54.9, 63.7)),
    ("claude-1.3-30", "Claude-1.3", 30, (59.1, 55.1, 54.8, 55.7, 56.4, 56.2, 59.9)),
    ("claude-1.3-100k-30", "Claude-1.3 (100K)", 30, (59.1, 55.1, 54.9, 55.7, 56.6, 56.1, 60.0)),
)

PRESETS: MappingProxyType = MappingProxyType({
    name: CurvePreset(model, k, _TABLE[k], _IDX[k], acc) for name, model, k, acc in _ROWS
})


def check_curve(owner: str, name: str, value: Any) -> Curve:
    """Param check: a preset name or a non-empty list of finite, non-negative weights.

    Returns:
        The preset name, or the weights as a tuple of floats.

    Raises:
        ValueError: Unknown preset, empty list, or a negative weight.
        TypeError: Neither a str nor a sequence of real numbers.
    """
    if isinstance(value, str):
        if value not in PRESETS:
            raise ValueError(f"{owner}: parameter {name!r} must be a preset in {sorted(PRESETS)!r} "
                             f"or a list of weights, got {value!r}")
        return value
    if isinstance(value, (bytes, dict)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{owner}: parameter {name!r} must be a preset name or a list of weights, "
                        f"got {type(value).__name__}")
    if len(value) == 0:
        raise ValueError(f"{owner}: parameter {name!r} needs at least one weight")
    out = []
    for pos, w in enumerate(value):
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or not math.isfinite(w):
            raise TypeError(f"{owner}: parameter {name!r}: weight [{pos}] must be a finite number, got {w!r}")
        if w < 0:
            raise ValueError(f"{owner}: parameter {name!r}: weight [{pos}] must be >= 0, got {w!r}")
        out.append(float(w))
    return tuple(out)


def curve_points(curve: Curve) -> tuple[np.ndarray, np.ndarray]:
    """The curve as (relative positions in [0, 1], weights).

    Raises:
        ValueError, TypeError: As `check_curve`.
    """
    curve = check_curve("curve", "curve", curve)
    if isinstance(curve, str):
        p = PRESETS[curve]
        x = np.array(p.indices, dtype=np.float64) / (p.documents - 1)
        return x, np.array(p.accuracy, dtype=np.float64) / 100.0
    m = len(curve)
    x = np.linspace(0.0, 1.0, m) if m > 1 else np.zeros(1)
    return x, np.array(curve, dtype=np.float64)


def position_weights(curve: Curve, n: int) -> np.ndarray:
    """One weight per position for a context of `n` items, by linear interpolation.

    Args:
        curve: A preset name or a list of weights.
        n: Number of positions (>= 0).

    Returns:
        An array of n weights, position 0 first.

    Raises:
        ValueError: Bad curve, or n < 0.
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"position_weights: n must be an int >= 0, got {n!r}")
    x, y = curve_points(curve)
    if n == 0:
        return np.zeros(0)
    if len(x) == 1:
        return np.full(n, y[0])
    targets = np.linspace(0.0, 1.0, n) if n > 1 else np.zeros(1)
    return np.interp(targets, x, y)


def expected_utility(ordered: Sequence[Item | float], curve: Curve) -> float:
    """Position-weighted utility ``sum_j w_j * score_j`` of a context in this order.

    With a preset curve, w_j is the probability that the model uses the item at
    position j (the paper's accuracy with the answer there), so the result is the
    expected score the model actually uses. Items or plain scores are accepted.

    Args:
        ordered: The items (or their scores) in context order.
        curve: A preset name or a list of weights.

    Returns:
        The weighted sum (0.0 for an empty context).

    Raises:
        TypeError: An entry is neither an `Item` nor a finite number (the
            message gives its position).
        ValueError: Bad curve.
    """
    scores = []
    for pos, it in enumerate(ordered):
        if isinstance(it, Item):
            scores.append(it.score)
        elif isinstance(it, bool) or not isinstance(it, numbers.Real) or not math.isfinite(it):
            raise TypeError(f"expected_utility: ordered[{pos}] must be an Item or a finite score, got {it!r}")
        else:
            scores.append(float(it))
    scores = np.array(scores, dtype=np.float64)
    return float(np.dot(position_weights(curve, len(scores)), scores))
