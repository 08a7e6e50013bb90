"""NQ-Open questions over a pool of Wikipedia passages with known duplicates and answer labels.

Data: ``nq-open-oracle.jsonl.gz`` (2,655 NaturalQuestions-Open questions from
the Lost in the Middle release), found or downloaded by `data.fetch`; with
``data = "auto"`` (the default) the embedded 300-question sample stands in when
no data directory is set and the download fails (`data.load_rows`). Instances
of the sample are keyed ``sample/q=N``, so their run ids never mix with the
full file's.

Pool: every question's DPR passage (``q{row}/ctx``) and the full paragraph the
annotators marked (``q{row}/long``). Both come from the same source paragraph,
so they form one ground-truth duplicate group; passages with equal normalised
words in different rows are merged into the same group too (55 questions share
a passage). Item text is ``"{title}\\n{passage}"``.

Instance: one question. The top-k pool passages by the retriever
(`retrieval`: ``"bm25"``, bm25s with English stopwords and no stemming, the
default; ``"dense"``, cosine of `embedder` embeddings; ``"hybrid"``, reciprocal
rank fusion of both) against the question are the candidates, scored by the
retriever's score, with tiktoken token counts; a system prompt and the
question are pinned. Every item carries its `embedder` embedding (cached on
disk per pool), for ``dedupe="semantic"`` and ``similarity="cosine"``. A candidate is answer-bearing when one of the question's answers,
normalised as in the Lost in the Middle evaluation (lower case, punctuation
and the articles a/an/the removed, whitespace collapsed), occurs in its
normalised text. The seed chooses which questions; everything else is fixed.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.dedupe import words
from packbench.algorithms.embed import embed_texts
from packbench.algorithms.params import Param, int_in
from packbench.algorithms.tokens import DEFAULT_ENCODING, check_encoding_param, count_tokens_batch

from ..instances import Instance, Source
from .data import DATA_MODES, NQ_OPEN_FILE, NQ_OPEN_SAMPLE, DataError, load_rows
from .retrieval import BM25Index, check_embedder, check_retriever, make_index

__all__ = ["NQOpen", "normalize_answer", "has_answer", "BM25Index", "build_pool", "Pool"]

SYSTEM_PROMPT = ("Write a high-quality answer for the given question using only the provided search results "
                 "(some of which might be irrelevant).")

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and the articles a/an/the, collapse whitespace."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def has_answer(passage: str, answers: Sequence[str]) -> bool:
    """True when a non-empty normalised answer occurs in the normalised passage."""
    norm = normalize_answer(passage)
    return any(a and a in norm for a in (normalize_answer(x) for x in answers))


def _text_param(owner: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{owner}: parameter {name!r} must be a str, got {type(value).__name__}")
    return value


def _data_param(owner: str, name: str, value: Any) -> str:
    if value not in DATA_MODES:
        raise ValueError(f"{owner}: parameter {name!r} must be one of {', '.join(DATA_MODES)}, got {value!r}")
    return value


@dataclass(frozen=True)
class Pool:
    """The passage pool built from the rows.

    Attributes:
        ids: Passage ids (``q{row}/ctx``, ``q{row}/long``).
        texts: Passage texts.
        rows: Row each passage came from.
        groups: Duplicate group of each passage.
    """

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    rows: tuple[int, ...]
    groups: tuple[str, ...]


def build_pool(rows: Sequence[dict[str, Any]]) -> Pool:
    """Pool of ctx passages and long answers with their duplicate groups.

    Raises:
        DataError: A row lacks the expected fields (the message gives the row).
    """
    ids, texts, owners = [], [], []
    for r, row in enumerate(rows):
        try:
            ctx = row["ctxs"][0]
            gold = row["nq_annotated_gold"]
            passages = [("ctx", ctx["title"], ctx["text"]), ("long", gold["title"], gold["long_answer"])]
        except (KeyError, IndexError, TypeError) as exc:
            raise DataError(f"nq_open row {r}: missing field {exc}") from None
        for kind, title, body in passages:
            ids.append(f"q{r}/{kind}")
            texts.append(f"{title}\n{body}")
            owners.append(r)
    # Union rows whose passages have equal normalised words: they quote the same paragraph.
    parent = list(range(len(rows)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first_row: dict[tuple[str, ...], int] = {}
    for text, r in zip(texts, owners):
        key = words(text.split("\n", 1)[1])
        other = first_row.setdefault(key, r)
        a, b = root(r), root(other)
        if a != b:
            parent[max(a, b)] = min(a, b)
    groups = tuple(f"nq{root(r)}" for r in owners)
    return Pool(tuple(ids), tuple(texts), tuple(owners), groups)


class NQOpen(Source):
    """NQ-Open questions with retrieved candidates (BM25, dense or hybrid), duplicate groups and answer labels.

    Params:
        n_questions: Questions per seed (chosen by the seed, without repetition).
        top_k: Candidates retrieved per question.
        encoding: tiktoken encoding or model name for the token counts.
        system_prompt: Pinned system prompt text.
        data: ``"auto"`` (full file, else the embedded sample), ``"full"`` or ``"sample"``.
        retriever: ``"bm25"``, ``"dense"`` or ``"hybrid"`` (see `retrieval`).
        embedder: Name in `algorithms.embed.EMBEDDERS` ("wordllama" needs packbench[embed]).
    """

    name = "nq_open"
    kind = "corpus"
    DOMAIN = "retrieval"
    PARAMS = MappingProxyType({
        "n_questions": Param(200, int_in(1, 100_000), "questions per seed"),
        "top_k": Param(20, int_in(1, 10_000), "retrieved candidates per question"),
        "encoding": Param(DEFAULT_ENCODING, check_encoding_param, "tiktoken encoding or model name"),
        "system_prompt": Param(SYSTEM_PROMPT, _text_param, "pinned system prompt"),
        "data": Param("auto", _data_param, "'full' file, embedded 'sample', or 'auto' (full, else the sample)"),
        "retriever": Param("bm25", check_retriever, "'bm25', 'dense' (embeddings) or 'hybrid' (rank fusion)"),
        "embedder": Param("hashing", check_embedder, "embedder for dense retrieval and Item.embedding"),
    })

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._cache: dict[str, Any] = {}  # rows, pool, tokens and index, built once per object

    def _prepared(self) -> dict[str, Any]:
        if not self._cache:
            loaded = load_rows(NQ_OPEN_FILE, NQ_OPEN_SAMPLE, self.params["data"])
            rows = loaded.rows
            pool = build_pool(rows)
            vectors = embed_texts(list(pool.texts), self.params["embedder"])  # wordllama: disk cache
            index = (BM25Index(pool.texts) if self.params["retriever"] == "bm25" else
                     make_index(self.params["retriever"], pool.texts, self.params["embedder"], vectors))
            self._cache.update(rows=rows, pool=pool, index=index, loaded=loaded, vectors=vectors,
                               tokens=count_tokens_batch(pool.texts, self.params["encoding"]))
        return self._cache

    def data_note(self) -> str:
        """Which data the instances come from (reads the file, builds no index)."""
        if self._cache:
            return self._cache["loaded"].note
        return load_rows(NQ_OPEN_FILE, NQ_OPEN_SAMPLE, self.params["data"]).note

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        prep = self._prepared()
        rows, pool, tokens = prep["rows"], prep["pool"], prep["tokens"]
        prefix = "sample/" if prep["loaded"].origin == "sample" else ""
        rng = np.random.default_rng([int(seed), 5])
        picked = sorted(int(r) for r in rng.choice(len(rows), size=min(p["n_questions"], len(rows)), replace=False))
        questions = [rows[r]["question"] for r in picked]
        docs, scores = prep["index"].top_k(questions, p["top_k"])
        fixed = count_tokens_batch([p["system_prompt"], *(f"Question: {q}" for q in questions)], p["encoding"])
        pinned_vecs = embed_texts([p["system_prompt"], *questions], p["embedder"], cache=False)
        vectors = prep["vectors"]
        system = ([Item("system", p["system_prompt"], 0.0, fixed[0], pinned=True, embedding=pinned_vecs[0])]
                  if p["system_prompt"] else [])
        for k, r in enumerate(picked):
            answers = rows[r]["answers"]
            cands, groups, bearing = [], {}, set()
            for j, score in zip(docs[k], scores[k]):
                j = int(j)
                pid = pool.ids[j]
                cands.append(Item(pid, pool.texts[j], round(float(score), 6), tokens[j],
                                  source=pool.texts[j].split("\n", 1)[0], embedding=vectors[j]))
                groups[pid] = pool.groups[j]
                if has_answer(pool.texts[j], answers):
                    bearing.add(pid)
            question = Item("question", f"Question: {questions[k]}", 0.0, fixed[k + 1], pinned=True,
                            embedding=pinned_vecs[k + 1])
            yield Instance(key=f"{prefix}q={r}", items=tuple(system + [question] + cands), groups=groups,
                           answers=frozenset(bearing),
                           meta={"question": questions[k], "answers": list(answers), "row": r,
                                 "data": prep["loaded"].origin,
                                 "gold_retrieved": any(pool.rows[int(j)] == r for j in docs[k])})
