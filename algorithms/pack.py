"""`pack`: validate, resolve, dedupe, select, check, order, fill, assemble; each step a function below.

Every call records the CPU time of its stages (`Packing.stages`): ``dedupe``, ``select`` (the
strategy), ``order``, ``fill`` and ``pack`` (the whole call). `stage_calls` gives each stage as a
call on the very inputs `pack` would give it, so a stage can be timed alone (the gate does).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import compress, repeat
from operator import and_, attrgetter, ge, not_
from typing import Any

from .dedupe import DEDUPE_METHODS
from .items import Item, Packing, Problem, Selection
from .params import Param
from .registry import FILLS, ORDERS, STRATEGIES
from .strategies.base import Refused, check_selection
from .strategies.function import FunctionStrategy
from .validation import (check_near_dup, check_pinned_overflow, check_totals, validate_budget,
                         validate_items)

__all__ = ["pack", "stage_calls", "validate_items", "validate_budget", "STAGES"]

# The stages `Packing.stages` times, in the order they run.
STAGES = ("dedupe", "select", "order", "fill", "pack")


class _Stopwatch:
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
class _Parts:
    """The resolved components of one call."""

    strategy: str
    chooser: Any
    arranger: Any
    filler: Any
    deduper: Any


def _route(params: Mapping[str, Any], consumers: list[tuple[str, Mapping[str, Param]]],
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


def _resolve(strategy: Any, order: Any, dedupe: Any, fill: Any, pinned_overflow: Any,
             params: Mapping[str, Any]) -> _Parts:
    """Look every component up, route the params to them and build them (in the order errors are reported)."""
    strategy, strategy_cls = STRATEGIES.resolve(strategy)
    order, order_cls = ORDERS.resolve(order)
    deduper = DEDUPE_METHODS.lookup(dedupe)()
    check_pinned_overflow(pinned_overflow)
    fill, fill_cls = (None, None) if fill is None else FILLS.resolve(fill)
    consumers = [(f"strategy {strategy!r}", strategy_cls.PARAMS), (f"order {order!r}", order_cls.PARAMS)]
    if fill_cls is not None:
        consumers.append((f"fill {fill!r}", fill_cls.PARAMS))
    routed = _route(params, consumers, open_to=0 if strategy_cls.EXTRA_PARAMS else None)
    chooser, arranger = strategy_cls(**routed[0]), order_cls(**routed[1])
    filler = fill_cls(**routed[2]) if fill_cls is not None else None
    return _Parts(strategy, chooser, arranger, filler, deduper)


def _split_pinned(items: list[Item]) -> tuple[list[Item], list[Item]]:
    """(pinned, candidates), both in input order."""
    flags = list(map(attrgetter("pinned"), items))
    # Without pinned items (the usual case) no pass over the items picks them out: each such pass
    # touches every item, a cache miss apiece once there are 10^5 of them.
    if not any(flags):
        return [], items
    return list(compress(items, flags)), list(compress(items, map(not_, flags)))


def _dedupe(deduper: Any, candidates: list[Item], pinned: list[Item], near_dup: float | None) -> tuple[Any, dict]:
    """(kept flag per candidate, dropped id -> the id it duplicates)."""
    if near_dup is None:
        return repeat(True), {}
    return deduper.kept_flags(candidates, pinned, near_dup)


def _problem(candidates: list[Item], kept: Any, pinned: list[Item], room: int) -> Problem:
    """What the strategy sees: the kept candidates with scores >= 0, in input order, and the room."""
    # Input order, so strategies see retrieval order; negative scores can never help (C-level passes).
    survivors = tuple(compress(candidates, map(and_, kept, map(ge, map(attrgetter("score"), candidates), repeat(0.0)))))
    # A room above the candidates' total changes no choice; capping it keeps a "no limit"
    # budget such as sys.maxsize within the DP's and the integer solvers' ranges.
    return Problem(survivors, min(room, sum(map(attrgetter("tokens"), survivors))), tuple(pinned))


def _refuse_if_skipped(parts: _Parts, problem: Problem) -> None:
    """Raise the strategy's declared refusal (`Refused`) when its ``skip`` gives a reason."""
    refusal = parts.chooser.skip(problem)
    if refusal is not None:
        raise Refused(parts.strategy, refusal)


def _checked(parts: _Parts, problem: Problem, selection: Selection, room: int) -> tuple[tuple[int, ...], list[Item], int, dict]:
    """(picked indices, chosen items, their tokens, info) once the selection passed its contract check."""
    picked = check_selection(parts.strategy, problem, selection, may_exceed_room=parts.chooser.may_exceed_budget)
    chosen = [problem.candidates[k] for k in picked]
    used = sum(it.tokens for it in chosen)
    info = dict(selection.info)
    if used > room:
        # Only a peer adapter may overflow (it counts words, or keeps the crossing item, as the peer
        # ships it): it returns what the peer chose, marked, so the harness can count the violation.
        info.update(budget_violation=True, over_tokens=used - room)
    return picked, chosen, used, info


def _unchosen(problem: Problem, picked: tuple[int, ...]) -> list[Item]:
    """The candidates the strategy left, best first (what a fill draws from)."""
    picked_set = set(picked)
    return sorted((it for k, it in enumerate(problem.candidates) if k not in picked_set),
                  key=lambda it: (-it.score, it.id))


def _assemble(pinned: list[Item], ordered: Iterable[Item], budget: int, parts: _Parts, selection: Selection,
              dropped: Mapping[str, str], seconds: float, truncated: str | None, over: bool, info: dict,
              watch: _Stopwatch) -> Packing:
    """The `Packing`: pinned items first, the ordered choice, the bound shifted by the pinned score."""
    pinned_score = math.fsum(it.score for it in pinned)
    upper = None if selection.upper_bound is None else pinned_score + selection.upper_bound
    return Packing(pinned + list(ordered), budget=budget, strategy=parts.strategy, optimal=selection.optimal,
                   upper_bound=upper, dropped=dropped, seconds=seconds, truncated=truncated,
                   over_budget=over, info=info, stages=watch.total())


def _pinned_need(pinned: list[Item], budget: int, pinned_overflow: str) -> int:
    """The pinned items' tokens; over the budget, an error with "raise" (with "clamp" the caller stops)."""
    need = sum(it.tokens for it in pinned)
    if need > budget and pinned_overflow == "raise":
        raise ValueError(f"pinned items need {need} tokens, over the budget of {budget} "
                         f"(pinned: {', '.join(it.id for it in pinned)})")
    return need


def pack(items: Iterable[Item], budget: int, near_dup: float | None = 0.8, *,
         strategy: str | type | Callable[..., Any] = "greedy_best_single", order: str | type = "original",
         pinned_overflow: str = "raise", dedupe: str = "jaccard", fill: str | type | None = None,
         **params: Any) -> Packing:
    """Choose and order the items that go into a context window of `budget` tokens.

    Pinned items are always kept. Candidates are deduplicated (by default the
    "jaccard" rule, below), candidates with negative scores are set aside, the
    strategy chooses within the room the pinned items leave, and the order
    arranges the chosen items after the pinned ones.

    Args:
        items: The `Item`s, pinned and candidates, ids unique.
        budget: Token budget for everything returned.
        near_dup: Jaccard threshold in [0, 1], or None to turn dedupe off.
        strategy: A name in `STRATEGIES` or of an installed plug-in (entry-point group
            ``packbench.strategies``), an import path ``"package.module:attr"``, a `Strategy`
            subclass, or a function ``f(items, budget, **params) -> ids`` (see
            `strategies.function`); `Packing.strategy` records the name, or ``"module:qualname"``
            for an object.
        order: A name in `ORDERS` (or an import path, plug-in name or `Order` subclass).
        pinned_overflow: "raise" (pinned tokens over the budget is an error) or
            "clamp" (return the pinned items alone with ``over_budget=True``).
        dedupe: A name in `DEDUPE_METHODS` (or an import path or `DedupeMethod` subclass). The
            default "jaccard" ("exact" is its deprecated old name) drops a candidate
            whose normalised words equal, or whose word-trigram Jaccard is >= `near_dup` with, a
            pinned or higher-scored kept item.
        fill: None, or a name in `FILLS` (or import path, plug-in name, `Fill` subclass): uses the leftover room.
        **params: Parameters of the strategy, order or fill (see `packbench list`).

    Returns:
        The `Packing`: pinned items first in input order, then the chosen items; its ``stages``
        holds the CPU seconds of each stage that ran (see `STAGES`).

    Raises:
        StrategyContractError: The strategy returned something it must not (an index out of range
            or repeated, tokens over the room); a RuntimeError, as it is a bug, not bad input.
        TypeError: An item, the budget or a parameter has the wrong type.
        ValueError: Repeated id, negative budget, unknown name or parameter,
            value out of range, pinned tokens over the budget with "raise",
            the strategy's declared refusal (`Refused`, from its ``skip``),
            items whose tokens add up to more than 2**62, or whose absolute
            scores add up to more than a quarter of the float range.
    """
    watch = _Stopwatch()
    items = validate_items(items)
    check_totals(items)
    budget, near_dup = validate_budget(budget), check_near_dup(near_dup)
    parts = _resolve(strategy, order, dedupe, fill, pinned_overflow, params)
    pinned, candidates = _split_pinned(items)
    pinned_tokens = _pinned_need(pinned, budget, pinned_overflow)
    if pinned_tokens > budget:
        return Packing(pinned, budget=budget, strategy=parts.strategy, optimal=None, over_budget=True,
                       stages=watch.total())
    start = time.perf_counter()
    watch.mark()
    kept, dropped = _dedupe(parts.deduper, candidates, pinned, near_dup)
    watch.lap("dedupe")
    room = budget - pinned_tokens
    problem = _problem(candidates, kept, pinned, room)
    _refuse_if_skipped(parts, problem)
    watch.mark()
    selection = parts.chooser.select(problem)
    watch.lap("select")
    picked, chosen, used, info = _checked(parts, problem, selection, room)
    watch.mark()
    ordered = parts.arranger.arrange(chosen)
    watch.lap("order")
    truncated = None
    if parts.filler is not None and used <= room:
        unchosen = _unchosen(problem, picked)
        watch.mark()
        ordered, truncated = parts.filler.apply(ordered, unchosen, room - used)
        watch.lap("fill")
    return _assemble(pinned, ordered, budget, parts, selection, dropped, time.perf_counter() - start,
                     truncated, used > room, info, watch)


def _strategy_call(parts: _Parts, problem: Problem) -> Callable[[], Any]:
    """The strategy's own code on `problem`: for a plain function, the function alone.

    A function strategy's `select` also checks what the function returned (a pass over all the
    items); timing that would hide a fast function's own change, so the function is called
    directly, with the arguments `FunctionStrategy.select` gives it.
    """
    chooser = parts.chooser
    if isinstance(chooser, FunctionStrategy):
        fn, args = type(chooser).func, [*problem.pinned, *problem.candidates]
        total = problem.room + sum(it.tokens for it in problem.pinned)
        return lambda: fn(args, total, **chooser.params)
    return lambda: chooser.select(problem)


def stage_calls(items: Iterable[Item], budget: int, near_dup: float | None = 0.8, *,
                strategy: str | type | Callable[..., Any] = "greedy_best_single", order: str | type = "original",
                dedupe: str = "jaccard", fill: str | type | None = None,
                **params: Any) -> dict[str, Callable[[], Any]]:
    """Each stage of one `pack` call as a call without arguments, on the inputs `pack` gives that stage.

    Takes `pack`'s arguments (``pinned_overflow`` aside).

    Returns:
        ``{"dedupe", "select", "order", "pack"}`` callables (and ``"fill"`` with a fill); ``"select"``
        runs the strategy's own code (see `_strategy_call`), ``"pack"`` the whole `pack` call.

    Raises:
        ValueError, TypeError: As `pack` raises them (the call is made once here).
    """
    items = validate_items(items)
    kwargs = dict(strategy=strategy, order=order, dedupe=dedupe, fill=fill, **params)
    pack(items, budget, near_dup, **kwargs)  # any error, as pack raises it
    parts = _resolve(strategy, order, dedupe, fill, "raise", params)
    pinned, candidates = _split_pinned(items)
    room = budget - sum(it.tokens for it in pinned)
    near_dup = check_near_dup(near_dup)
    kept, _ = _dedupe(parts.deduper, candidates, pinned, near_dup)
    problem = _problem(candidates, kept, pinned, room)
    picked, chosen, used, _ = _checked(parts, problem, parts.chooser.select(problem), room)
    calls = {"dedupe": lambda: _dedupe(parts.deduper, candidates, pinned, near_dup),
             "select": _strategy_call(parts, problem),
             "order": lambda: parts.arranger.arrange(chosen),
             "pack": lambda: pack(items, budget, near_dup, **kwargs)}
    if parts.filler is not None and used <= room:
        unchosen, left = _unchosen(problem, picked), room - used
        ordered = parts.arranger.arrange(chosen)
        calls["fill"] = lambda: parts.filler.apply(ordered, unchosen, left)
    return calls
