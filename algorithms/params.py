"""Declared, validated keyword parameters for components (strategies, orders, fills, sources, ...).

Each strategy or order class lists its parameters in a `PARAMS` mapping of
name -> `Param`; `resolve_params` fills defaults and rejects unknown names and
out-of-range values with a message that names the parameter and the bound.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Param", "resolve_params", "real_in", "int_in", "one_of", "boolean"]


@dataclass(frozen=True)
class Param:
    """One keyword parameter.

    Args:
        default: Value used when the caller does not pass one.
        check: Called with (owner, name, value); returns the normalised value or
            raises `TypeError`/`ValueError` naming the parameter.
        doc: One line for `packbench list` and error messages.
    """

    default: Any
    check: Callable[[str, str, Any], Any]
    doc: str = ""


def real_in(lo: float | None = None, hi: float | None = None, *, lo_open: bool = False,
            hi_open: bool = False, allow_none: bool = False) -> Callable[[str, str, Any], Any]:
    """A check accepting a finite real number in [lo, hi] (ends open when asked)."""

    def check(owner: str, name: str, value: Any) -> Any:
        if value is None and allow_none:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise TypeError(f"{owner}: parameter {name!r} must be a finite number, got {value!r}")
        value = float(value)
        if lo is not None and (value < lo or (lo_open and value == lo)):
            raise ValueError(f"{owner}: parameter {name!r} must be {'>' if lo_open else '>='} {lo}, got {value!r}")
        if hi is not None and (value > hi or (hi_open and value == hi)):
            raise ValueError(f"{owner}: parameter {name!r} must be {'<' if hi_open else '<='} {hi}, got {value!r}")
        return value

    return check


def int_in(lo: int | None = None, hi: int | None = None) -> Callable[[str, str, Any], Any]:
    """A check accepting an int (not a bool) in [lo, hi]."""

    def check(owner: str, name: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{owner}: parameter {name!r} must be an int, got {value!r}")
        if lo is not None and value < lo:
            raise ValueError(f"{owner}: parameter {name!r} must be >= {lo}, got {value!r}")
        if hi is not None and value > hi:
            raise ValueError(f"{owner}: parameter {name!r} must be <= {hi}, got {value!r}")
        return int(value)

    return check


def boolean() -> Callable[[str, str, Any], Any]:
    """A check accepting only True or False (not 0, 1 or 0.0, which compare equal to them)."""

    def check(owner: str, name: str, value: Any) -> Any:
        if not isinstance(value, bool):
            raise TypeError(f"{owner}: parameter {name!r} must be True or False, got {value!r}")
        return value

    return check


def one_of(*choices: Any) -> Callable[[str, str, Any], Any]:
    """A check accepting exactly one of `choices`."""

    def check(owner: str, name: str, value: Any) -> Any:
        if value not in choices:
            raise ValueError(f"{owner}: parameter {name!r} must be one of {list(choices)!r}, got {value!r}")
        return value

    return check


def resolve_params(owner: str, spec: Mapping[str, Param], given: Mapping[str, Any], *,
                   extra: bool = False) -> dict[str, Any]:
    """Validate `given` against `spec` and fill in defaults.

    Args:
        owner: Name used in error messages (e.g. ``"strategy 'cpsat'"``).
        spec: The declared parameters.
        given: The caller's keyword arguments.
        extra: Accept names outside `spec` as given, unchecked (for a function taking ``**params``).

    Returns:
        A dict with every declared parameter, validated.

    Raises:
        ValueError: An unknown parameter name (the message lists the valid ones)
            or a value out of range.
        TypeError: A value of the wrong type.
    """
    unknown = sorted(set(given) - set(spec))
    if unknown and not extra:
        valid = ", ".join(sorted(spec)) or "none"
        raise ValueError(f"{owner}: unknown parameter(s) {', '.join(map(repr, unknown))}; valid: {valid}")
    out = {}
    for name, param in spec.items():
        out[name] = param.check(owner, name, given[name]) if name in given else param.default
    out.update((name, given[name]) for name in unknown)
    return out
