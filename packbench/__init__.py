"""packbench: an evaluation harness for context packing under a token budget.

The folders ``algorithms/`` and ``experiments/`` of the repository are installed as
``packbench.algorithms`` and ``packbench.experiments``; this module re-exports the public API.

Example:
    >>> import packbench
    >>> items = [packbench.Item("sys", "You are terse.", 0, 5, pinned=True),
    ...          packbench.Item("a", "refunds take thirty days", 3.0, 6),
    ...          packbench.Item("b", "shipping is free", 1.0, 4)]
    >>> packbench.pack(items, budget=12).ids
    ['sys', 'a']
"""

from importlib.metadata import PackageNotFoundError, version as _dist_version

from .algorithms import Item, Packing, Problem, Selection, Strategy, StrategyContractError, pack

try:
    __version__ = _dist_version("packbench")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["Item", "Packing", "Problem", "Selection", "Strategy", "StrategyContractError", "pack", "__version__"]
