"""The reader protocol: any callable ``(context, question) -> answer`` (a `Reader`), and one result row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["Reader", "ReaderRow", "ReaderError"]


@runtime_checkable
class Reader(Protocol):
    """Answers a question from a context. Adapters may also expose ``usage`` (a dict of totals)."""

    def __call__(self, context: str, question: str) -> str: ...


class ReaderError(RuntimeError):
    """The reader failed after its retries (the message names the endpoint and the last status)."""


@dataclass(frozen=True)
class ReaderRow:
    """One question's result.

    Attributes:
        key: Instance key (e.g. ``sample/q=12``).
        budget: Token budget of the packed context.
        strategy: Packing strategy.
        order: Order of the packed passages.
        answer: The reader's answer.
        exact_match: Normalised exact match against the gold answers (0 or 1).
        f1: Best token F1 against the gold answers.
        answer_in_context: Whether a packed passage bears a gold answer.
        context_tokens: Tokens of the packed context (pinned items included).
    """

    key: str
    budget: int
    strategy: str
    order: str
    answer: str
    exact_match: float
    f1: float
    answer_in_context: bool
    context_tokens: int
