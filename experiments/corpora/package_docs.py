"""Technical documentation read from installed packages' docstrings, with planted near-copies of known origin.

Text: the docstrings (`inspect.getdoc`) of the public callables of numpy and
pandas (``part="tune"``) or of scipy (``part="held_out"``, never looked at
while the dedupe rules were tuned), all BSD-licensed and installed with
packbench; nothing is downloaded or copied into the repository. Each
docstring is cut with `algorithms.chunking.recursive_chunks` into chunks of at
most ``chunk_tokens`` tokens (no overlap); an item's text is
``"{qualified name}\\n{chunk}"``.

Planted copies (a fixed generator, the same on every machine for the same
package versions): each chunk of at least 12 words gets, with probability
``copy_share`` each, an *edit* (about 8% of the words dropped, two neighbours
swapped, the case of a few words changed, a short suffix) and a *cut* (the
first 55-75% of the chunk's words). A copy is in its chunk's ground-truth
duplicate group; chunks whose normalised words are equal (templated
docstrings) share a group too.

Instance: one callable (the seed picks which): the query is its qualified name
in words (``"numpy linalg norm"``); the top-k items by BM25 are the
candidates; a system prompt and the question are pinned. An item is
answer-bearing when it holds the callable's summary line (the docstring's
first line, normalised as `nq_open.normalize_answer`): its original first
chunk, an edit that kept it whole, or a cut long enough to include it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import numpy as np
from packbench.algorithms import Item
from packbench.algorithms.chunking import recursive_chunks
from packbench.algorithms.dedupe import words
from packbench.algorithms.embed import embed_texts
from packbench.algorithms.params import Param, int_in, one_of, real_in
from packbench.algorithms.tokens import (
    DEFAULT_ENCODING,
    check_encoding_param,
    count_tokens_batch,
)

from ..instances import Instance, Source
from .nq_open import normalize_answer
from .retrieval import BM25Index

__all__ = ["PackageDocs", "PARTS", "plant_edit", "plant_cut"]

# Part -> the modules (and classes, for pandas' methods) whose public callables are read.
PARTS: dict[str, tuple[str, ...]] = {
    "tune": ("numpy", "numpy.linalg", "numpy.fft", "numpy.random", "pandas", "pandas:DataFrame", "pandas:Series"),
    "held_out": ("scipy.linalg", "scipy.stats", "scipy.optimize", "scipy.signal", "scipy.interpolate",
                 "scipy.sparse.linalg", "scipy.spatial"),
}
SYSTEM_PROMPT = "Answer the question using only the provided documentation excerpts."
_SUFFIXES = ("(see also the notes)", "- updated", "for details see below", "(experimental)", "as of this release")
_PLANT_SEED = 20251201


def _callables(spec: str) -> list[tuple[str, str]]:
    """(qualified name, docstring) of the public documented callables named by `spec`, sorted by name."""
    module_name, _, cls_name = spec.partition(":")
    owner: Any = importlib.import_module(module_name)
    prefix = module_name
    if cls_name:
        owner, prefix = getattr(owner, cls_name), f"{module_name}.{cls_name}"
    out = []
    for attr in sorted(dir(owner)):
        if attr.startswith("_"):
            continue
        try:
            obj = getattr(owner, attr)
        except Exception:
            continue
        if not callable(obj) or inspect.ismodule(obj):
            continue
        doc = inspect.getdoc(obj)
        if doc and len(doc.split()) >= 30:
            out.append((f"{prefix}.{attr}", doc))
    return out


def plant_edit(text: str, rng: np.random.Generator) -> str:
    """A small edit of `text`: ~8% of the words dropped, two neighbours swapped, a few cased, a suffix added."""
    ws = text.split()
    keep = [w for w in ws if rng.random() >= 0.08] or ws[:1]
    if len(keep) > 3:
        k = int(rng.integers(0, len(keep) - 1))
        keep[k], keep[k + 1] = keep[k + 1], keep[k]
    for k in rng.choice(len(keep), size=min(3, len(keep)), replace=False).tolist():
        keep[k] = keep[k].upper() if rng.random() < 0.5 else keep[k].capitalize()
    return " ".join(keep) + " " + _SUFFIXES[int(rng.integers(len(_SUFFIXES)))]


def plant_cut(text: str, rng: np.random.Generator) -> str:
    """The first 55-75% of the words of `text`."""
    ws = text.split()
    return " ".join(ws[:max(1, int(round(len(ws) * rng.uniform(0.55, 0.75))))])


class PackageDocs(Source):
    """Docstrings of installed numpy/pandas (tune) or scipy (held out) with planted edits and cuts, BM25 top-k.

    Params:
        part: ``"tune"`` (numpy, pandas) or ``"held_out"`` (scipy).
        n_queries: Callables asked per seed.
        top_k: BM25 candidates per query.
        chunk_tokens: Maximum tokens per chunk.
        copy_share: Probability that a chunk gets an edit copy, and (independently) a cut copy.
        encoding: tiktoken encoding or model name.
    """

    name = "package_docs"
    kind = "corpus"
    PARAMS = MappingProxyType({
        "part": Param("tune", one_of(*PARTS), "'tune' (numpy, pandas) or 'held_out' (scipy)"),
        "n_queries": Param(52, int_in(1, 100_000), "callables asked per seed"),
        "top_k": Param(20, int_in(1, 10_000), "BM25 candidates per query"),
        "chunk_tokens": Param(160, int_in(16, 100_000), "maximum tokens per chunk"),
        "copy_share": Param(0.3, real_in(0.0, 1.0), "chance of each planted copy"),
        "encoding": Param(DEFAULT_ENCODING, check_encoding_param, "tiktoken encoding or model name"),
    })

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._cache: dict[str, Any] = {}

    def _prepared(self) -> dict[str, Any]:
        if self._cache:
            return self._cache
        p = self.params
        rng = np.random.default_rng(_PLANT_SEED)
        ids, texts, origin, summaries, askable = [], [], [], {}, []
        for spec in PARTS[p["part"]]:
            for qual, doc in _callables(spec):
                if qual in summaries:
                    continue
                summaries[qual] = normalize_answer(doc.splitlines()[0])
                askable.append(qual)
                for k, chunk in enumerate(recursive_chunks(doc, p["chunk_tokens"], 0, p["encoding"])):
                    body = chunk.text.strip()
                    if not body:
                        continue
                    base = f"{qual}#{k}"
                    ids.append(base), texts.append(f"{qual}\n{body}"), origin.append(base)
                    if len(body.split()) < 12:
                        continue
                    for kind, plant in (("edit", plant_edit), ("cut", plant_cut)):
                        if rng.random() < p["copy_share"]:
                            ids.append(f"{base}/{kind}"), texts.append(f"{qual}\n{plant(body, rng)}")
                            origin.append(base)
        # Chunks with equal normalised words (templated docstrings) are one group, like their copies.
        first: dict[tuple[str, ...], str] = {}
        group_of = {o: first.setdefault(words(t.split("\n", 1)[1]), o) for t, o, i in zip(texts, origin, ids)
                    if i == o}
        self._cache.update(ids=ids, texts=texts, groups=[group_of[o] for o in origin], summaries=summaries,
                           askable=askable, index=BM25Index(texts), vectors=embed_texts(texts, "hashing"),
                           tokens=count_tokens_batch(texts, p["encoding"]))
        return self._cache

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        prep = self._prepared()
        askable = prep["askable"]
        rng = np.random.default_rng([int(seed), 17])
        asked = [askable[int(k)] for k in sorted(rng.choice(len(askable), size=min(p["n_queries"], len(askable)),
                                                            replace=False))]
        queries = [q.replace(".", " ").replace("_", " ") for q in asked]
        docs, scores = prep["index"].top_k(queries, p["top_k"])
        questions = [f"Question: what does {q} do?" for q in asked]
        fixed = count_tokens_batch([SYSTEM_PROMPT, *questions], p["encoding"])
        pinned_vecs = embed_texts([SYSTEM_PROMPT, *questions], "hashing", cache=False)
        for k, qual in enumerate(asked):
            summary = prep["summaries"][qual]
            cands, groups, answers = [], {}, set()
            for j, score in zip(docs[k], scores[k]):
                j = int(j)
                pid = prep["ids"][j]
                cands.append(Item(pid, prep["texts"][j], round(float(score), 6), prep["tokens"][j],
                                  source=prep["texts"][j].split("\n", 1)[0], embedding=prep["vectors"][j]))
                groups[pid] = prep["groups"][j]
                if summary and summary in normalize_answer(prep["texts"][j]):
                    answers.add(pid)
            pinned = [Item("system", SYSTEM_PROMPT, 0.0, fixed[0], pinned=True, embedding=pinned_vecs[0]),
                      Item("question", questions[k], 0.0, fixed[k + 1], pinned=True, embedding=pinned_vecs[k + 1])]
            yield Instance(key=f"{p['part']}/{qual}", items=tuple(pinned + cands), groups=groups,
                           answers=frozenset(answers), meta={"callable": qual, "part": p["part"]})

