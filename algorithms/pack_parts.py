"""The parts of one `pack` call that are not steps on the items: its components, and the stage clock.

`resolve_parts` looks up every component, routes the keyword params to the ones that declare them
and builds them, in the order `pack` reports errors; `Stopwatch` times the stages.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .dedupe import DEDUPE_METHODS
from .params import Param
from .registry import FILLS, ORDERS, STRATEGIES
from .validation import check_pinned_overflow

__all__ = ["Stopwatch", "Parts", "route_params", "resolve_parts"]


class Stopwatch:
    """CPU seconds per stage (`time.process_time`: all threads, waiting for a core excluded)."""

    __slots__ = ("times", "_start", "_mark")

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._start = self._mark = time.process_time()

    def mark(self) -> None:
        self._mark = time.process_time()

    def lap(self, stage: str) -> None:
        self.times[stage] = time.process_time() - self._mark

    def total(self) -> dict[str, float]:
        self.times["pack"] = time.process_time() - self._start
        return self.times


@dataclass(frozen=True)
class Parts:
    """The resolved components of one call."""

    strategy: str
    chooser: Any
    arranger: Any
    filler: Any
    deduper: Any


def route_params(params: Mapping[str, Any], consumers: list[tuple[str, Mapping[str, Param]]],
           open_to: int | None = None) -> list[dict[str, Any]]:
    """Split keyword params among the strategy, order and fill that declare them.

    A param nobody declares goes to consumer `open_to` (a function strategy taking ``**params``).
    """
    routed: list[dict[str, Any]] = [{} for _ in consumers]
    for key, value in params.items():
        owners = [k for k, (_, spec) in enumerate(consumers) if key in spec]
        if not owners and open_to is not None:
            owners = [open_to]
        if not owners:
            valid = ", ".join(f"{label}: {', '.join(sorted(spec)) or 'none'}" for label, spec in consumers)
            raise ValueError(f"unknown parameter {key!r}; valid ({valid})")
        for k in owners:
            routed[k][key] = value
    return routed


def resolve_parts(strategy: Any, order: Any, dedupe: Any, fill: Any, pinned_overflow: Any,
                  params: Mapping[str, Any], dedupe_on: bool = True) -> Parts:
    """Look every component up, route the params to them and build them (in the order errors are reported).

    With `dedupe_on` False the dedupe method is looked up (a bad name is still an error) but not
    built: nothing would call it.
    """
    strategy, strategy_cls = STRATEGIES.resolve(strategy)
    order, order_cls = ORDERS.resolve(order)
    deduper_cls = DEDUPE_METHODS.lookup(dedupe)
    deduper = deduper_cls() if dedupe_on else None
    check_pinned_overflow(pinned_overflow)
    fill, fill_cls = (None, None) if fill is None else FILLS.resolve(fill)
    consumers = [(f"strategy {strategy!r}", strategy_cls.PARAMS), (f"order {order!r}", order_cls.PARAMS)]
    if fill_cls is not None:
        consumers.append((f"fill {fill!r}", fill_cls.PARAMS))
    routed = route_params(params, consumers, open_to=0 if strategy_cls.EXTRA_PARAMS else None)
    chooser, arranger = strategy_cls(**routed[0]), order_cls(**routed[1])
    filler = fill_cls(**routed[2]) if fill_cls is not None else None
    return Parts(strategy, chooser, arranger, filler, deduper)


