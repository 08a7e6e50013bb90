"""`pack`: validate, resolve, dedupe, select, check, order, fill, assemble; each step a function below.

Every call records the CPU time of its stages (`Packing.stages`): ``dedupe``, ``select`` (the
strategy), ``order``, ``fill`` and ``pack`` (the whole call). `stage_calls` gives each stage as a
call on the very inputs `pack` would give it, so a stage can be timed alone (the gate does).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from itertools import compress, repeat
from operator import and_, attrgetter, ge, not_
from typing import Any

import numpy as np

from .columns import Columns, read_items
from .items import Item, Packing, Problem, Selection
from .pack_parts import Parts, Stopwatch, resolve_parts
from .strategies.base import Refused, check_selection
from .strategies.function import FunctionStrategy
from .validation import check_near_dup, validate_budget, validate_items

__all__ = ["pack", "stage_calls", "validate_items", "validate_budget", "STAGES"]

# The stages `Packing.stages` times, in the order they run.
STAGES = ("dedupe", "select", "order", "fill", "pack")


def _split_pinned(cols: Columns) -> tuple[list[Item], list[Item], np.ndarray | None, np.ndarray | None]:
    """(pinned, candidates), both in input order, and the candidates' scores and tokens (None when `cols` has none)."""
    # Without pinned items (the usual case) nothing is copied: every candidate list or array
    # built here would be a pass over all the items.
    if cols.pinned is None:
        return [], cols.items, cols.scores, cols.tokens
    flags = cols.pinned if cols.scores is None else cols.pinned.tolist()
    pinned, candidates = list(compress(cols.items, flags)), list(compress(cols.items, map(not_, flags)))
    if cols.scores is None:
        return pinned, candidates, None, None
    rest = ~cols.pinned
    return pinned, candidates, cols.scores[rest], cols.tokens[rest]


def _dedupe(deduper: Any, candidates: list[Item], pinned: list[Item], near_dup: float | None) -> tuple[Any, dict]:
    """(kept flag per candidate, dropped id -> the id it duplicates)."""
    if near_dup is None:
        return None, {}
    return deduper.kept_flags(candidates, pinned, near_dup)


def _problem(candidates: list[Item], kept: Any, pinned: list[Item], room: int, scores: np.ndarray | None,
             tokens: np.ndarray | None, total: int, lowest: float) -> Problem:
    """What the strategy sees: the kept candidates with scores >= 0, in input order, and the room.

    `kept` is a flag per candidate (None: all kept); `scores` and `tokens` are the candidates'
    arrays (None for few items), which the `Problem` hands on (`Problem.arrays`) so the strategy
    reads no item for them; `total` is the candidates' total tokens and `lowest` a score no item
    is below.
    """
    everything = lowest >= 0.0 and (kept is None or (kept.all() if isinstance(kept, np.ndarray) else all(kept)))
    if scores is None:  # few items: no arrays, and C-level passes over the items
        if not everything:
            # Input order, so strategies see retrieval order; negative scores can never help.
            nonneg = map(ge, map(attrgetter("score"), candidates), repeat(0.0))
            candidates = list(compress(candidates, nonneg if kept is None else map(and_, kept, nonneg)))
            total = sum(map(attrgetter("tokens"), candidates))
        return Problem(tuple(candidates), min(room, total), tuple(pinned))
    if not everything:
        mask = scores >= 0.0 if kept is None else _flags(kept) & (scores >= 0.0)
        candidates = list(compress(candidates, mask.tolist()))
        scores, tokens = scores[mask], tokens[mask]
        scores.setflags(write=False)  # the problem's arrays are read-only, as its items are
        tokens.setflags(write=False)
        total = int(tokens.sum())  # at most 2**62: no int64 overflow
    # A room above the candidates' total changes no choice; capping it keeps a "no limit"
    # budget such as sys.maxsize within the DP's and the integer solvers' ranges.
    return Problem.of_columns(tuple(candidates), min(room, total), tuple(pinned), scores, tokens)


def _flags(kept: Any) -> np.ndarray:
    """A dedupe method's kept flags as a bool array."""
    if isinstance(kept, np.ndarray):
        return kept.astype(bool, copy=False)
    try:
        # bytes() reads a list of bools in one C loop; numpy's own conversion inspects each element.
        return np.frombuffer(bytes(kept), dtype=np.uint8).astype(bool)
    except (TypeError, ValueError):  # not 0/1 values: truthiness, as compress reads them
        return np.array([bool(k) for k in kept], dtype=bool)


def _refuse_if_skipped(parts: Parts, problem: Problem) -> None:
    """Raise the strategy's declared refusal (`Refused`) when its ``skip`` gives a reason."""
    refusal = parts.chooser.skip(problem)
    if refusal is not None:
        raise Refused(parts.strategy, refusal)


def _checked(parts: Parts, problem: Problem, selection: Selection, room: int) -> tuple[tuple[int, ...], list[Item], int, dict]:
    """(picked indices, chosen items, their tokens, info) once the selection passed its contract check."""
    picked = check_selection(parts.strategy, problem, selection, may_exceed_room=parts.chooser.may_exceed_budget)
    chosen = list(map(problem.candidates.__getitem__, picked))
    used = sum(map(attrgetter("tokens"), chosen))
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


def _assemble(pinned: list[Item], ordered: Iterable[Item], budget: int, parts: Parts, selection: Selection,
              dropped: Mapping[str, str], seconds: float, truncated: str | None, over: bool, info: dict,
              watch: Stopwatch) -> Packing:
    """The `Packing`: pinned items first, the ordered choice, the bound shifted by the pinned score."""
    pinned_score = math.fsum(map(attrgetter("score"), pinned))
    upper = None if selection.upper_bound is None else pinned_score + selection.upper_bound
    return Packing(pinned + list(ordered), budget=budget, strategy=parts.strategy, optimal=selection.optimal,
                   upper_bound=upper, dropped=dropped, seconds=seconds, truncated=truncated,
                   over_budget=over, info=info, stages=watch.total())


def _pinned_need(pinned: list[Item], budget: int, pinned_overflow: str) -> int:
    """The pinned items' tokens; over the budget, an error with "raise" (with "clamp" the caller stops)."""
    need = sum(map(attrgetter("tokens"), pinned))
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
    watch = Stopwatch()
    cols = read_items(items)
    budget, near_dup = validate_budget(budget), check_near_dup(near_dup)
    parts = resolve_parts(strategy, order, dedupe, fill, pinned_overflow, params, dedupe_on=near_dup is not None)
    pinned, candidates, scores, tokens = _split_pinned(cols)
    pinned_tokens = _pinned_need(pinned, budget, pinned_overflow)
    if pinned_tokens > budget:
        return Packing(pinned, budget=budget, strategy=parts.strategy, optimal=None, over_budget=True,
                       stages=watch.total())
    start = time.perf_counter()
    watch.mark()
    kept, dropped = _dedupe(parts.deduper, candidates, pinned, near_dup)
    watch.lap("dedupe")
    room = budget - pinned_tokens
    problem = _problem(candidates, kept, pinned, room, scores, tokens, cols.total_tokens - pinned_tokens,
                       cols.min_score)
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


def _strategy_call(parts: Parts, problem: Problem) -> Callable[[], Any]:
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
    cols = read_items(items)
    items = cols.items
    kwargs = dict(strategy=strategy, order=order, dedupe=dedupe, fill=fill, **params)
    pack(items, budget, near_dup, **kwargs)  # any error, as pack raises it
    near_dup = check_near_dup(near_dup)
    parts = resolve_parts(strategy, order, dedupe, fill, "raise", params, dedupe_on=near_dup is not None)
    pinned, candidates, scores, tokens = _split_pinned(cols)
    pinned_tokens = sum(it.tokens for it in pinned)
    room = budget - pinned_tokens
    kept, _ = _dedupe(parts.deduper, candidates, pinned, near_dup)
    problem = _problem(candidates, kept, pinned, room, scores, tokens,
                       cols.total_tokens - pinned_tokens, cols.min_score)
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
