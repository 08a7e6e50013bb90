"""Item embeddings as matrices, and the cosine that `dedupe="semantic"` and `similarity="cosine"` use.

Cosine similarity is ``u . v`` of the unit vectors ``u = a / ||a||``; a zero
vector has cosine 0 with every vector (itself included), so it never counts
as a duplicate. `unit_rows` computes the unit vectors once, row by row, and
`cosine` is the scalar reference every vectorised path is checked against.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .items import Item

__all__ = ["embedding_matrix", "unit_rows", "cosine"]


def embedding_matrix(items: Sequence[Item], who: str) -> np.ndarray:
    """The items' embeddings stacked into a (len(items), dim) float64 array.

    Args:
        items: Items that must all carry an `embedding`.
        who: The caller, named in the error (e.g. ``"dedupe 'semantic'"``).

    Raises:
        ValueError: An item without an embedding, or embeddings of different dimensions.
    """
    missing = next((it for it in items if it.embedding is None), None)
    if missing is not None:
        raise ValueError(f"{who} needs Item.embedding; item {missing.id!r} has none (compute embeddings with "
                         f"packbench.algorithms.embed, e.g. embed_items(items))")
    if not items:
        return np.zeros((0, 0))
    dim = len(items[0].embedding)
    other = next((it for it in items if len(it.embedding) != dim), None)
    if other is not None:
        raise ValueError(f"{who}: item {other.id!r} has a {len(other.embedding)}-dimensional embedding, item "
                         f"{items[0].id!r} a {dim}-dimensional one (all must have one dimension)")
    return np.stack([it.embedding for it in items])


# Rows whose norm lies in this range were computed without overflow or underflow of the squares.
_SAFE_NORMS = (1e-150, 1e150)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
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


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    """The cosine of two unit vectors from `unit_rows` (the scalar definition)."""
    return float(np.dot(u, v))
