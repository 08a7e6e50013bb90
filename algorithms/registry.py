"""The registries: plain dicts of name -> implementation class.

Adding a strategy is one module under `strategies/` plus one line here.
"""

from __future__ import annotations

from .orders import LostInMiddle, Order, Original, ScoreDesc
from .strategies.base import Strategy
from .strategies.best_single import GreedyBestSingle
from .strategies.bnb import BranchAndBound
from .strategies.cpsat import CPSAT
from .strategies.exact_dp import ExactDP
from .strategies.greedy import Greedy
from .strategies.prefix import Prefix

__all__ = ["STRATEGIES", "ORDERS"]

STRATEGIES: dict[str, type[Strategy]] = {
    "greedy": Greedy,
    "greedy_best_single": GreedyBestSingle,
    "prefix": Prefix,
    "exact_dp": ExactDP,
    "cpsat": CPSAT,
    "bnb": BranchAndBound,
}

ORDERS: dict[str, type[Order]] = {
    "original": Original,
    "score_desc": ScoreDesc,
    "lost_in_middle": LostInMiddle,
}
