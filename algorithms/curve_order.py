"""The `curve` order: place items so the position-weighted score is maximal."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from .curves import check_curve, position_weights
from .items import Item
from .orders import Order
from .params import Param

__all__ = ["CurveOrder", "curve_slots"]


def curve_slots(weights: Sequence[float]) -> list[int]:
    """Positions from the heaviest weight to the lightest (ties: earlier position first)."""
    return sorted(range(len(weights)), key=lambda j: (-weights[j], j))


class CurveOrder(Order):
    """Highest score to the heaviest position, second highest to the second heaviest, ...

    By the rearrangement inequality (Hardy, Littlewood and Polya, Inequalities,
    1934, Ch. X) pairing scores and weights both sorted descending maximises
    ``sum_j w_j * score_j`` over all orders, i.e. `curves.expected_utility`.
    Ties in score keep input order. With a Lost-in-the-Middle preset the best
    item goes first, the next ones to the end, the weakest to the middle.

    Params:
        curve: A preset of `algorithms.curves.PRESETS` or a list of weights.
    """

    name = "curve"
    PARAMS = MappingProxyType({
        "curve": Param("gpt-3.5-turbo-20", check_curve, "position-weight preset name or list of weights"),
    })

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        ranked = sorted(chosen, key=lambda it: -it.score)
        slots = curve_slots(list(position_weights(self.params["curve"], len(ranked))))
        out: list[Item | None] = [None] * len(ranked)
        for item, slot in zip(ranked, slots):
            out[slot] = item
        return out  # type: ignore[return-value]
