"""A plain function as a strategy: ``f(items, budget, **params) -> ids or items``, its output checked.

The function gets what a packer gets from `pack` once duplicates are removed: ``items``, a list of
`Item` with the pinned items first (input order) and then the deduplicated candidates with
non-negative scores (input order), and ``budget``, the token budget for all of them (pinned included;
capped at the tokens of all those items, which changes no choice). It returns the ids (or the `Item`s)
that go into the context, pinned ones included or not. The order it returns them in is not used: the
`order` of `pack` arranges the context.

What it returns is checked, and a violation raises `StrategyContractError` naming the function and
what it broke: an id that is not among the items given, an id returned twice, a pinned item left out
(when it returns any pinned id, it must return all of them), an `Item` that differs from the one given
under its id, or tokens over the budget.

Parameters: keyword parameters with defaults after ``items`` and ``budget`` are declared (`pack`
routes them, configs sweep them; a value must have the type of the default: bool, int, float or str;
a default of None or of any other type accepts anything), and a ``**params`` catch-all accepts any
other keyword, unchecked.

Containment: the function gets copies of the items (``object.__setattr__`` on one changes the copy, not
the caller's item), and every function strategy takes a ``timeout`` parameter (seconds, default None:
no limit) unless the function declares its own: ``pack(items, budget, strategy=f, timeout=2.0)`` then
calls `f` in a child process and stops it from outside when it runs over (`StrategyTimeout`), exits
(``sys.exit``, ``os._exit``) or dies (`StrategyContractError`), so a hanging or exiting function costs
its caller that one call. With a timeout, the function's output and the exceptions it raises must be
picklable; where ``fork`` exists (Linux) the function itself need not be.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Iterable
from types import MappingProxyType
from typing import Any

from ..items import Item, Problem, Selection
from ..params import Param, real_in
from .base import Strategy, StrategyContractError, item_copy
from .isolate import StrategyTimeout, call_isolated

__all__ = ["FunctionStrategy", "wrap_function", "check_function_output", "StrategyTimeout", "TIMEOUT_PARAM"]

TIMEOUT_PARAM = Param(None, real_in(0.0, lo_open=True, allow_none=True),
                      "seconds the function may run, stopped from outside (None: no limit)")


def _check_like(default: Any) -> Callable[[str, str, Any], Any]:
    """A param check accepting values of the default's type (ints pass for float defaults)."""
    if isinstance(default, bool):
        kinds: tuple[type, ...] = (bool,)
    elif isinstance(default, numbers.Integral):
        kinds = (numbers.Integral,)
    elif isinstance(default, numbers.Real):
        kinds = (numbers.Real,)
    elif isinstance(default, str):
        kinds = (str,)
    else:
        return lambda owner, name, value: value

    def check(owner: str, name: str, value: Any) -> Any:
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise TypeError(f"{owner}: parameter {name!r} must be a {type(default).__name__} like its "
                            f"default {default!r}, got {value!r}")
        return value

    return check


def _signature_params(func: Callable[..., Any], name: str) -> tuple[dict[str, Param], bool]:
    """Declared params and whether ``**params`` is accepted, from the signature of `func`."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"strategy {name!r}: cannot read the signature of {func!r}: {exc}") from None
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in params):
        raise ValueError(f"strategy {name!r}: a function strategy is called as f(items, budget, **params); "
                         f"{func.__qualname__}{sig} does not take two positional arguments")
    declared: dict[str, Param] = {}
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p in positional[:2]:
            continue
        if p.default is p.empty:
            raise ValueError(f"strategy {name!r}: parameter {p.name!r} of {func.__qualname__} has no default; "
                             f"give every parameter after items and budget a default")
        declared[p.name] = Param(p.default, _check_like(p.default), "keyword parameter of the function")
    return declared, any(p.kind is p.VAR_KEYWORD for p in params)


class FunctionStrategy(Strategy):
    """A plain function ``f(items, budget, **params)`` wrapped as a strategy (see the module docstring)."""

    func: Callable[..., Any]
    # Whether `timeout` is ours (True) or a parameter the function declares itself (False).
    OWN_TIMEOUT: bool = True

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.timeout = self.params.get("timeout") if self.OWN_TIMEOUT else None
        if self.OWN_TIMEOUT and self.timeout is None:
            # Left out of the resolved params when unset, so run ids and rows stay those of a function
            # without the option.
            self.params.pop("timeout", None)

    def select(self, problem: Problem) -> Selection:
        # Copies: the function may do anything to what it is handed, the caller's items stay as they were.
        pinned = tuple(map(item_copy, problem.pinned))
        candidates = tuple(map(item_copy, problem.candidates))
        seen = Problem(candidates, problem.room, pinned)
        items = [*pinned, *candidates]
        budget = problem.room + sum(it.tokens for it in pinned)
        params = {k: v for k, v in self.params.items() if k != "timeout" or not self.OWN_TIMEOUT}
        func, name = type(self).func, self.display_name()
        if self.timeout is None:
            out = func(items, budget, **params)
        else:
            out = call_isolated(func, (items, budget), params, self.timeout, f"strategy {name!r}")
        return Selection(check_function_output(name, seen, budget, out))


def wrap_function(func: Callable[..., Any], name: str) -> type[FunctionStrategy]:
    """A `Strategy` class that calls `func`.

    Args:
        func: ``f(items, budget, **params)`` returning the ids (or items) to keep.
        name: The name it was given by (import path or entry point), for rows and messages.

    Returns:
        A `FunctionStrategy` subclass; its ``__wrapped__`` is `func` (see `plugins.component_origin`).

    Raises:
        ValueError: `func` cannot be called as ``f(items, budget, **params)``, or a parameter after
            ``items`` and ``budget`` has no default.
    """
    declared, extra = _signature_params(func, name)
    own_timeout = "timeout" not in declared
    if own_timeout:
        declared["timeout"] = TIMEOUT_PARAM
    doc = (func.__doc__ or "").strip().splitlines()
    return type(f"FunctionStrategy[{func.__qualname__}]", (FunctionStrategy,), {
        "name": name, "PARAMS": MappingProxyType(declared), "EXTRA_PARAMS": extra, "OWN_TIMEOUT": own_timeout,
        "func": staticmethod(func), "__wrapped__": func, "__module__": FunctionStrategy.__module__,
        "__doc__": doc[0] if doc else f"function {func.__qualname__} (wrapped)",
    })


def check_function_output(name: str, problem: Problem, budget: int, out: Any) -> tuple[int, ...]:
    """Candidate indices of a function strategy's output, checked.

    Raises:
        StrategyContractError: As described in the module docstring.
    """
    def broke(what: str) -> StrategyContractError:
        return StrategyContractError(f"strategy {name!r} broke the function contract: {what}")

    if isinstance(out, (str, bytes, Item)) or not isinstance(out, Iterable):
        raise broke(f"returned {type(out).__name__}; expected a list of item ids or Items")
    given = {it.id: it for it in (*problem.pinned, *problem.candidates)}
    index = {it.id: k for k, it in enumerate(problem.candidates)}
    seen: set[str] = set()
    for pos, entry in enumerate(out):
        item_id = entry.id if isinstance(entry, Item) else entry
        if not isinstance(item_id, str):
            raise broke(f"entry [{pos}] is a {type(entry).__name__}, not an item id (str) or an Item")
        if item_id not in given:
            raise broke(f"returned {item_id!r}, which is not among the items it was given "
                        f"(a dropped duplicate, a negative score, or an unknown id)")
        if isinstance(entry, Item) and entry is not given[item_id] and entry != given[item_id]:
            raise broke(f"returned an Item {item_id!r} that differs from the item given under that id")
        if item_id in seen:
            raise broke(f"returned {item_id!r} twice")
        seen.add(item_id)
    pinned_ids = [it.id for it in problem.pinned]
    pinned_back = [pid for pid in pinned_ids if pid in seen]
    if pinned_back and len(pinned_back) < len(pinned_ids):
        left_out = [pid for pid in pinned_ids if pid not in seen]
        raise broke(f"left out pinned item(s) {', '.join(map(repr, left_out))} (pinned items are always kept)")
    tokens = sum(given[i].tokens for i in seen) + sum(it.tokens for it in problem.pinned if it.id not in seen)
    if tokens > budget:
        raise broke(f"chose {tokens} tokens (pinned included) for a budget of {budget}")
    return tuple(sorted(index[i] for i in seen if i in index))
