"""Orders of the chosen items inside the context (pinned items always stay in front).

`base` holds the `Order` class and the one placement helper (`place`); `rank` the input, score and
Lost-in-the-Middle orders; `curve` the order that maximises a measured position curve of `curves`.
"""

from .base import Order, by_score, place
from .curve import CurveOrder, curve_slots
from .rank import LostInMiddle, Original, ScoreDesc, lost_in_middle_slots

__all__ = ["Order", "Original", "ScoreDesc", "LostInMiddle", "CurveOrder", "lost_in_middle_slots",
           "curve_slots", "by_score", "place"]
