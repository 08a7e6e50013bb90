"""The report's figures, registered by name for configs (``plots = [...]``); each draws one PNG."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from .costs import leakage_vs_near_dup, runtime_vs_n, utility_per_order
from .quality import pareto, ratio_vs_budget
from .style import strategy_style

__all__ = ["PLOTS", "strategy_style"]

# name -> draw(measured frame, path, strategy style, decisions)
PLOTS: MappingProxyType[str, Callable] = MappingProxyType({
    "pareto": pareto,
    "ratio_vs_budget": ratio_vs_budget,
    "runtime_vs_n": runtime_vs_n,
    "leakage_vs_near_dup": leakage_vs_near_dup,
    "utility_per_order": utility_per_order,
})
