"""A deterministic hashing embedder for peers that need vectors (no model, no download).

Each text becomes the signed, L2-normalised counts of its lower-cased word unigrams and bigrams
hashed into `dim` buckets (BLAKE2b, so the vectors are the same on every machine and in every
process, unlike Python's salted `hash`). Cosine similarity of two vectors then measures shared
vocabulary, which is what near-duplicate filters and MMR need to see redundancy; it knows no
synonyms. The same texts always give the same vectors.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

__all__ = ["hash_embed", "DEFAULT_DIM"]

DEFAULT_DIM = 256
_WORD = re.compile(r"\w+")


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, (1.0 if value >> 63 else -1.0)


def hash_embed(texts: Sequence[str], dim: int = DEFAULT_DIM) -> np.ndarray:
    """Unit vectors (``len(texts) x dim``, float64) of hashed word unigrams and bigrams.

    Args:
        texts: The texts.
        dim: Vector length (>= 1).

    Returns:
        The matrix; a text without words gets the zero vector.

    Raises:
        TypeError: `texts` is a single str or holds a non-str.
        ValueError: `dim` < 1.
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of str, not a single str")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise ValueError(f"dim must be an int >= 1, got {dim!r}")
    out = np.zeros((len(texts), dim))
    for row, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{row}] must be a str, got {type(text).__name__}")
        words = _WORD.findall(text.lower())
        for feature in [*words, *(f"{a} {b}" for a, b in zip(words, words[1:]))]:
            col, sign = _bucket(feature, dim)
            out[row, col] += sign
        norm = np.linalg.norm(out[row])
        if norm > 0:
            out[row] /= norm
    return out
