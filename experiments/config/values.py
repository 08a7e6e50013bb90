"""Checks of the values a config sweeps: budgets, dedupe thresholds, seeds; and the sweep itself.

Each check raises `ValueError` naming the entry (``budgets[2]``, ``seeds.stop``) and the broken bound;
`models` attaches them to the pydantic fields.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, Field, PlainSerializer, PlainValidator

__all__ = ["sweep", "check_budgets", "check_near_dup", "check_seeds", "seed_range", "Budgets", "Seeds", "NearDups"]


def sweep(params: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """All combinations of swept parameter values, in a stable order (names sorted)."""
    names = sorted(params)
    return [dict(zip(names, combo)) for combo in itertools.product(*(params[n] for n in names))]


def check_budgets(budgets: list[Any]) -> list[Any]:
    """Budgets are ints (tokens), floats in (0, 1] (share of the instance's tokens) or "natural"."""
    for pos, b in enumerate(budgets):
        if isinstance(b, str) and b == "natural":
            continue
        if isinstance(b, bool) or not isinstance(b, (int, float)):
            raise ValueError(f"budgets[{pos}]: {b!r} is not a budget; use an int (tokens), a float in "
                             f"(0, 1] (share of the instance's tokens) or \"natural\"")
        if isinstance(b, int) and b < 0 or isinstance(b, float) and not 0.0 < b <= 1.0:
            bound = ">= 0" if isinstance(b, int) else "in (0, 1] (a float budget is a share of the tokens)"
            raise ValueError(f"budgets[{pos}]: must be {bound}, got {b!r}")
    return budgets


def check_near_dup(values: list[Any]) -> list[Any]:
    """Dedupe thresholds are numbers in [0, 1] or "off"."""
    for pos, v in enumerate(values):
        if not (isinstance(v, str) and v == "off") and (
                isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0):
            raise ValueError(f"near_dup[{pos}]: must be a Jaccard threshold in [0, 1] or \"off\", got {v!r}")
    return [v if v == "off" else float(v) for v in values]


def seed_range(spec: dict[str, Any]) -> range:
    """``seeds = { start = 0, stop = 1000 }`` (``step`` optional): ``range(start, stop, step)``, never a list.

    Kept a `range` so that a config of 10^9 seeds costs nothing to load; planning counts it lazily
    (`planning.sizes`).
    """
    unknown = sorted(set(spec) - {"start", "stop", "step"})
    if unknown or "stop" not in spec:
        raise ValueError(f"seeds: a range is {{ start = A, stop = B, step = C }} (stop required, start 0 and step 1 "
                         f"by default), got keys {sorted(spec)}")
    bounds = {k: spec.get(k, d) for k, d in (("start", 0), ("stop", None), ("step", 1))}
    for key, value in bounds.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"seeds.{key}: must be an int, got {value!r}")
    if bounds["step"] < 1 or bounds["start"] < 0 or bounds["stop"] <= bounds["start"]:
        raise ValueError(f"seeds: need 0 <= start < stop and step >= 1, got {bounds}")
    return range(bounds["start"], bounds["stop"], bounds["step"])


def check_seeds(value: Any) -> list[int] | range:
    """Seeds are a non-empty list of ints >= 0 (the sources seed numpy generators, which reject negative
    seeds at run time) or a `range` of them (from ``{ start, stop, step }``)."""
    if isinstance(value, range):
        return value
    if not isinstance(value, list) or not value:
        raise ValueError(f"must be a non-empty list of ints or {{ start = A, stop = B }}, got {value!r}")
    for pos, seed in enumerate(value):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seeds[{pos}]: must be an int greater than or equal to 0, got {seed!r}")
    return value


def _dump_seeds(value: list[int] | range) -> Any:
    return {"start": value.start, "stop": value.stop, "step": value.step} if isinstance(value, range) else value


Budgets = Annotated[list[Any], Field(min_length=1), AfterValidator(check_budgets)]
Seeds = Annotated[Any, PlainValidator(check_seeds), PlainSerializer(_dump_seeds)]
NearDups = Annotated[list[Any], Field(min_length=1), AfterValidator(check_near_dup)]
