"""The small interface every strategy implements."""

from __future__ import annotations

from typing import ClassVar

from ..component import Component
from ..items import Problem, Selection

__all__ = ["Strategy", "Refused"]


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

    def skip(self, problem: Problem) -> str | None:
        """A declared refusal: the reason this strategy will not run on `problem`, or None.

        The experiment runner records a run whose strategy refuses as ``skipped`` with this reason;
        any other exception is an ``error``.
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
