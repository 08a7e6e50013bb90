"""The reader step: pack each instance, ask the reader, score the answer against the gold answers."""

from __future__ import annotations

from collections.abc import Iterable

from packbench.experiments.instances import Instance

from .base import Reader, ReaderRow
from .scoring import exact_match, token_f1

__all__ = ["run_reader", "summarise"]


def run_reader(instances: Iterable[Instance], reader: Reader, budget: int, *, strategy: str = "greedy_best_single",
               order: str = "original") -> list[ReaderRow]:
    """One `ReaderRow` per instance.

    The context is the packed non-pinned passages in their order, separated by blank lines; the question is the
    instance's ``meta["question"]`` and the gold answers ``meta["answers"]`` (as the `nq_open` corpus sets them).

    Raises:
        ValueError: An instance without a question or gold answers (names its key), or a reader that
            returns something other than a string.
    """
    from packbench.algorithms import pack

    if not callable(reader):
        raise TypeError(f"reader must be callable (context, question) -> str, got {type(reader).__name__}")
    rows = []
    for inst in instances:
        question, golds = inst.meta.get("question"), inst.meta.get("answers")
        if not question or not golds:
            raise ValueError(f"instance {inst.key!r}: meta needs 'question' and 'answers' for the reader step")
        packed = pack(list(inst.items), budget, strategy=strategy, order=order)
        passages = [it for it in packed if not it.pinned]
        answer = reader("\n\n".join(it.text for it in passages), question)
        if not isinstance(answer, str):
            raise ValueError(f"instance {inst.key!r}: the reader returned {type(answer).__name__}, not a string")
        rows.append(ReaderRow(inst.key, budget, strategy, order, answer, exact_match(answer, golds),
                              token_f1(answer, golds), any(it.id in inst.answers for it in passages),
                              sum(it.tokens for it in packed)))
    return rows


def summarise(rows: list[ReaderRow]) -> dict[str, float]:
    """Mean exact match and F1, and the share of contexts holding an answer."""
    n = max(len(rows), 1)
    return {"questions": len(rows), "exact_match": sum(r.exact_match for r in rows) / n,
            "f1": sum(r.f1 for r in rows) / n, "answer_in_context": sum(r.answer_in_context for r in rows) / n}
