"""The registries: plain dicts of name -> implementation class.

Adding a strategy is one module under `strategies/` plus one line here.
"""

from __future__ import annotations

from .curve_order import CurveOrder
from .orders import LostInMiddle, Order, Original, ScoreDesc
from .strategies.base import Strategy
from .strategies.best_single import GreedyBestSingle
from .strategies.bnb import BranchAndBound
from .strategies.cpsat import CPSAT
from .strategies.exact import Exact
from .strategies.exact_dp import ExactDP
from .strategies.fptas import FPTAS
from .strategies.greedy import Greedy
from .strategies.mmr import MMR
from .strategies.prefix import Prefix
from .strategies.recency import Recency
from .strategies.submodular import Submodular

__all__ = ["STRATEGIES", "ORDERS"]

STRATEGIES: dict[str, type[Strategy]] = {
    "greedy": Greedy,
    "greedy_best_single": GreedyBestSingle,
    "prefix": Prefix,
    "recency": Recency,
    "exact_dp": ExactDP,
    "exact": Exact,
    "cpsat": CPSAT,
    "bnb": BranchAndBound,
    "fptas": FPTAS,
    "mmr": MMR,
    "submodular": Submodular,
}

ORDERS: dict[str, type[Order]] = {
    "original": Original,
    "score_desc": ScoreDesc,
    "lost_in_middle": LostInMiddle,
    "curve": CurveOrder,
}
