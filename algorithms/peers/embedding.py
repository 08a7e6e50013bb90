"""Vectors for the peers that need embeddings: the items' own, else the project's hashing embedder.

When every candidate carries an `Item.embedding` (e.g. from `algorithms.embed.embed_items` or a
user's corpus), those vectors are used; otherwise the texts go through `HashingEmbedder` (feature
hashing of words and bigrams: deterministic on every machine, no model, no download).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..embed import HashingEmbedder
from ..items import Item

__all__ = ["item_vectors", "text_vectors", "DEFAULT_DIM"]

DEFAULT_DIM = 256


def text_vectors(texts: Sequence[str], dim: int = DEFAULT_DIM) -> np.ndarray:
    """Unit rows (``len(texts) x dim``) from the hashing embedder."""
    return HashingEmbedder(dim=dim).embed(list(texts))


def item_vectors(items: Sequence[Item], dim: int = DEFAULT_DIM) -> np.ndarray:
    """The items' own embeddings when all have one (of one length), else `text_vectors` of their texts."""
    own = [it.embedding for it in items]
    if items and all(e is not None for e in own) and len({len(e) for e in own}) == 1:
        return np.asarray(own, dtype=float)
    return text_vectors([it.text for it in items], dim)
