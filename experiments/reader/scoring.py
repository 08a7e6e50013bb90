"""Answer scoring as in the NQ-Open literature: normalised exact match and token F1 (max over gold answers).

Normalisation is SQuAD's (Rajpurkar et al. 2016, evaluate-v1.1): lower-case, drop punctuation and the
articles a/an/the, collapse whitespace; the same function labels answer-bearing passages in the
`nq_open` corpus (`corpora.nq_open.normalize_answer`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from packbench.experiments.corpora.nq_open import normalize_answer

__all__ = ["normalize_answer", "exact_match", "token_f1"]


def _golds(golds: Sequence[str]) -> list[str]:
    if isinstance(golds, str) or not golds:
        raise ValueError(f"gold answers must be a non-empty list of strings, got {golds!r}")
    return list(golds)


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals some normalised gold answer, else 0.0.

    Raises:
        ValueError: `golds` is empty or a bare string.
    """
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(g) for g in _golds(golds)))


def _f1(pred: list[str], gold: list[str]) -> float:
    if not pred or not gold:
        return float(pred == gold)
    same = sum((Counter(pred) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, golds: Sequence[str]) -> float:
    """Best token-overlap F1 of the normalised prediction against any normalised gold answer.

    Raises:
        ValueError: `golds` is empty or a bare string.
    """
    pred = normalize_answer(prediction).split()
    return max(_f1(pred, normalize_answer(g).split()) for g in _golds(golds))
