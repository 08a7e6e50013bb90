"""The gate's tolerances: how far each figure of a result cell may move against the baseline.

Read from the config's ``[gate]`` table and overridden on the command line.
Every tolerance is an allowed change in the bad direction; a change in the
good direction is reported as an improvement and never fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["Tolerances", "parse_tolerances", "TOLERANCE_HELP", "STAGE_CHOICES"]

# name -> what it bounds (the default is on the dataclass).
TOLERANCE_HELP = {
    "ratio_mean": "largest allowed fall of a cell's mean score ratio (absolute, e.g. 0.005)",
    "ratio_worst": "largest allowed fall of a cell's worst score ratio (absolute)",
    "answer_recall": "largest allowed fall of a cell's mean answer recall (absolute share)",
    "leakage": "largest allowed rise of a cell's mean duplicate leakage (share of chosen tokens)",
    "budget_violations": "largest allowed rise in runs that exceed their budget (count)",
    "errors": "largest allowed rise in runs that ended in an error (count)",
    "timeouts": "largest allowed rise in runs stopped at their time limit (count)",
    "speed": "slowdown factor of the timed stage that fails the paired speed check with --against (>= 1)",
    "floor": "seconds per call of slowdown below which the speed check fails nothing (may be 0)",
    "pairs": "timing pairs per round of the speed check; more pairs buy power (detect smaller slowdowns)",
    "stage": "what the speed check times: " + ", ".join(("select", "order", "fill", "dedupe", "pack")),
}
# Values of "stage" (`speed_suite.STAGES` describes them).
STAGE_CHOICES = ("select", "order", "fill", "dedupe", "pack")


@dataclass(frozen=True)
class Tolerances:
    """Allowed moves in the bad direction, per figure, and the speed check's settings (see `TOLERANCE_HELP`).

    The speed defaults (1.1x with a slowdown that must be real at 95%, floor 0, 12 pairs in each of
    2 rounds, and a slower cell confirmed by a second pass, `gate.confirm`) are what
    `bench/gate_power.py` measured to flag a 1.2x slowdown of a 5 ms strategy and 1.5x of a 5 us
    one with no false alarm on a busy 2-core machine.
    """

    ratio_mean: float = 0.005
    ratio_worst: float = 0.01
    answer_recall: float = 0.01
    leakage: float = 0.01
    budget_violations: int = 0
    errors: int = 0
    timeouts: int = 0
    speed: float = 1.1
    floor: float = 0.0
    pairs: int = 12
    stage: str = "select"


def parse_tolerances(table: Mapping[str, Any] | None, base: Tolerances | None = None,
                     origin: str = "[gate]") -> Tolerances:
    """Tolerances from a ``[gate]`` table (or command-line values), on top of `base`.

    Args:
        table: Key -> value; None values are ignored (an option not given).
        base: Start from these (default: the defaults).
        origin: Named in error messages.

    Raises:
        ValueError: An unknown key, a value that is not a number, a negative
            value, a count that is not a whole number, a speed below 1, no pairs,
            or a stage that is not one of `STAGE_CHOICES`.
    """
    out = base or Tolerances()
    known = {f.name: f for f in fields(Tolerances)}
    changes: dict[str, Any] = {}
    for key, value in (table or {}).items():
        if value is None:
            continue
        if key not in known:
            raise ValueError(f"{origin}: unknown key {key!r}; valid keys: {', '.join(known)}")
        if key == "stage":
            if value not in STAGE_CHOICES:
                raise ValueError(f"{origin}.stage: must be one of {', '.join(STAGE_CHOICES)}, got {value!r}")
            changes[key] = value
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{origin}.{key}: must be a number, got {value!r}")
        if value < 0:
            raise ValueError(f"{origin}.{key}: must be >= 0, got {value!r}")
        if known[key].type == "int":
            if value != int(value):
                raise ValueError(f"{origin}.{key}: must be a whole number, got {value!r}")
            value = int(value)
        if key == "speed" and value < 1:
            raise ValueError(f"{origin}.speed: must be >= 1 (a slowdown factor), got {value!r}")
        if key == "pairs" and value < 1:
            raise ValueError(f"{origin}.pairs: must be >= 1, got {value!r}")
        changes[key] = value
    return replace(out, **changes)
