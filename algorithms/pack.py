"""`pack`: validate, dedupe, select, order."""

from __future__ import annotations

import math
import numbers
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from itertools import compress, repeat
from operator import and_, attrgetter, ge, is_not, not_
from typing import Any

from .dedupe import DEDUPE_METHODS
from .items import Item, Packing, Problem
from .params import Param
from .registry import FILLS, ORDERS, STRATEGIES
from .strategies.base import Refused, check_selection

__all__ = ["pack", "validate_items", "validate_budget"]

PINNED_OVERFLOW = ("raise", "clamp")
# Token totals above this overflow int64 sums in numpy and the OR-Tools solvers.
MAX_TOTAL_TOKENS = 2**62
# Score totals above this overflow float sums (bounds add a fraction of an item to a total).
MAX_TOTAL_SCORE = sys.float_info.max / 4


def validate_items(items: Iterable[Item]) -> list[Item]:
    """Check that `items` is a list of `Item` with unique ids.

    Raises:
        TypeError: An element is not an `Item` (the message gives its position).
        ValueError: Two items share an id, or embeddings of different dimensions.
    """
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise TypeError(f"items must be an iterable of Item, got {type(items).__name__}")
    out = list(items)
    seen: set[str] = set()
    if set(map(type, out)) <= {Item}:
        # Plain items (the usual case): C-level passes; the loop below would only find a repeated id.
        ids = list(map(attrgetter("id"), out))
        if len(set(ids)) < len(ids):
            twice = next(i for i in ids if i in seen or seen.add(i))
            raise ValueError(f"item {twice!r}: id is repeated (ids must be unique)")
    else:
        for pos, it in enumerate(out):
            if not isinstance(it, Item):
                raise TypeError(f"items[{pos}] must be an Item, got {type(it).__name__}")
            if it.id in seen:
                raise ValueError(f"item {it.id!r}: id is repeated (ids must be unique)")
            seen.add(it.id)
    # The embeddings that are set, found by a C-level filter: most items have none, and a Python
    # loop over 10^5 items costs more than the rest of this check.
    dims = set(map(len, filter(partial(is_not, None), map(attrgetter("embedding"), out))))
    if len(dims) > 1:
        embedded = [it for it in out if it.embedding is not None]
        first = embedded[0]
        other = next(it for it in embedded if len(it.embedding) != len(first.embedding))
        raise ValueError(f"item {other.id!r}: embedding has {len(other.embedding)} dimensions, but item "
                         f"{first.id!r} has {len(first.embedding)} (all embeddings must have one dimension)")
    return out


def validate_budget(budget: Any) -> int:
    """Check that `budget` is a non-negative int (bools rejected)."""
    if isinstance(budget, bool) or not isinstance(budget, numbers.Integral):
        raise TypeError(f"budget must be a non-negative int, got {type(budget).__name__} {budget!r}")
    if budget < 0:
        raise ValueError(f"budget must be a non-negative int, got {budget!r}")
    return int(budget)


def _check_totals(items: list[Item]) -> None:
    """Reject token and score totals that no numeric solver can add up without overflow."""
    tokens = sum(map(attrgetter("tokens"), items))
    if tokens > MAX_TOTAL_TOKENS:
        raise ValueError(f"items: total tokens {tokens} exceed 2**62 (the largest the solvers can add up); "
                         f"largest item {max(items, key=lambda it: it.tokens).id!r}")
    try:
        score = math.fsum(map(abs, map(attrgetter("score"), items)))
    except OverflowError:
        score = math.inf
    if score > MAX_TOTAL_SCORE:
        raise ValueError(f"items: the absolute scores add up to more than {MAX_TOTAL_SCORE:.3g} (a quarter of the "
                         f"float range), so sums overflow; rescale the scores "
                         f"(largest: item {max(items, key=lambda it: abs(it.score)).id!r})")


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


def _check_near_dup(near_dup: Any) -> float | None:
    if near_dup is None:
        return None
    if isinstance(near_dup, bool) or not isinstance(near_dup, numbers.Real) or not math.isfinite(near_dup):
        raise TypeError(f"near_dup must be a number in [0, 1] or None, got {near_dup!r}")
    if not 0.0 <= near_dup <= 1.0:
        raise ValueError(f"near_dup must be in [0, 1] (or None to turn dedupe off), got {near_dup!r}")
    return float(near_dup)


def pack(items: Iterable[Item], budget: int, near_dup: float | None = 0.8, *,
         strategy: str | type | Callable[..., Any] = "greedy_best_single", order: str | type = "original",
         pinned_overflow: str = "raise", dedupe: str = "jaccard", fill: str | type | None = None,
         **params: Any) -> Packing:
    """Choose and order the items that go into a context window of `budget` tokens.

    Pinned items are always kept. Candidates are deduplicated (seed 000's rule:
    equal normalised word lists, or word-trigram Jaccard >= `near_dup` with a
    pinned or higher-scored kept item), candidates with negative scores are set
    aside, the strategy chooses within the room the pinned items leave, and the
    order arranges the chosen items after the pinned ones.

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
            default "exact" computes seed 000's near-duplicate rule exactly (unlike the
            approximate "minhash"); it is unrelated to the `exact` strategy.
        fill: None, or a name in `FILLS` (or an import path, plug-in name or `Fill` subclass) to
            use the leftover budget after selection.
        **params: Parameters of the strategy, order or fill (see `packbench list`).

    Returns:
        The `Packing`: pinned items first in input order, then the chosen items.

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
    items = validate_items(items)
    _check_totals(items)
    budget = validate_budget(budget)
    near_dup = _check_near_dup(near_dup)
    strategy, strategy_cls = STRATEGIES.resolve(strategy)
    order, order_cls = ORDERS.resolve(order)
    deduper = DEDUPE_METHODS.lookup(dedupe)()
    if pinned_overflow not in PINNED_OVERFLOW:
        raise ValueError(f"pinned_overflow must be one of {list(PINNED_OVERFLOW)}, got {pinned_overflow!r}")
    fill, fill_cls = (None, None) if fill is None else FILLS.resolve(fill)
    consumers = [(f"strategy {strategy!r}", strategy_cls.PARAMS), (f"order {order!r}", order_cls.PARAMS)]
    if fill_cls is not None:
        consumers.append((f"fill {fill!r}", fill_cls.PARAMS))
    routed = _route(params, consumers, open_to=0 if strategy_cls.EXTRA_PARAMS else None)
    chooser, arranger = strategy_cls(**routed[0]), order_cls(**routed[1])
    filler = fill_cls(**routed[2]) if fill_cls is not None else None

    flags = list(map(attrgetter("pinned"), items))
    # Without pinned items (the usual case) no pass over the items picks them out: each such pass
    # touches every item, a cache miss apiece once there are 10^5 of them.
    any_pinned = any(flags)
    pinned = list(compress(items, flags)) if any_pinned else []
    pinned_tokens = sum(it.tokens for it in pinned)
    if pinned_tokens > budget:
        if pinned_overflow == "raise":
            raise ValueError(f"pinned items need {pinned_tokens} tokens, over the budget of {budget} "
                             f"(pinned: {', '.join(it.id for it in pinned)})")
        return Packing(pinned, budget=budget, strategy=strategy, optimal=None, over_budget=True)

    start = time.perf_counter()
    candidates = list(compress(items, map(not_, flags))) if any_pinned else items
    if near_dup is None:
        kept, dropped = repeat(True), {}
    else:
        kept, dropped = deduper.kept_flags(candidates, pinned, near_dup)
    # Input order, so strategies see retrieval order; negative scores can never help (C-level passes).
    survivors = tuple(compress(candidates, map(and_, kept, map(ge, map(attrgetter("score"), candidates), repeat(0.0)))))
    room = budget - pinned_tokens
    # A room above the candidates' total changes no choice; capping it keeps a "no limit"
    # budget such as sys.maxsize within the DP's and the integer solvers' ranges.
    problem = Problem(survivors, min(room, sum(map(attrgetter("tokens"), survivors))), tuple(pinned))
    refusal = chooser.skip(problem)
    if refusal is not None:
        raise Refused(strategy, refusal)
    selection = chooser.select(problem)
    picked = check_selection(strategy, problem, selection, may_exceed_room=chooser.may_exceed_budget)
    chosen = [survivors[k] for k in picked]
    used = sum(it.tokens for it in chosen)
    info = dict(selection.info)
    if used > room:
        # Only a peer adapter may overflow (it counts words, or keeps the crossing item, as the peer
        # ships it): it returns what the peer chose, marked, so the harness can count the violation.
        info.update(budget_violation=True, over_tokens=used - room)
    ordered = arranger.arrange(chosen)
    truncated = None
    if filler is not None and used <= room:
        picked_set = set(picked)
        unchosen = sorted((it for k, it in enumerate(survivors) if k not in picked_set),
                          key=lambda it: (-it.score, it.id))
        ordered, truncated = filler.apply(ordered, unchosen, room - used)
    seconds = time.perf_counter() - start
    pinned_score = math.fsum(it.score for it in pinned)
    upper = None if selection.upper_bound is None else pinned_score + selection.upper_bound
    return Packing(pinned + list(ordered), budget=budget, strategy=strategy, optimal=selection.optimal,
                   upper_bound=upper, dropped=dropped, seconds=seconds, truncated=truncated,
                   over_budget=used > room, info=info)
