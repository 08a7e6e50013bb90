"""Pairwise text similarity for diversity-aware strategies (`mmr`, `submodular`).

Three kinds, all giving values in [0, 1] with 1.0 on the diagonal:

* ``"jaccard"`` (default, no extra dependencies): Jaccard similarity of the
  word-trigram sets, with exactly the words and shingles that dedupe uses
  (`algorithms.dedupe.words` / `shingles` / `jaccard`), so a pair that dedupe
  would drop at threshold t has similarity >= t here.
* ``"tfidf"``: cosine of TF-IDF vectors of the same words, with the smoothed
  idf ``log((1 + n) / (1 + df)) + 1`` (n = number of texts, df = texts holding
  the word). A text with no words has similarity 0 with every other text.
* a callable ``f(a: Item, b: Item) -> float`` returning a value in [0, 1]. It
  is called once per unordered pair, as ``f(items[i], items[j])`` with i < j,
  and is assumed symmetric.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any, Union

import numpy as np

from .dedupe import jaccard, shingles, signature, words
from .items import Item

__all__ = ["Similarity", "SIMILARITIES", "check_similarity", "similarity_matrix",
           "jaccard_matrix", "tfidf_matrix", "similarity_name", "pair_jaccard"]

Similarity = Union[str, Callable[[Item, Item], float]]


def _sparse_rows(token_lists: Sequence[Sequence[Any]], counts: bool):
    """A CSR matrix with one row per text and one column per distinct token."""
    from scipy import sparse  # lazy: only the vectorised kinds need scipy

    vocab: dict[Any, int] = {}
    rows, cols, vals = [], [], []
    for r, toks in enumerate(token_lists):
        tally: dict[int, int] = {}
        for tok in toks:
            c = vocab.setdefault(tok, len(vocab))
            tally[c] = tally.get(c, 0) + 1
        for c, v in tally.items():
            rows.append(r)
            cols.append(c)
            vals.append(float(v) if counts else 1.0)
    shape = (len(token_lists), max(1, len(vocab)))
    return sparse.csr_matrix((vals, (rows, cols)), shape=shape, dtype=np.float64)


def jaccard_matrix(items: Sequence[Item]) -> np.ndarray:
    """Word-trigram Jaccard similarity of every pair of `items`.

    Computed as sparse set intersections (|A & B| = row dot products of the
    binary shingle matrix), which equals `dedupe.jaccard` of the shingle sets.

    Args:
        items: The items.

    Returns:
        A symmetric (n, n) float array with ones on the diagonal.
    """
    n = len(items)
    if n == 0:
        return np.zeros((0, 0))
    sets = [shingles(signature(it.text)) for it in items]
    binary = _sparse_rows([list(s) for s in sets], counts=False)
    inter = (binary @ binary.T).toarray()
    sizes = np.array([len(s) for s in sets], dtype=np.float64)
    union = sizes[:, None] + sizes[None, :] - inter
    # Every shingle set is non-empty (a text without words is the one shingle ()),
    # so the union is never zero.
    sim = inter / union
    np.fill_diagonal(sim, 1.0)
    return np.clip(sim, 0.0, 1.0)


def tfidf_matrix(items: Sequence[Item]) -> np.ndarray:
    """Cosine similarity of TF-IDF word vectors of every pair of `items`.

    Args:
        items: The items.

    Returns:
        A symmetric (n, n) float array with ones on the diagonal.
    """
    n = len(items)
    if n == 0:
        return np.zeros((0, 0))
    tf = _sparse_rows([words(it.text) for it in items], counts=True)
    df = np.asarray((tf > 0).sum(axis=0)).ravel()
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    weighted = tf.multiply(idf[None, :]).tocsr()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    unit = weighted.multiply(inv[:, None]).tocsr()
    sim = (unit @ unit.T).toarray()
    np.fill_diagonal(sim, 1.0)
    return np.clip(sim, 0.0, 1.0)


def _callable_matrix(items: Sequence[Item], fn: Callable[[Item, Item], float]) -> np.ndarray:
    n = len(items)
    sim = np.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            value = fn(items[i], items[j])
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise TypeError(f"similarity callable returned {value!r} for items {items[i].id!r} and "
                                f"{items[j].id!r}; it must return a finite number in [0, 1]")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"similarity callable returned {value!r} for items {items[i].id!r} and "
                                 f"{items[j].id!r}, outside [0, 1]")
            sim[i, j] = sim[j, i] = float(value)
    return sim


SIMILARITIES: dict[str, Callable[[Sequence[Item]], np.ndarray]] = {
    "jaccard": jaccard_matrix,
    "tfidf": tfidf_matrix,
}


def check_similarity(owner: str, name: str, value: Any) -> Similarity:
    """Param check: a name in `SIMILARITIES` or a callable.

    Raises:
        ValueError: An unknown name.
        TypeError: Neither a str nor a callable.
    """
    if isinstance(value, str):
        if value not in SIMILARITIES:
            raise ValueError(f"{owner}: parameter {name!r} must be one of {sorted(SIMILARITIES)!r} "
                             f"or a callable, got {value!r}")
        return value
    if callable(value):
        return value
    raise TypeError(f"{owner}: parameter {name!r} must be a name in {sorted(SIMILARITIES)!r} or a "
                    f"callable (Item, Item) -> float, got {type(value).__name__}")


def similarity_name(similarity: Similarity) -> str:
    """A JSON-friendly label for `similarity` (the name, or the callable's name)."""
    if isinstance(similarity, str):
        return similarity
    return getattr(similarity, "__name__", type(similarity).__name__)


def similarity_matrix(items: Sequence[Item], similarity: Similarity = "jaccard") -> np.ndarray:
    """Pairwise similarity of `items` (typically candidates followed by pinned items).

    Args:
        items: The items to compare.
        similarity: ``"jaccard"``, ``"tfidf"`` or a callable (see the module doc).

    Returns:
        A symmetric (n, n) float array, values in [0, 1], ones on the diagonal.

    Raises:
        ValueError: Unknown similarity name, or a callable value outside [0, 1].
        TypeError: `similarity` of the wrong type, or a callable returning a non-number.
    """
    check_similarity("similarity_matrix", "similarity", similarity)
    if isinstance(similarity, str):
        return SIMILARITIES[similarity](items)
    return _callable_matrix(items, similarity)


def pair_jaccard(a: Item, b: Item) -> float:
    """Word-trigram Jaccard of two items, the scalar reference for `jaccard_matrix`."""
    return jaccard(shingles(signature(a.text)), shingles(signature(b.text)))

