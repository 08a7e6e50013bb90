"""The `Order` base class and the one placement helper every ranked order uses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from ..component import Component
from ..items import Item

__all__ = ["Order", "by_score", "place"]


class Order(Component):
    """Base class: declare `name` and `PARAMS`, implement `arrange`.

    Args:
        **params: Values for the names declared in `PARAMS`.

    Raises:
        ValueError: Unknown parameter or a value out of range.
    """

    kind: ClassVar[str] = "order"

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        """Return `chosen` (given in input order) in this order's sequence."""
        raise NotImplementedError


def by_score(chosen: Sequence[Item]) -> list[Item]:
    """Highest score first; the sort is stable, so equal scores keep input order."""
    return sorted(chosen, key=lambda it: -it.score)


def place(ranked: Sequence[Item], slots: Sequence[int]) -> list[Item]:
    """Put the k-th ranked item at position ``slots[k]``.

    Args:
        ranked: The items, best first.
        slots: A permutation of ``range(len(ranked))``.

    Returns:
        The items in context order.

    Raises:
        ValueError: `slots` is not a permutation of the positions (an order bug, never silent).
    """
    n = len(ranked)
    if len(slots) != n or sorted(slots) != list(range(n)):
        raise ValueError(f"place: slots must be a permutation of range({n}), got {list(slots)!r}")
    out: list[Item | None] = [None] * n
    for item, slot in zip(ranked, slots):
        out[slot] = item
    return out  # type: ignore[return-value]
