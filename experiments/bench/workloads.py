"""Deterministic benchmark inputs: candidate texts with planted near-copies, Pisinger knapsacks.

Two text workloads: `realistic_candidates` (the main one: passages drawn from a
word bigram model fitted on NQ-Open's Wikipedia passages, with near-copies of
four kinds planted) and `random_candidates` (the easy one: uniform draws from
5,000 made-up words, whose texts share almost no trigrams, so the counting
filter proves nearly all of them unique at once).
"""

from __future__ import annotations

import random

import numpy as np

from packbench.algorithms import Item, Problem

__all__ = ["realistic_candidates", "random_candidates", "NEAR_COPY_KINDS", "plant_near_copy", "pisinger_problem", "pisinger_arrays", "PISINGER_CLASS_NAMES"]

# Class numbers 1-6 as in Pisinger (2005).
PISINGER_CLASS_NAMES = ("uncorrelated", "weakly_correlated", "strongly_correlated",
                        "inverse_strongly_correlated", "almost_strongly_correlated", "subset_sum")


NEAR_COPY_KINDS = ("edit", "cut", "merge", "reorder")
_SUFFIXES = ("see also", "citation needed", "edited", "updated 2024", "source wikipedia", "read more")


def _sentences(text: str) -> list[list[str]]:
    return [s.split() for s in text.split(". ")]


def _passage(sentences: list[list[str]]) -> str:
    """Sentences as text: each capitalised, all but the last ended by a full stop (DPR chunks end mid-sentence)."""
    return ". ".join(" ".join([s[0].capitalize(), *s[1:]]) for s in sentences if s)


def plant_near_copy(kind: str, source: str, other: str, rng: random.Random) -> str:
    """A near-copy of the passage `source` of one of `NEAR_COPY_KINDS`.

    Args:
        kind: "edit" (about 8% of words dropped, two neighbours swapped, one
            word upper-cased, a short suffix), "cut" (the first 55-75% of the
            words), "merge" (source followed by `other`) or "reorder" (the
            sentences shuffled; with one sentence, its halves swapped).
        source: The passage copied (sentences separated by ". ").
        other: The second paragraph of a merge.
        rng: The generator.

    Raises:
        ValueError: An unknown kind.
    """
    if kind == "edit":
        flat = source.split()
        flat = [w for w in flat if rng.random() >= 0.08] or flat[:1]
        if len(flat) >= 2:
            k = rng.randrange(len(flat) - 1)
            flat[k], flat[k + 1] = flat[k + 1], flat[k]
        if flat:
            k = rng.randrange(len(flat))
            flat[k] = flat[k].upper()
        return " ".join([*flat, "-", rng.choice(_SUFFIXES)])
    if kind == "cut":
        flat = source.split()
        return " ".join(flat[:max(1, round(len(flat) * rng.uniform(0.55, 0.75)))])
    if kind == "merge":
        return source + " " + other
    if kind == "reorder":
        sentences = _sentences(source)
        if len(sentences) >= 2:
            return _passage(rng.sample(sentences, len(sentences)))
        flat = source.split()
        return " ".join(flat[len(flat) // 2:] + flat[:len(flat) // 2])
    raise ValueError(f"near-copy kind must be one of {', '.join(NEAR_COPY_KINDS)}, got {kind!r}")


def realistic_candidates(n: int, seed: int = 0, dup_share: float = 0.1, stats_path: str | None = None) -> list[Item]:
    """The main text workload: `n` passages with NQ-Open's word statistics, a `dup_share` of them near-copies.

    Base passages come from `corpora.word_stats.WordStats` (lengths as NQ's
    DPR passages, about 90 words; word-trigram distinct share within 0.02 of
    the real passages at 300 and 2,587 texts). A planted copy is one of
    `NEAR_COPY_KINDS` (in turn) of an earlier text. Scores are uniform draws
    (6 digits), tokens 1.3 per word. Deterministic by seed.

    Args:
        n: Number of candidates.
        seed: Seeds every draw.
        dup_share: Share of candidates that are planted near-copies, in [0, 1).
        stats_path: Word stats to use instead of the shipped ones.

    Raises:
        ValueError: `n` negative or `dup_share` outside [0, 1).
    """
    from packbench.experiments.corpora.word_stats import load_word_stats

    if n < 0 or not 0.0 <= dup_share < 1.0:
        raise ValueError(f"realistic_candidates: need n >= 0 and dup_share in [0, 1), got n={n}, "
                         f"dup_share={dup_share}")
    stats = load_word_stats(stats_path)
    rng, np_rng = random.Random(seed), np.random.default_rng(seed)
    planted = [k > 0 and rng.random() < dup_share for k in range(n)]
    fresh = n - sum(planted)
    # Generated in fixed blocks, so the bigram walk's temporaries stay small at 10^5 texts.
    base = iter([t for lo in range(0, fresh, 4096) for t in stats.generate(min(4096, fresh - lo), np_rng)])
    texts: list[str] = []
    for k in range(n):
        texts.append(plant_near_copy(NEAR_COPY_KINDS[k % 4], rng.choice(texts), rng.choice(texts), rng)
                     if planted[k] else next(base))
    return [Item(f"c{k}", t, round(rng.random(), 6), max(1, int((t.count(" ") + 1) * 1.3)))
            for k, t in enumerate(texts)]


def random_candidates(n: int, seed: int = 0, words: int = 100, dup_share: float = 0.1,
                      vocab_size: int = 5000) -> list[Item]:
    """The easy text workload: `n` candidates of about `words` words (+-20%), a `dup_share` of them edited copies.

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
