"""Post-selection fills of the leftover budget (registered by name for `pack(fill=...)`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from .items import Item
from .params import Param, resolve_params

__all__ = ["Fill", "FILLS"]


class Fill:
    """Base class: declare `name` and `PARAMS`, implement `apply`.

    Args:
        **params: Values for the names declared in `PARAMS`.
    """

    name: ClassVar[str] = ""
    PARAMS: ClassVar[Mapping[str, Param]] = MappingProxyType({})

    def __init__(self, **params: Any) -> None:
        self.params = resolve_params(f"fill {self.name!r}", self.PARAMS, params)

    def apply(self, chosen: Sequence[Item], unchosen: Sequence[Item], room_left: int) -> tuple[list[Item], str | None]:
        """Add to the ordered `chosen` items using at most `room_left` more tokens.

        Args:
            chosen: The chosen candidates, already ordered.
            unchosen: Deduplicated candidates that were not chosen, best first.
            room_left: Tokens still free in the budget.

        Returns:
            (the new ordered candidate list, id of a truncated item or None).
        """
        raise NotImplementedError


# Imported after Fill is defined: truncate.py subclasses it.
from .truncate import Truncate  # noqa: E402

FILLS: dict[str, type[Fill]] = {
    "truncate": Truncate,
}
