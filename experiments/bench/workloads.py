"""Deterministic benchmark inputs: candidate texts with planted duplicates, Pisinger knapsacks."""

from __future__ import annotations

import random

import numpy as np

from packbench.algorithms import Item, Problem

__all__ = ["random_candidates", "pisinger_problem", "pisinger_arrays", "PISINGER_CLASS_NAMES"]

# Class numbers 1-6 as in Pisinger (2005).
PISINGER_CLASS_NAMES = ("uncorrelated", "weakly_correlated", "strongly_correlated",
                        "inverse_strongly_correlated", "almost_strongly_correlated", "subset_sum")


def random_candidates(n: int, seed: int = 0, words: int = 100, dup_share: float = 0.1,
                      vocab_size: int = 5000) -> list[Item]:
    """`n` candidates of about `words` words (+-20%), a `dup_share` of them edited copies.

    A planted duplicate copies an earlier text and replaces 0-10 of its words,
    so some are near duplicates at 0.8 and some are not. Tokens are 1.3 per word.
    """
    rng = random.Random(seed)
    vocab = [f"w{k:x}q" for k in range(vocab_size)]
    texts: list[list[str]] = []
    items = []
    for k in range(n):
        if texts and rng.random() < dup_share:
            ws = list(rng.choice(texts))
            for _ in range(rng.randint(0, 10)):
                ws[rng.randrange(len(ws))] = rng.choice(vocab)
        else:
            ws = rng.choices(vocab, k=rng.randint(int(words * 0.8), int(words * 1.2)))
        texts.append(ws)
        items.append(Item(f"c{k}", " ".join(ws), round(rng.random(), 6), max(1, int(len(ws) * 1.3))))
    return items


def pisinger_arrays(cls: int, n: int, seed: int = 0, R: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """(tokens, scores) of Pisinger class `cls` (1-6), from the project's family generator."""
    from packbench.experiments.families.pisinger import pisinger_weights_profits

    rng = np.random.default_rng([seed, cls, n])
    return pisinger_weights_profits(PISINGER_CLASS_NAMES[cls - 1], n, R, rng)


def pisinger_problem(cls: int, n: int, budget: int, seed: int = 0, R: int = 1000) -> Problem:
    """A strategy `Problem` of Pisinger class `cls` with room `budget` and empty texts."""
    tokens, scores = pisinger_arrays(cls, n, seed, R)
    cands = tuple(Item(f"i{k}", "", float(s), int(w)) for k, (w, s) in enumerate(zip(tokens, scores)))
    return Problem(cands, budget)
