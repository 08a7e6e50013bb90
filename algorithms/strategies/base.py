"""The small interface every strategy implements."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

from ..items import Problem, Selection
from ..params import Param, resolve_params

__all__ = ["Strategy"]


class Strategy:
    """Base class: declare `name` and `PARAMS`, implement `select`.

    Constructing a strategy validates its keyword parameters, so a bad
    parameter fails before any work is done.

    Args:
        **params: Values for the names declared in `PARAMS`.

    Raises:
        ValueError: Unknown parameter (the message lists the valid ones) or a
            value out of range.
        TypeError: A parameter of the wrong type.
    """

    name: ClassVar[str] = ""
    PARAMS: ClassVar[Mapping[str, Param]] = MappingProxyType({})

    def __init__(self, **params: Any) -> None:
        self.params = resolve_params(f"strategy {self.name!r}", self.PARAMS, params)

    def select(self, problem: Problem) -> Selection:
        """Choose candidates of `problem` whose tokens fit in `problem.room`.

        Args:
            problem: Deduplicated candidates, the room left and the pinned items.

        Returns:
            The chosen indices with what is known about optimality.
        """
        raise NotImplementedError
