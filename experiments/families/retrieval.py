"""Retrieval-like instances: lognormal chunk lengths, Zipf-like scores, injected near-duplicates.

Each instance models one retrieval result list. ``n`` chunks come from
``sources`` documents; a share ``dup_rate`` of them are near-duplicates of
another chunk (a copy with 1-3 word edits: substitution, deletion or
insertion, as mirrored or re-chunked pages produce). Lengths are lognormal
(median ``len_median`` tokens, clipped to [min_tokens, max_tokens]); relevance
scores follow a Zipf-like curve over the retrieval rank, ``100 / rank**zipf``,
and a duplicate scores its original's score times U(0.85, 1). The list is
returned in retrieval order (score descending), ids ``c000``, ``c001``...

Ground truth: `Instance.groups` maps each candidate to its original's group,
and `Instance.answers` holds the chunks of the ``n_answers`` most relevant
originals together with their duplicates.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from types import MappingProxyType

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.params import Param, int_in, real_in

from ..instances import Instance, Source
from .pinned import PINNED_PARAMS, VOCABULARY, pinned_items, word_text

__all__ = ["Retrieval", "edit_words"]


def edit_words(rng: np.random.Generator, words: list[str], n_edits: int) -> list[str]:
    """Apply `n_edits` random word edits (substitute, delete or insert) to a copy of `words`.

    Args:
        rng: The random generator.
        words: The original words (at least 2).
        n_edits: Number of edits.

    Returns:
        The edited word list; it always differs from `words`.
    """
    out = list(words)
    for _ in range(n_edits):
        kind = rng.integers(3) if len(out) > 2 else 2
        pos = int(rng.integers(len(out)))
        if kind == 0:
            choices = [w for w in ("alpha", "beta", "gamma", "delta", "omega") if w != out[pos]]
            out[pos] = choices[int(rng.integers(len(choices)))]
        elif kind == 1:
            del out[pos]
        else:
            out.insert(pos, VOCABULARY[int(rng.integers(len(VOCABULARY)))])
    if out == list(words):  # an insertion can recreate the text; force a visible change
        out.append("revised")
    return out


class Retrieval(Source):
    """Synthetic retrieval result lists with ground-truth duplicate groups.

    Params:
        n: Chunks per instance (originals + duplicates).
        sources: Number of source documents.
        dup_rate: Share of chunks that are near-duplicates, in [0, 0.9].
        zipf: Exponent of the score curve over retrieval rank.
        len_median, len_sigma: Lognormal chunk length (median tokens, log-space sigma).
        min_tokens, max_tokens: Clip of the chunk lengths.
        n_answers: Originals (by relevance) whose chunks count as answer-bearing.
        instances: Instances per seed.
        system_tokens, question_tokens: Pinned item sizes.
    """

    name = "retrieval"
    kind = "family"
    DOMAIN = "retrieval"
    PARAMS = MappingProxyType({
        "n": Param(100, int_in(2, 100_000), "chunks per instance"),
        "sources": Param(8, int_in(1, 10_000), "source documents"),
        "dup_rate": Param(0.2, real_in(0.0, 0.9), "share of chunks that are near-duplicates"),
        "zipf": Param(0.8, real_in(0.0, 5.0), "score = 100 / rank**zipf"),
        "len_median": Param(120, int_in(2, 100_000), "median chunk tokens"),
        "len_sigma": Param(0.6, real_in(0.0, 3.0), "lognormal sigma of chunk tokens"),
        "min_tokens": Param(20, int_in(2, 100_000), "shortest chunk"),
        "max_tokens": Param(400, int_in(2, 100_000), "longest chunk"),
        "n_answers": Param(3, int_in(0, 100_000), "answer-bearing originals"),
        "instances": Param(1, int_in(1, 10_000), "instances per seed"),
        "system_tokens": Param(60, PINNED_PARAMS["system_tokens"].check, PINNED_PARAMS["system_tokens"].doc),
        "question_tokens": Param(20, PINNED_PARAMS["question_tokens"].check, PINNED_PARAMS["question_tokens"].doc),
    })

    def __init__(self, **params) -> None:
        super().__init__(**params)
        if self.params["min_tokens"] > self.params["max_tokens"]:
            raise ValueError(f"family 'retrieval': min_tokens={self.params['min_tokens']} must be <= "
                             f"max_tokens={self.params['max_tokens']}")

    def instance_keys(self, seed: int) -> list[str]:
        return [f"seed={seed}/i={k}" for k in range(self.params["instances"])]

    def instances(self, seed: int) -> Iterator[Instance]:
        for k in range(self.params["instances"]):
            yield self._one(seed, k)

    def _one(self, seed: int, index: int) -> Instance:
        p = self.params
        rng = np.random.default_rng([seed, 2, index])
        n_dup = min(p["n"] - 1, round(p["n"] * p["dup_rate"]))
        n_orig = p["n"] - n_dup
        lengths = np.exp(rng.normal(math.log(p["len_median"]), p["len_sigma"], size=n_orig))
        lengths = np.clip(np.rint(lengths), p["min_tokens"], p["max_tokens"]).astype(int)
        scores = 100.0 / np.arange(1, n_orig + 1) ** p["zipf"]
        # (score, words, source, group) per chunk; the group is the original's rank.
        chunks = [(float(scores[r]), word_text(rng, int(lengths[r])).split(), f"doc{int(rng.integers(p['sources']))}",
                   r) for r in range(n_orig)]
        for _ in range(n_dup):
            score, words, _, group = chunks[int(rng.integers(n_orig))]
            edited = edit_words(rng, words, int(rng.integers(1, 4)))
            chunks.append((score * float(rng.uniform(0.85, 1.0)), edited,
                           f"doc{int(rng.integers(p['sources']))}", group))
        chunks.sort(key=lambda c: -c[0])  # stable: an original precedes its equal-scored copies
        width = len(str(p["n"] - 1))
        cands, groups, answers = [], {}, set()
        for pos, (score, words, source, group) in enumerate(chunks):
            cid = f"c{pos:0{width}d}"
            cands.append(Item(cid, " ".join(words), round(score, 6), len(words), source=source))
            groups[cid] = f"g{group}"
            if group < p["n_answers"]:
                answers.add(cid)
        pinned = pinned_items(rng, p["system_tokens"], p["question_tokens"])
        return Instance(key=f"seed={seed}/i={index}", items=tuple(pinned + cands), groups=groups,
                        answers=frozenset(answers), meta={"n_duplicates": n_dup})
