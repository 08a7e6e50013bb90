"""packbench's packing library: one `pack` interface over pluggable strategies.

Example:
    >>> from packbench.algorithms import Item, pack
    >>> items = [Item("sys", "You are terse.", 0, 5, pinned=True),
    ...          Item("a", "refunds take thirty days", 3.0, 6),
    ...          Item("b", "shipping is free", 1.0, 4)]
    >>> pack(items, budget=12).ids
    ['sys', 'a']
"""

from .dedupe import DEDUPE_METHODS
from .items import Item, Packing, Problem, Selection
from .pack import pack
from .plugins import component_origin
from .registry import FILLS, ORDERS, STRATEGIES
from .strategies.base import Strategy, StrategyContractError

__all__ = ["Item", "Packing", "Problem", "Selection", "pack", "STRATEGIES", "ORDERS",
           "DEDUPE_METHODS", "FILLS", "Strategy", "StrategyContractError", "component_origin"]
