"""Pairwise text similarity for diversity-aware strategies (`mmr`, `submodular`).

Four kinds, all giving values in [0, 1] with 1.0 on the diagonal:

* ``"jaccard"`` (default, no extra dependencies): Jaccard similarity of the
  word-trigram sets, with exactly the words and shingles that dedupe uses
  (`algorithms.dedupe.signature` / `shingles` / `jaccard`), so a pair that
  dedupe would drop at threshold t has similarity >= t here. Computed from
  dedupe's batch tokeniser as sparse set intersections.
* ``"tfidf"``: cosine of TF-IDF vectors of the same words, with the smoothed
  idf ``log((1 + n) / (1 + df)) + 1`` (n = number of texts, df = texts holding
  the word). A text with no words has similarity 0 with every other text.
* ``"cosine"``: ``max(0, cosine)`` of the items' embeddings (`Item.embedding`,
  see `vectors`; every item must have one). Negative cosines count as 0.
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
from .vectors import embedding_matrix, normalised_rows

__all__ = ["Similarity", "SIMILARITIES", "check_similarity", "similarity_matrix", "similarity_columns",
           "matrix_bytes", "jaccard_matrix", "tfidf_matrix", "cosine_matrix", "similarity_name", "pair_jaccard"]

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


def _shingle_rows(items: Sequence[Item]):
    """The binary (texts x distinct shingles) CSR matrix of dedupe's shingle sets, and the set sizes."""
    from scipy import sparse  # lazy: only the vectorised kinds need scipy

    from .dedupe.exact import distinct_shingles, exact_word_ids

    owner, sid, n_sh = distinct_shingles(*exact_word_ids([it.text for it in items]))
    rows = sparse.csr_matrix((np.ones(len(owner)), (owner, sid)), shape=(len(items), max(n_sh, 1)))
    return rows, np.bincount(owner, minlength=len(items)).astype(np.float64)


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
    binary, sizes = _shingle_rows(items)
    inter = (binary @ binary.T).toarray()
    # Every shingle set is non-empty (a text without words has its signature), so the union is never zero.
    sim = inter / (sizes[:, None] + sizes[None, :] - inter)
    np.fill_diagonal(sim, 1.0)
    return np.clip(sim, 0.0, 1.0)


def cosine_matrix(items: Sequence[Item]) -> np.ndarray:
    """``max(0, cosine)`` of the embeddings of every pair of `items`, ones on the diagonal."""
    if not items:
        return np.zeros((0, 0))
    units = normalised_rows(embedding_matrix(items, "similarity 'cosine'"))
    sim = units @ units.T
    np.fill_diagonal(sim, 1.0)
    return np.clip(sim, 0.0, 1.0, out=sim)  # in place: the product is ours, a copy would cost as much again


class _Columns:
    """Columns of the similarity matrix on demand: O(n) memory per column.

    The same values as the full matrix for "jaccard" (exact integer counts), "tfidf" and callables (read
    from it); for "cosine" up to float rounding (a matrix-vector product instead of a matrix product).
    """

    def __init__(self, items: Sequence[Item], similarity: Similarity) -> None:
        self.n = len(items)
        self.kind = similarity if isinstance(similarity, str) else None
        if self.kind == "cosine":
            self.units = normalised_rows(embedding_matrix(items, "similarity 'cosine'")) if items else np.zeros((0, 1))
        elif self.kind == "jaccard":
            self.rows, self.sizes = _shingle_rows(items) if items else (None, np.zeros(0))
            # Column-major too: a block then touches only the texts sharing a shingle with its columns.
            self.by_shingle = self.rows.tocsc() if items else None
        else:  # tfidf and callables: the full matrix, so values are exactly the matrix's
            self.full = similarity_matrix(items, similarity)

    def block(self, cols: Sequence[int]) -> np.ndarray:
        """The (n, len(cols)) block of the similarity matrix for these columns."""
        cols = np.asarray(cols, dtype=np.int64)
        if self.kind == "cosine":
            out = self.units @ self.units[cols].T
            np.clip(out, 0.0, 1.0, out=out)  # in place: a second n x k temporary per pick costs as much again
        elif self.kind == "jaccard":
            inter = np.empty((self.n, len(cols)))
            by, rows = self.by_shingle, self.rows
            for j, c in enumerate(cols.tolist()):
                shingles = rows.indices[rows.indptr[c]:rows.indptr[c + 1]]
                # Each text holds a shingle at most once, so counting texts over the column's shingles
                # gives the exact intersection sizes.
                texts = np.concatenate([by.indices[by.indptr[h]:by.indptr[h + 1]] for h in shingles.tolist()]
                                       or [np.zeros(0, dtype=by.indices.dtype)])
                inter[:, j] = np.bincount(texts, minlength=self.n)
            out = np.clip(inter / (self.sizes[:, None] + self.sizes[cols][None, :] - inter), 0.0, 1.0)
        else:
            return self.full[:, cols]
        out[cols, np.arange(len(cols))] = 1.0
        return out


def similarity_columns(items: Sequence[Item], similarity: Similarity = "jaccard") -> _Columns:
    """Column access to `similarity_matrix(items, similarity)` without building it (for jaccard and cosine).

    Raises:
        ValueError, TypeError: As `similarity_matrix`.
    """
    check_similarity("similarity_columns", "similarity", similarity)
    return _Columns(items, similarity)


def matrix_bytes(n: int, similarity: Similarity) -> int:
    """Peak bytes of `similarity_matrix` on n items: the float64 result and its largest temporaries."""
    copies = 3 if similarity in ("jaccard", "tfidf") else 2  # sparse product densified, then the division
    return copies * 8 * n * n


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
    "cosine": cosine_matrix,
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
        similarity: ``"jaccard"``, ``"tfidf"``, ``"cosine"`` or a callable (see the module doc).

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

