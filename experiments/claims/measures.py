"""Every measure a saved instance can name, so `rerun` can reproduce its ratio."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .core import case_from_json
from .groups.knapsack import KNAPSACK_MEASURES
from .groups.mmr import MMR_MEASURES
from .groups.submodular import SUBMODULAR_MEASURES
from .groups.tight import TIGHT_MEASURE, rebuild_ratio

__all__ = ["MEASURES", "rerun"]

MEASURES = {
    **KNAPSACK_MEASURES,
    **SUBMODULAR_MEASURES,
    **MMR_MEASURES,
}


def rerun(record: Mapping[str, Any]) -> float:
    """Re-run a saved instance record and return its ratio.

    Args:
        record: A dict as written to ``instances/*.json`` (measure, params, budget, items).

    Returns:
        value / reference, recomputed from scratch.

    Raises:
        ValueError: Unknown measure, or a degenerate instance (reference 0).
        RuntimeError: A coverage-chain record whose certificate fails when rebuilt.
    """
    name = record.get("measure")
    if name == TIGHT_MEASURE:  # stored as parameters, not items: rebuilt and certified
        return rebuild_ratio(dict(record))[0]
    if name not in MEASURES:
        raise ValueError(f"unknown measure {name!r}; valid: {', '.join(sorted(MEASURES))}")
    got = MEASURES[name](case_from_json(dict(record)), dict(record.get("params", {})))
    if got is None:
        raise ValueError(f"measure {name!r}: the instance has a zero reference value")
    value, ref = got
    return value / ref
