"""The gate's tolerances: how far each figure of a result cell may move against the baseline.

Read from the config's ``[gate]`` table and overridden on the command line.
Every tolerance is an allowed change in the bad direction; a change in the
good direction is reported as an improvement and never fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["Tolerances", "parse_tolerances", "TOLERANCE_HELP"]

# name -> what it bounds (the default is on the dataclass).
TOLERANCE_HELP = {
    "ratio_mean": "largest allowed fall of a cell's mean score ratio (absolute, e.g. 0.005)",
    "ratio_worst": "largest allowed fall of a cell's worst score ratio (absolute)",
    "answer_recall": "largest allowed fall of a cell's mean answer recall (absolute share)",
    "leakage": "largest allowed rise of a cell's mean duplicate leakage (share of chosen tokens)",
    "budget_violations": "largest allowed rise in runs that exceed their budget (count)",
    "errors": "largest allowed rise in runs that ended in an error (count)",
    "timeouts": "largest allowed rise in runs stopped at their time limit (count)",
    "speed": "slowdown factor that fails the paired speed check with --against (>= 1)",
}


@dataclass(frozen=True)
class Tolerances:
    """Allowed moves in the bad direction, per figure (see `TOLERANCE_HELP`)."""

    ratio_mean: float = 0.005
    ratio_worst: float = 0.01
    answer_recall: float = 0.01
    leakage: float = 0.01
    budget_violations: int = 0
    errors: int = 0
    timeouts: int = 0
    speed: float = 1.3


def parse_tolerances(table: Mapping[str, Any] | None, base: Tolerances | None = None,
                     origin: str = "[gate]") -> Tolerances:
    """Tolerances from a ``[gate]`` table (or command-line values), on top of `base`.

    Args:
        table: Key -> value; None values are ignored (an option not given).
        base: Start from these (default: the defaults).
        origin: Named in error messages.

    Raises:
        ValueError: An unknown key, a value that is not a number, a negative
            value, a count that is not a whole number, or a speed below 1.
    """
    out = base or Tolerances()
    known = {f.name: f for f in fields(Tolerances)}
    changes: dict[str, Any] = {}
    for key, value in (table or {}).items():
        if value is None:
            continue
        if key not in known:
            raise ValueError(f"{origin}: unknown key {key!r}; valid keys: {', '.join(known)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{origin}.{key}: must be a number, got {value!r}")
        if value < 0:
            raise ValueError(f"{origin}.{key}: must be >= 0, got {value!r}")
        if known[key].type == "int":
            if value != int(value):
                raise ValueError(f"{origin}.{key}: must be a whole number of runs, got {value!r}")
            value = int(value)
        if key == "speed" and value < 1:
            raise ValueError(f"{origin}.speed: must be >= 1 (a slowdown factor), got {value!r}")
        changes[key] = value
    return replace(out, **changes)
