"""Orders by input position or by score: `original`, `score_desc`, `lost_in_middle`."""

from __future__ import annotations

from collections.abc import Sequence

from ..items import Item
from .base import Order, by_score, place

__all__ = ["Original", "ScoreDesc", "LostInMiddle", "lost_in_middle_slots"]


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
        return by_score(chosen)


class LostInMiddle(Order):
    """Best item first, second best last, third second, fourth second to last, ...

    Long-context models use the start and end of the context best (Liu et al.
    2024), so the weakest items go to the middle. The best item is always first,
    for odd and even counts alike, so a cut at the tail never loses it.
    """

    name = "lost_in_middle"

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        return place(by_score(chosen), lost_in_middle_slots(len(chosen)))
