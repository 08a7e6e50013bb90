"""What a family or corpus hands the runner: instances of items with their ground truth."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from packbench.algorithms import Item
from packbench.algorithms.component import Component

__all__ = ["Instance", "Source"]


@dataclass(frozen=True)
class Instance:
    """One packing problem (without its budget, which the config sweeps).

    Attributes:
        key: Stable name of the instance within its family, e.g. ``"seed=3"`` or ``"q=17"``.
        items: Pinned items and candidates.
        groups: Ground-truth duplicate group of each candidate id (same group =
            same content), or None when the source has no ground truth.
        answers: Ids of answer-bearing candidates, or None when unlabelled.
        meta: Extra JSON-serialisable facts about the instance (e.g. the question).
    """

    key: str
    items: tuple[Item, ...]
    groups: Mapping[str, str] | None = None
    answers: frozenset[str] | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)


class Source(Component):
    """Base class of synthetic families and real corpora.

    Subclasses declare `name` and `PARAMS` and implement `instances`. Building
    one validates its parameters.

    Args:
        **params: Values for the names declared in `PARAMS`.

    Raises:
        ValueError: Unknown parameter (the message lists the valid ones) or a
            value out of range.
    """

    kind: ClassVar[str] = "family"  # "family" (synthetic) or "corpus" (real data)
    # What the instances are: "knapsack", "retrieval" or "chat" (`strategies.base.DOMAINS`).
    DOMAIN: ClassVar[str] = "retrieval"

    def instances(self, seed: int) -> Iterator[Instance]:
        """Yield the instances for `seed`, deterministically."""
        raise NotImplementedError

    def instance_keys(self, seed: int) -> Sequence[str] | None:
        """The keys `instances(seed)` yields, in order, without building them; None when unknown.

        Planning calls this so a sweep need not build every instance twice;
        a source that can name its instances cheaply overrides it.
        """
        return None

    def data_note(self) -> str | None:
        """Which data files the instances are read from (a corpus says; a synthetic family has none)."""
        return None
