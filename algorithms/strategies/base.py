"""The small interface every strategy implements, and the check of what a strategy returns."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

from ..component import Component
from ..items import Problem, Selection

__all__ = ["Strategy", "Refused", "StrategyContractError", "check_selection", "DOMAINS"]

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
        StrategyContractError: Not a `Selection`, an index that is not an int or out of range, an index
            repeated, or chosen tokens over the room.
    """
    if not isinstance(selection, Selection):
        raise StrategyContractError(f"strategy {name!r} returned {type(selection).__name__}, not a Selection")
    n, candidates = len(problem.candidates), problem.candidates
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
    return tuple(picked)


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
