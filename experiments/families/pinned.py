"""Pinned items (a system prompt and a question) and the word text every family uses.

Synthetic items carry an explicit token count. For generated word text the
count is the number of words: common English words are one cl100k token each
(with their leading space), so a text of k words costs about k tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.params import Param, int_in

__all__ = ["VOCABULARY", "PINNED_PARAMS", "word_text", "pinned_items"]

VOCABULARY: tuple[str, ...] = tuple("""
the of and to in is for that on with as by it from at be this are or an was which you not have
can will has but all more one their about new also data time use other its into than these may
only some any system model when after first two over most used such what were each make how then
where file user set value number between code both page function type following return under
information need well based different process request server table text list search order result
however available support list error access number query service method name state line policy
refund window delivery account payment shipping customer product price invoice contract report
budget token context memory window question answer document section paragraph source retrieval
index cluster vector score rank chunk message history summary prompt review version release update
install package library module test build deploy config network storage cache latency request
response client session record field column schema batch stream event queue worker thread lock
river mountain city country history science music language season market energy health water
travel school family garden window kitchen village forest island coast bridge harbor valley
early late small large long short high low open close quick slow strong light dark warm cold
""".split())

PINNED_PARAMS: Mapping[str, Param] = MappingProxyType({
    "system_tokens": Param(0, int_in(0, 100_000), "tokens of the pinned system prompt (0: none)"),
    "question_tokens": Param(0, int_in(0, 100_000), "tokens of the pinned question (0: none)"),
})

# Zipf-like word frequencies make the text look like prose to n-gram detectors.
_WORD_WEIGHTS = 1.0 / np.arange(1, len(VOCABULARY) + 1) ** 0.8
_WORD_WEIGHTS /= _WORD_WEIGHTS.sum()


def word_text(rng: np.random.Generator, n_words: int) -> str:
    """`n_words` words drawn from `VOCABULARY` with Zipf-like frequencies.

    Args:
        rng: The random generator (the caller's seeded stream).
        n_words: Number of words (>= 1).

    Returns:
        The words joined by spaces.
    """
    picks = rng.choice(len(VOCABULARY), size=n_words, p=_WORD_WEIGHTS)
    return " ".join(VOCABULARY[k] for k in picks)


def pinned_items(rng: np.random.Generator, system_tokens: int, question_tokens: int) -> list[Item]:
    """The pinned system prompt and question (each omitted when its size is 0).

    Args:
        rng: The random generator.
        system_tokens: Size of the system prompt in tokens.
        question_tokens: Size of the question in tokens.

    Returns:
        Up to two pinned items with ids ``"system"`` and ``"question"`` and score 0.
    """
    out = []
    if system_tokens:
        out.append(Item("system", "system: " + word_text(rng, system_tokens), 0.0, system_tokens, pinned=True))
    if question_tokens:
        out.append(Item("question", "question: " + word_text(rng, question_tokens), 0.0, question_tokens,
                        pinned=True))
    return out
