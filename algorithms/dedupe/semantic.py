"""Semantic dedupe: drop a candidate whose embedding has cosine >= the threshold with a kept or pinned item.

Same visiting order and partner rule as seed 000's. Items must carry an
`embedding` (`Item.embedding`; `algorithms.embed` computes them). Cosine is
`vectors.cosine` of the unit vectors of `vectors.normalised_rows` (a zero vector has
cosine 0 with everything).

The scan goes through the candidates in blocks of visiting order. A block is
compared with all anchors so far (pinned items and kept candidates) in one
float32 matrix product, then resolved row by row against the earlier rows of
the same block. A product further than a safe margin from the threshold
decides the pair (float32 rounding of unit vectors is below ``dim * 2**-23``,
and the margin is twice that, at least 1e-4); a pair within the margin is
decided by the float64 `vectors.cosine` itself, so the answer is exactly that
of `pairwise.pairwise_semantic`. Memory is bounded by the block: about
``block * anchors`` float32 values at a time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..items import Item
from ..vectors import cosine, embedding_matrix, normalised_rows
from .rule import DedupeMethod, DedupeResult, dedupe_order

__all__ = ["dedupe_semantic", "Semantic"]

_BLOCK_VALUES = 1 << 22  # float32 products per block (16 MiB)


def _matches(sims: np.ndarray, rows: np.ndarray, cols: np.ndarray, units: np.ndarray, threshold: float,
             margin: float) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) positions of the matches among float32 `sims` of texts `rows` x `cols`, row-major.

    Entries below ``threshold - margin`` cannot match; those within the margin are decided by `cosine`.
    """
    live = np.flatnonzero(sims.max(axis=1) > threshold - margin)  # most rows match nothing: skip them whole
    r, c = np.nonzero(sims[live] > threshold - margin)
    r = live[r]
    sure = sims[r, c] >= threshold + margin
    for k in np.flatnonzero(~sure).tolist():
        sure[k] = cosine(units[rows[r[k]]], units[cols[c[k]]]) >= threshold
    return r[sure], c[sure]


def dedupe_semantic(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
    """Semantic dedupe (see the module doc); same result as `pairwise.pairwise_semantic`.

    Args:
        candidates: Non-pinned items, each with an embedding.
        pinned: Pinned items (anchors that are never dropped), each with an embedding.
        threshold: Cosine threshold in [0, 1].

    Returns:
        (kept candidates in visiting order, dropped id -> id of the first item it matched).

    Raises:
        ValueError: An item without an embedding, or embeddings of different dimensions.
    """
    visit = dedupe_order(candidates)
    texts = list(pinned) + visit
    units = normalised_rows(embedding_matrix(texts, "dedupe 'semantic'"))
    if not visit:
        return [], {}
    single = units.astype(np.float32)
    margin = max(1e-4, 2.0 * units.shape[1] * 2.0 ** -23)
    n_pinned = len(pinned)
    anchors = list(range(n_pinned))
    dropped: dict[str, str] = {}
    block = max(1, min(len(visit), _BLOCK_VALUES // max(len(texts), 1)))
    for lo in range(n_pinned, len(texts), block):
        hi = min(lo + block, len(texts))
        rows = np.arange(lo, hi)
        cols = np.array(anchors, dtype=np.int64)
        first = np.full(hi - lo, -1, dtype=np.int64)
        if len(cols):
            r, c = _matches(single[lo:hi] @ single[cols].T, rows, cols, units, threshold, margin)
            head = np.ones(len(r), dtype=bool)
            np.not_equal(r[1:], r[:-1], out=head[1:])
            first[r[head]] = cols[c[head]]  # columns ascend within a row: the first anchor that matches
        r, c = _matches(single[lo:hi] @ single[lo:hi].T, rows, rows, units, threshold, margin)
        earlier = c < r
        r, c = r[earlier], c[earlier]
        # Rows matching an anchor are dropped and rows matching no earlier row of the block are kept;
        # only the others wait for the earlier rows' fate, resolved in order.
        kept_here = first < 0
        kept_here[r] = False
        pending = np.unique(r[first[r] < 0]).tolist()
        starts = np.searchsorted(r, pending).tolist()
        stops = np.searchsorted(r, pending, side="right").tolist()
        for row, a, b in zip(pending, starts, stops):
            hit = c[a:b][kept_here[c[a:b]]]
            if len(hit):
                first[row] = lo + int(hit[0])
            else:
                kept_here[row] = True
        for row in np.flatnonzero(first >= 0).tolist():
            dropped[texts[lo + row].id] = texts[int(first[row])].id
        anchors.extend((lo + np.flatnonzero(kept_here)).tolist())
    return [it for it in visit if it.id not in dropped], dropped


class Semantic(DedupeMethod):
    """Drop a candidate whose embedding has cosine >= near_dup with a kept or pinned item (needs Item.embedding)."""

    name = "semantic"

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        return dedupe_semantic(candidates, pinned, threshold)
