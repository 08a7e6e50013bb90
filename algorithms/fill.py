"""Post-selection fills of the leftover budget (registered in `registry.FILLS` for `pack(fill=...)`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from .component import Component
from .items import Item

__all__ = ["Fill"]


class Fill(Component):
    """Base class: declare `name` and `PARAMS`, implement `apply`.

    Args:
        **params: Values for the names declared in `PARAMS`.
    """

    kind: ClassVar[str] = "fill"

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

