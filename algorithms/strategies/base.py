"""The small interface every strategy implements, and the check of what a strategy returns."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping
from typing import Any, ClassVar

from ..component import Component
from ..items import Item, Problem, Selection

__all__ = ["Strategy", "Refused", "StrategyContractError", "check_selection", "isolated_problem", "item_copy",
           "DOMAINS"]

# Float sums of the same scores in another order differ by a few ulps: a bound this close below the
# score is rounding, not a broken promise.
_BOUND_SLACK = 1e-9
# The relative gap up to which solvers call a choice optimal (CP-SAT, B&B and the FPTAS use 1e-9 or less).
_OPTIMAL_SLACK = 1e-6

# The kinds of source a strategy can be meant for (a source declares one as its ``DOMAIN``).
DOMAINS = frozenset({"knapsack", "retrieval", "chat"})


class StrategyContractError(RuntimeError):
    """A strategy returned something it must not: a bug in the strategy, never a refusal.

    A RuntimeError (not a ValueError), so the experiment runner records the run as ``error``, not
    ``skipped``. The message names the strategy and what it broke.
    """


def check_selection(name: str, problem: Problem, selection: Any, may_exceed_room: bool = False) -> tuple[int, ...]:
    """The chosen candidate indices of a strategy's answer, checked against `problem`.

    Args:
        name: The strategy, for the message.
        problem: What the strategy was given.
        selection: What its `select` returned.
        may_exceed_room: Skip the room check (a peer adapter returning what the peer chose; `pack`
            marks the overflow instead).

    Returns:
        The indices, sorted.

    Raises:
        StrategyContractError: Not a `Selection`, an index that is not an int (bools are not indices) or
            out of range, an index repeated, chosen tokens over the room, ``optimal`` not a bool or None,
            ``optimal=True`` while a candidate with a positive score still fits, an ``upper_bound`` that
            is not a finite number or lies below the chosen score, or ``info`` that is not a mapping.
    """
    if not isinstance(selection, Selection):
        raise StrategyContractError(f"strategy {name!r} returned {type(selection).__name__}, not a Selection")
    n, candidates = len(problem.candidates), problem.candidates
    if isinstance(selection.indices, (str, bytes)) or not hasattr(selection.indices, "__iter__"):
        raise StrategyContractError(f"strategy {name!r}: Selection.indices must be a sequence of ints, got "
                                    f"{type(selection.indices).__name__}")
    # True == 1 and hashes like it: without this a bool would pass the set-based checks below as index 1.
    if any(isinstance(k, bool) for k in selection.indices):
        bad = next(k for k in selection.indices if isinstance(k, bool))
        raise StrategyContractError(f"strategy {name!r} chose index {bad!r}, a bool, not an int index")
    # Set-based: per-index checks in Python would cost several times the selection at 100,000 picks.
    try:
        unique = set(selection.indices)
    except TypeError:
        raise StrategyContractError(f"strategy {name!r} chose an index that is not an int "
                                    f"(indices: {list(selection.indices)[:5]!r}...)") from None
    if len(unique) < len(selection.indices):
        seen: set[Any] = set()
        twice = next(k for k in selection.indices if k in seen or seen.add(k))
        raise StrategyContractError(f"strategy {name!r} chose index {twice!r} twice")
    try:
        picked = sorted(unique)
        if picked and (picked[0] < 0 or picked[-1] >= n):
            bad = picked[0] if picked[0] < 0 else picked[-1]
            raise StrategyContractError(f"strategy {name!r} chose index {bad!r}, not a candidate index "
                                        f"(0 <= index < {n})")
        used = sum(candidates[k].tokens for k in picked)  # a float or str index raises TypeError here
    except TypeError:
        bad = next(k for k in selection.indices if isinstance(k, bool) or not isinstance(k, numbers.Integral))
        raise StrategyContractError(f"strategy {name!r} chose index {bad!r}, not an int") from None
    if used > problem.room and not may_exceed_room:  # a strategy bug must never reach a caller as a silent overflow
        raise StrategyContractError(f"strategy {name!r} chose {used} tokens for a room of {problem.room}")
    _check_claims(name, problem, selection, picked, used)
    return tuple(picked)


def _check_claims(name: str, problem: Problem, selection: Selection, picked: list[int], used: int) -> None:
    """What a Selection claims besides its indices (optimal, upper_bound, info) must fit the indices."""
    def broke(what: str) -> StrategyContractError:
        return StrategyContractError(f"strategy {name!r} returned Selection.{what}")

    optimal, bound = selection.optimal, selection.upper_bound
    if optimal is not None and not isinstance(optimal, bool):
        raise broke(f"optimal={optimal!r}; it must be True, False or None")
    if not isinstance(selection.info, Mapping):
        raise broke(f"info of type {type(selection.info).__name__}; it must be a mapping")
    if bound is None and optimal is not True:
        return
    candidates = problem.candidates
    score = math.fsum(candidates[k].score for k in picked)
    if bound is not None:
        if isinstance(bound, bool) or not isinstance(bound, numbers.Real):
            raise broke(f"upper_bound={bound!r}; it must be a finite number or None")
        if not math.isfinite(bound):
            raise broke(f"upper_bound={bound!r}; it must be finite (or None when no bound is known)")
        if bound < score - _BOUND_SLACK * max(1.0, abs(score)):
            raise broke(f"upper_bound={bound!r}, below the score {score!r} of its own choice")
    if optimal is True:
        free = problem.room - used
        if free > 0 and candidates:
            # Solvers prove optimality up to a relative gap: an item worth less than that is not a gain.
            negligible = _OPTIMAL_SLACK * max(abs(score), max(it.score for it in candidates))
            chosen = set(picked)
            for k, it in enumerate(candidates):
                if it.score > negligible and it.tokens <= free and k not in chosen:
                    raise broke(f"optimal=True, but candidate {it.id!r} (score {it.score!r}, {it.tokens} tokens) "
                                f"is left out and fits in the {free} tokens left: adding it scores more")


def item_copy(item: Item) -> Item:
    """A separate `Item` equal to `item` (embedding copied, read-only): changing it leaves `item` as it was.

    Built without `Item`'s validation (the source was validated), so a copy costs about a microsecond.
    """
    new = object.__new__(Item)
    for name in ("id", "text", "score", "tokens", "pinned", "source"):
        object.__setattr__(new, name, getattr(item, name))
    embedding = item.embedding
    if embedding is not None:
        embedding = embedding.copy()
        embedding.setflags(write=False)
    object.__setattr__(new, "embedding", embedding)
    return new


def isolated_problem(problem: Problem) -> Problem:
    """`problem` over copies of its items, for code outside packbench: whatever it does to them
    (``object.__setattr__`` included) cannot reach the caller's items or the other runs."""
    return Problem(tuple(map(item_copy, problem.candidates)), problem.room, tuple(map(item_copy, problem.pinned)))


def _isolating(method: Any) -> Any:
    """`method(self, problem)` called with `isolated_problem(problem)`."""
    @functools.wraps(method)
    def call(self: Any, problem: Problem) -> Any:
        return method(self, isolated_problem(problem))

    call._isolated = True  # type: ignore[attr-defined]
    return call


class Refused(ValueError):
    """A strategy's declared refusal (its `Strategy.skip` gave a reason), raised by `pack`.

    A ValueError, so library callers see what they always saw; the experiment
    runner records these, and only these, as ``skipped`` runs.

    Attributes:
        strategy: The strategy's name.
        reason: What `skip` returned.
    """

    def __init__(self, strategy: str, reason: str) -> None:
        super().__init__(reason)
        self.strategy = strategy
        self.reason = reason


class Strategy(Component):
    """Base class: declare `name` and `PARAMS`, implement `select` (and `skip` for declared refusals).

    Constructing a strategy validates its keyword parameters, so a bad
    parameter fails before any work is done.

    Args:
        **params: Values for the names declared in `PARAMS`.

    Raises:
        ValueError: Unknown parameter (the message lists the valid ones) or a
            value out of range.
        TypeError: A parameter of the wrong type.
    """

    kind: ClassVar[str] = "strategy"
    # Only peer adapters set this: `pack` then reports a choice over the room (``over_budget``,
    # ``info["over_tokens"]``) instead of raising, because the overflow is the peer's measured behaviour.
    may_exceed_budget: ClassVar[bool] = False
    # The source domains this strategy is meant for: the report recommends it only on those (the default,
    # every domain, is what score-maximising selection is for; policies such as recency declare fewer).
    DOMAINS: ClassVar[frozenset[str]] = DOMAINS

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A strategy from outside packbench sees copies of the items: it cannot change the caller's items
        # (nor, in the harness, the items the other runs of an instance share), whatever it does.
        if not (cls.__module__ or "").startswith("packbench."):
            for hook in ("skip", "select"):
                if hook in cls.__dict__ and not getattr(cls.__dict__[hook], "_isolated", False):
                    setattr(cls, hook, _isolating(cls.__dict__[hook]))

    def skip(self, problem: Problem) -> str | None:
        """A declared refusal: the reason this strategy will not run on `problem`, or None.

        The experiment runner records a run whose strategy refuses as ``skipped`` with this reason;
        any other exception (a `StrategyContractError` among them) is an ``error``.
        """
        return None

    def select(self, problem: Problem) -> Selection:
        """Choose candidates of `problem` whose tokens fit in `problem.room`.

        Args:
            problem: Deduplicated candidates, the room left and the pinned items.

        Returns:
            The chosen indices with what is known about optimality.
        """
        raise NotImplementedError
