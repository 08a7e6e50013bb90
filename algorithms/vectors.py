"""Item embeddings as matrices, and the cosine that `dedupe="semantic"` and `similarity="cosine"` use.

Cosine similarity is ``u . v`` of the unit vectors ``u = a / ||a||``; a zero
vector has cosine 0 with every vector (itself included), so it never counts
as a duplicate. `normalised_rows` computes the unit vectors once, row by row,
`CosineColumns` gives columns of the cosine matrix without normalising the
whole matrix (what a greedy that reads a few dozen columns needs), and
`cosine` is the scalar reference every vectorised path is checked against.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

import numpy as np

from .items import Item, Problem

__all__ = ["embedding_matrix", "problem_embeddings", "normalised_rows", "CosineColumns", "cosine"]


def embedding_matrix(items: Sequence[Item], who: str, dtype: type = np.float64) -> np.ndarray:
    """The items' embeddings stacked into a (len(items), dim) array (float64 unless `dtype` says otherwise).

    Args:
        items: Items that must all carry an `embedding`.
        who: The caller, named in the error (e.g. ``"dedupe 'semantic'"``).
        dtype: The array's float type (float32 for a filter whose error is bounded by its caller).

    Raises:
        ValueError: An item without an embedding, or embeddings of different dimensions.
    """
    if not items:
        return np.zeros((0, 0), dtype=dtype)
    rows = list(map(attrgetter("embedding"), items))
    # One C-level stack, checked by its shape: a Python pass over the items for the checks cost as
    # much as the copy. Embeddings are 1-D non-empty arrays (`Item` checks), so the stack is
    # (n, dim) exactly when every item has one of the first one's dimension; anything else (a
    # missing embedding, another dimension) fails here and is named by `_embedding_error`.
    first = rows[0]
    if first is not None:
        try:
            if np.dtype(dtype) == np.float64 and len(set(map(len, rows))) == 1:
                # The rows are float64 already (`Item` stores them so): one C-level concatenation of
                # their bytes (into a writable buffer), half the cost of `np.array`'s per-row
                # conversion with warm caches.
                return np.frombuffer(bytearray().join(rows), dtype=np.float64).reshape(len(rows), len(first))
            out = np.array(rows, dtype=dtype)
        except (TypeError, ValueError, BufferError):
            out = None
        if out is not None and out.shape == (len(rows), len(first)):
            return out
    raise _embedding_error(items, who)


def problem_embeddings(problem: Problem, who: str, dtype: type = np.float64, pinned: bool = True) -> np.ndarray:
    """`embedding_matrix` of the problem's candidates (then its pinned items, with `pinned`), read-only,
    built once per problem and kept in `Problem.cache` for later calls on the same problem.

    Raises:
        ValueError: As `embedding_matrix`.
    """
    key = ("embeddings", np.dtype(dtype).name, pinned)
    out = problem.cache.get(key)
    if out is None:
        items = [*problem.candidates, *problem.pinned] if pinned and problem.pinned else problem.candidates
        wide = problem.cache.get(("embeddings", "float64", pinned))
        with np.errstate(over="ignore", under="ignore"):  # float32 callers check their rows' range
            # From the float64 stack when it is there: one contiguous pass, not one per item.
            out = wide.astype(dtype) if wide is not None else embedding_matrix(items, who, dtype)
        out.setflags(write=False)
        problem.cache[key] = out
    return out


def _embedding_error(items: Sequence[Item], who: str) -> ValueError:
    """The error for items whose embeddings do not stack: the first missing one, else the first of another dimension."""
    missing = next((it for it in items if it.embedding is None), None)
    if missing is not None:
        return ValueError(f"{who} needs Item.embedding; item {missing.id!r} has none (compute embeddings with "
                          f"packbench.algorithms.embed, e.g. embed_items(items))")
    dim = len(items[0].embedding)
    other = next(it for it in items if len(it.embedding) != dim)
    return ValueError(f"{who}: item {other.id!r} has a {len(other.embedding)}-dimensional embedding, item "
                      f"{items[0].id!r} a {dim}-dimensional one (all must have one dimension)")


# Rows whose norm lies in this range were computed without overflow or underflow of the squares.
_SAFE_NORMS = (1e-150, 1e150)


def normalised_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row divided by its Euclidean norm; zero rows stay zero.

    A row whose squares overflow (entries around 1e155 and up) or underflow (around 1e-155 and down)
    is first scaled by a power of two that brings its largest entry near 1, which is exact, so any
    finite nonzero row gets its unit vector; rows in the ordinary range are computed as they are.
    """
    with np.errstate(over="ignore", under="ignore"):  # such rows are found below and rescaled
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
    odd = np.flatnonzero(~((norms >= _SAFE_NORMS[0]) & (norms <= _SAFE_NORMS[1])))
    if len(odd):
        matrix = np.array(matrix, dtype=np.float64)  # a copy: the caller's embeddings are read-only
        _, exponent = np.frexp(np.max(np.abs(matrix[odd]), axis=1))
        matrix[odd] = np.ldexp(matrix[odd], -exponent[:, None])
        norms[odd] = np.sqrt(np.einsum("ij,ij->i", matrix[odd], matrix[odd]))
    # Zero rows are divided by 1 (and stay zero): one allocation, no masked write.
    return matrix / np.where(norms > 0, norms, 1.0)[:, None]


class CosineColumns:
    """Columns of the cosine matrix of `matrix`'s rows, one matrix-vector product per column.

    ``column(j)[i] = (a_i . a_j) / (||a_i|| ||a_j||)``, and 0 where either row is zero: the cosine of
    the unit vectors of `normalised_rows` up to rounding in the last bits, without dividing the
    whole (n, dim) matrix (a greedy that reads k << n columns would spend more on that than on its
    picks). When a row's squares overflow or underflow, the rows are normalised first instead.

    Args:
        matrix: The (n, dim) float64 rows (not modified).
    """

    __slots__ = ("matrix", "inv", "diagonal")

    def __init__(self, matrix: np.ndarray) -> None:
        with np.errstate(over="ignore", under="ignore"):  # such rows are found below
            norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))
        odd = np.flatnonzero(~((norms >= _SAFE_NORMS[0]) & (norms <= _SAFE_NORMS[1])))
        # A norm of 0 is a zero row or a row whose squares underflowed: only the latter needs rescaling.
        if len(odd) and np.abs(matrix[odd]).max() > 0:
            matrix = normalised_rows(matrix)
            norms = (np.abs(matrix).max(axis=1) > 0).astype(np.float64)  # unit rows, and zero rows that stay zero
        self.matrix = matrix
        # 1 / norm, 0 for a zero row: its cosines come out 0 without a masked write per column.
        self.inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        #: The cosine of each row with itself: 1, or 0 for a zero row.
        self.diagonal = (norms > 0).astype(np.float64)

    def column(self, j: int, rows: int | None = None) -> np.ndarray:
        """Cosines of the first `rows` rows (all by default) with row j: a fresh array."""
        head = self.matrix if rows is None else self.matrix[:rows]
        out = head @ self.matrix[j]
        out *= self.inv[:len(out)]
        out *= self.inv[j]
        return out

    def block(self, cols: np.ndarray, rows: int | None = None) -> np.ndarray:
        """Cosines of the first `rows` rows with each row in `cols`: (rows, len(cols))."""
        head = self.matrix if rows is None else self.matrix[:rows]
        out = head @ self.matrix[cols].T
        out *= self.inv[:len(out), None]
        out *= self.inv[cols][None, :]
        return out


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    """The cosine of two unit vectors from `normalised_rows` (the scalar definition)."""
    return float(np.dot(u, v))
