"""The data types of the packing interface: `Item`, `Packing` and strategy results.

Validation happens when an `Item` is built, so an invalid item can never reach a
strategy; `pack` only checks what needs the whole list (repeated ids, budget).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from types import MappingProxyType
from typing import Any

__all__ = ["Item", "Packing", "Selection", "Problem"]

_SCORE, _TOKENS = attrgetter("score"), attrgetter("tokens")


def _item_label(item_id: Any) -> str:
    return f"item {item_id!r}"


def _check_embedding(label: str, value: Any):
    """The embedding as a read-only 1-D float64 array, or a clear error naming the item."""
    import numpy as np  # lazy: items without embeddings never need numpy

    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"{label}: embedding must be a 1-D sequence of floats, got {type(value).__name__}")
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{label}: embedding must be a 1-D sequence of floats ({exc})") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{label}: embedding must be a non-empty 1-D vector, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{label}: embedding must be finite, got {float(arr[bad])!r} at position {bad}")
    arr.setflags(write=False)
    return arr


# Slots, not a per-instance dict: `pack` reads a field or two of every item in several passes, and
# with 10^5 items each read of a dict-backed item touches two more objects that are out of cache.
@dataclass(frozen=True, slots=True)
class Item:
    """One candidate for the context window.

    Args:
        id: Unique, non-empty identifier.
        text: The text that would go into the context.
        score: Utility of the item (finite real; negative scores are allowed but
            such items are never chosen).
        tokens: Token cost, a positive int (bools are rejected).
        pinned: Pinned items (system prompt, question) are always kept.
        source: Optional source document, used by per-source objectives.
        embedding: Optional 1-D vector of finite floats (a list, tuple or numpy
            array), used by ``dedupe="semantic"`` and ``similarity="cosine"``.
            Stored as a read-only float64 numpy array; it takes no part in
            equality or hashing (it is derived from the text).

    Raises:
        TypeError: A field has the wrong type.
        ValueError: A field is out of range (empty id, non-finite score, tokens <= 0).
    """

    id: str
    text: str
    score: float
    tokens: int
    pinned: bool = False
    source: str | None = None
    embedding: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str):
            raise TypeError(f"item id must be a str, got {type(self.id).__name__} {self.id!r}")
        if not self.id:
            raise ValueError("item id must be a non-empty str")
        label = _item_label(self.id)
        if not isinstance(self.text, str):
            raise TypeError(f"{label}: text must be a str, got {type(self.text).__name__}")
        if isinstance(self.score, bool) or not isinstance(self.score, numbers.Real):
            raise TypeError(f"{label}: score must be a real number, got {type(self.score).__name__} {self.score!r}")
        score = float(self.score)
        if not math.isfinite(score):
            raise ValueError(f"{label}: score must be finite, got {self.score!r}")
        if isinstance(self.tokens, bool) or not isinstance(self.tokens, numbers.Integral):
            raise TypeError(f"{label}: tokens must be a positive int, got {type(self.tokens).__name__} {self.tokens!r}")
        if self.tokens <= 0:
            raise ValueError(f"{label}: tokens must be a positive int, got {self.tokens!r}")
        if not isinstance(self.pinned, bool):
            raise TypeError(f"{label}: pinned must be a bool, got {type(self.pinned).__name__}")
        if self.source is not None and not isinstance(self.source, str):
            raise TypeError(f"{label}: source must be a str or None, got {type(self.source).__name__}")
        if self.embedding is not None:
            object.__setattr__(self, "embedding", _check_embedding(label, self.embedding))
        # Normalise numpy scalars so downstream arithmetic and JSON output are plain Python.
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "tokens", int(self.tokens))


@dataclass(frozen=True)
class Problem:
    """What a strategy sees: deduplicated candidates, the room left, the pinned items.

    Attributes:
        candidates: Non-pinned items that survived dedupe and have score >= 0, in input order.
        room: Token budget left after the pinned items (>= 0); `pack` caps it at the
            candidates' total tokens, which changes no choice.
        pinned: The pinned items, in input order.
    """

    candidates: tuple[Item, ...]
    room: int
    pinned: tuple[Item, ...] = ()
    #: Arrays derived from the items (e.g. `vectors.problem_embeddings`), built by the first strategy
    #: call that needs them and reused by later calls on this problem; not part of equality.
    cache: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    @classmethod
    def of_columns(cls, candidates: tuple[Item, ...], room: int, pinned: tuple[Item, ...], scores: Any,
                   tokens: Any) -> Problem:
        """A Problem whose `arrays` are given: `pack` read them in its one pass over the items.

        Args:
            candidates, room, pinned: As the fields.
            scores: The candidates' scores, a read-only float64 array.
            tokens: Their tokens, a read-only int64 array.
        """
        problem = cls(candidates, room, pinned)
        object.__setattr__(problem, "_arrays", (scores, tokens))
        return problem

    def arrays(self) -> tuple[Any, Any] | None:
        """(scores, tokens) of the candidates as read-only float64 and int64 numpy arrays.

        Read from the items once per problem (or given by `pack`); not fields, so equality and
        `dataclasses.replace` ignore them.

        Returns:
            The two arrays, or None when the tokens add up to more than 2**62 (int64 sums could overflow).
        """
        arrays = self.__dict__.get("_arrays", _UNREAD)
        if arrays is _UNREAD:
            arrays = _candidate_arrays(self.candidates)
            object.__setattr__(self, "_arrays", arrays)
        return arrays


_UNREAD = object()


def _candidate_arrays(candidates: tuple[Item, ...]) -> tuple[Any, Any] | None:
    import numpy as np  # lazy, as in _check_embedding

    tokens = [it.tokens for it in candidates]
    if sum(tokens) > 2**62:
        return None
    scores = np.array([it.score for it in candidates], dtype=np.float64)
    ints = np.array(tokens, dtype=np.int64)
    scores.setflags(write=False)
    ints.setflags(write=False)
    return scores, ints


@dataclass(frozen=True)
class Selection:
    """A strategy's answer: which candidates, and what is known about optimality.

    Attributes:
        indices: Positions in `Problem.candidates` of the chosen items.
        optimal: True proven optimal, False known not to be, None unknown.
        upper_bound: Proven bound on the best achievable candidate score (pinned
            excluded), or None.
        info: Strategy-specific extras (e.g. objective value), JSON-serialisable.
    """

    indices: tuple[int, ...]
    optimal: bool | None = None
    upper_bound: float | None = None
    info: Mapping[str, Any] = field(default_factory=dict)


class Packing(Sequence):
    """The result of `pack`: an immutable sequence of the returned items.

    Pinned items come first in input order, then the chosen items in the order
    asked for. Indexing with a slice returns a tuple.

    Attributes:
        score: Total score of all returned items, pinned included.
        tokens: Total tokens of all returned items.
        budget: The budget that was asked for.
        strategy: Name of the strategy that chose the items.
        optimal: True proven optimal, False known not to be, None unknown.
        upper_bound: Proven upper bound on the best achievable `score`, or None.
        dropped: Id of each candidate removed as a duplicate -> id of the kept or
            pinned item it duplicated.
        seconds: Wall time of dedupe plus selection.
        stages: CPU seconds (`time.process_time`) of each stage that ran: ``dedupe``, ``select``
            (the strategy), ``order``, ``fill`` and ``pack`` (the whole call, validation included).
        over_budget: True with `pinned_overflow="clamp"` when the pinned items
            alone exceed the budget, or when a peer adapter (a strategy with
            ``may_exceed_budget``) chose more than the room; then ``info`` has
            ``budget_violation`` and ``over_tokens``.
        truncated: Id of the item that was cut to fill the leftover budget, or None.
        info: Strategy-specific extras.
    """

    __slots__ = ("_items", "score", "tokens", "budget", "strategy", "optimal", "upper_bound",
                 "dropped", "seconds", "over_budget", "truncated", "info", "stages")

    def __init__(self, items: Sequence[Item], *, budget: int, strategy: str,
                 optimal: bool | None = None, upper_bound: float | None = None,
                 dropped: Mapping[str, str] | None = None, seconds: float = 0.0,
                 over_budget: bool = False, truncated: str | None = None,
                 info: Mapping[str, Any] | None = None, stages: Mapping[str, float] | None = None) -> None:
        sets = object.__setattr__
        sets(self, "_items", tuple(items))
        sets(self, "score", float(math.fsum(map(_SCORE, self._items))))
        sets(self, "tokens", sum(map(_TOKENS, self._items)))
        sets(self, "budget", budget)
        sets(self, "strategy", strategy)
        sets(self, "optimal", optimal)
        sets(self, "upper_bound", upper_bound)
        sets(self, "dropped", MappingProxyType(dict(dropped or {})))
        sets(self, "seconds", seconds)
        sets(self, "over_budget", over_budget)
        sets(self, "truncated", truncated)
        sets(self, "info", MappingProxyType(dict(info or {})))
        sets(self, "stages", MappingProxyType(dict(stages or {})))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Packing is immutable")

    def __getitem__(self, index):
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    @property
    def ids(self) -> list[str]:
        """Ids of the returned items, in order."""
        return [i.id for i in self._items]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable summary of the packing."""
        return {
            "ids": self.ids, "score": self.score, "tokens": self.tokens, "budget": self.budget,
            "strategy": self.strategy, "optimal": self.optimal, "upper_bound": self.upper_bound,
            "dropped": dict(self.dropped), "over_budget": self.over_budget,
            "truncated": self.truncated, "seconds": self.seconds,
        }

    def __repr__(self) -> str:
        return (f"Packing(ids={self.ids!r}, score={self.score!r}, tokens={self.tokens}, "
                f"budget={self.budget}, strategy={self.strategy!r}, optimal={self.optimal!r})")
