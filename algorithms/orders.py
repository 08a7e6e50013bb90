"""Orderings of the chosen items inside the context (pinned items always stay in front)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from .component import Component
from .items import Item

__all__ = ["Order", "Original", "ScoreDesc", "LostInMiddle", "lost_in_middle_slots"]


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


def _by_score(chosen: Sequence[Item]) -> list[Item]:
    # Stable sort: equal scores keep input order.
    return sorted(chosen, key=lambda it: -it.score)


def lost_in_middle_slots(n: int) -> list[int]:
    """Slot of the k-th best item: 0, n-1, 1, n-2, ... (best first, second best last)."""
    return [k // 2 if k % 2 == 0 else n - 1 - k // 2 for k in range(n)]


class Original(Order):
    """Input order (retrieval or document order), as seed 000 returns it."""

    name = "original"

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        return list(chosen)


class ScoreDesc(Order):
    """Highest score first; ties keep input order."""

    name = "score_desc"

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        return _by_score(chosen)


class LostInMiddle(Order):
    """Best item first, second best last, third second, fourth second to last, ...

    Long-context models use the start and end of the context best (Liu et al.
    2024), so the weakest items go to the middle. The best item is always first,
    for odd and even counts alike, so a cut at the tail never loses it.
    """

    name = "lost_in_middle"

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        ranked = _by_score(chosen)
        out: list[Item | None] = [None] * len(ranked)
        for item, slot in zip(ranked, lost_in_middle_slots(len(ranked))):
            out[slot] = item
        return out  # type: ignore[return-value]
