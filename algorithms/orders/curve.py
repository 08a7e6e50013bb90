"""The `curve` order: place items so the position-weighted score is maximal."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from ..items import Item
from ..params import Param
from .base import Order, by_score, place
from .curves import check_curve, position_weights

__all__ = ["CurveOrder", "curve_slots"]


def curve_slots(weights: Sequence[float]) -> list[int]:
    """Positions from the heaviest weight to the lightest (ties: earlier position first)."""
    return sorted(range(len(weights)), key=lambda j: (-weights[j], j))


class CurveOrder(Order):
    """Highest score to the heaviest position, second highest to the second heaviest, ...

    By the rearrangement inequality (Hardy, Littlewood and Polya, Inequalities,
    1934, Ch. X) pairing scores and weights both sorted descending maximises
    ``sum_j w_j * score_j`` over all orders, i.e. `orders.curves.expected_utility`.
    Ties in score keep input order. With a Lost-in-the-Middle preset the best
    item goes first, the next ones to the end, the weakest to the middle.

    Params:
        curve: A preset of `algorithms.orders.curves.PRESETS` or a list of weights.
    """

    name = "curve"
    PARAMS = MappingProxyType({
        "curve": Param("gpt-3.5-turbo-20", check_curve, "position-weight preset name or list of weights"),
    })

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        return place(by_score(chosen), curve_slots(list(position_weights(self.params["curve"], len(chosen)))))
