"""The exact join's batch path: every candidate pair verified at once, partners resolved in visiting order.

The anchor loop (`anchors.join_anchors`) verifies, for each text, only the
anchors its probes find, one Python call per pair. When the prefixes are
selective (few texts share a prefix rank) it is cheaper to take every pair of
texts whose prefixes meet, with no regard to which of them become anchors,
and verify all of them with array arithmetic: a superset of the pairs the loop
verifies, with the same integers and the same division, so every verdict the
loop would reach is among them. A text's partner is then the first text before
it, in visiting order, that matches it and is itself an anchor (pinned or not
dropped); one pass in visiting order settles that, since an earlier text's fate
is known before any later text is looked at. That is the loop's rule, so the
kept list and the partners are the same.

Where some prefix rank is held by many texts the pairs grow quadratically; the
caller then keeps the loop (`candidate_pairs` returns None past its budget).
"""

from __future__ import annotations

import numpy as np

__all__ = ["candidate_pairs", "shared_counts", "resolve_partners"]

# Up to this many look-ups the intersections are binary searches; past it, a sparse product.
_LOOKUP_MAX = 200_000


def candidate_pairs(ranks: np.ndarray, owners: np.ndarray, n_texts: int,
                    max_pairs: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Every pair of texts holding a common prefix rank, once, as (earlier, later) positions.

    Args:
        ranks: Prefix ranks, text after text (owners ascending).
        owners: The text position of each rank.
        n_texts: Number of texts.
        max_pairs: Budget on the pairs before repeats are merged.

    Returns:
        (earlier, later) arrays sorted by later then earlier, or None when the
        pairs would exceed `max_pairs`.
    """
    if len(ranks) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    by_rank = np.argsort(ranks, kind="stable")  # (rank, owner) order: owners ascend on input
    r_sorted, o_sorted = ranks[by_rank], owners[by_rank]
    start = np.ones(len(r_sorted), dtype=bool)
    np.not_equal(r_sorted[1:], r_sorted[:-1], out=start[1:])
    group_start = np.flatnonzero(start)
    group_end = np.append(group_start[1:], len(r_sorted))
    # Each entry pairs with every later entry of its rank group.
    later = np.repeat(group_end, group_end - group_start) - np.arange(len(r_sorted)) - 1
    total = int(later.sum())
    if total > max_pairs:
        return None
    first = np.repeat(np.arange(len(r_sorted)), later)
    step = np.arange(total) - np.repeat(np.cumsum(later) - later, later)
    earlier, then = o_sorted[first], o_sorted[first + 1 + step]
    # Texts sharing several prefix ranks give the same pair several times.
    code = np.unique(then * n_texts + earlier)
    return code % n_texts, code // n_texts


def shared_counts(flat: np.ndarray, bounds: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pair (a[k], b[k]), how many shared ranks the two texts have in common.

    Args:
        flat: Every text's shared ranks, ascending within a text, text after text.
        bounds: Text t's ranks are ``flat[bounds[t]:bounds[t + 1]]``.
        a: First text of each pair.
        b: Second text of each pair.

    Returns:
        The intersection size per pair (int64).
    """
    if len(a) == 0:
        return np.zeros(0, dtype=np.int64)
    counts = np.diff(bounds)
    if int(np.minimum(counts[a], counts[b]).sum()) <= _LOOKUP_MAX:
        return _lookup_counts(flat, bounds, counts, a, b)
    from scipy import sparse  # lazy: only large batches need it (its import costs more than small ones)

    n_texts = len(bounds) - 1
    n_cols = int(flat.max()) + 1 if len(flat) else 1
    # Rows sorted and free of repeats (canonical), so the elementwise product is a merge per row pair.
    incidence = sparse.csr_matrix((np.ones(len(flat), dtype=np.int32), flat, bounds), shape=(n_texts, n_cols))
    incidence.has_canonical_format = True
    both = incidence[a].multiply(incidence[b])
    return np.asarray(both.sum(axis=1), dtype=np.int64).ravel()


def _lookup_counts(flat: np.ndarray, bounds: np.ndarray, counts: np.ndarray, a: np.ndarray,
                   b: np.ndarray) -> np.ndarray:
    """`shared_counts` by binary search: each rank of the pair's smaller text looked up in the other's."""
    n_ranks = int(flat.max()) + 1 if len(flat) else 1
    small = np.where(counts[b] < counts[a], b, a)
    large = np.where(counts[b] < counts[a], a, b)
    per_pair = counts[small]
    # (text, rank) keys ascend: texts in order, ranks ascending within each.
    keyed = np.repeat(np.arange(len(counts), dtype=np.int64), counts) * n_ranks + flat
    at = np.repeat(bounds[:-1][small] - (np.cumsum(per_pair) - per_pair), per_pair) + np.arange(per_pair.sum())
    query = np.repeat(large * n_ranks, per_pair) + flat[at]
    pos = np.minimum(np.searchsorted(keyed, query), max(len(keyed) - 1, 0))
    hit = keyed[pos] == query if len(keyed) else np.zeros(len(query), dtype=bool)
    return np.bincount(np.repeat(np.arange(len(a)), per_pair), weights=hit, minlength=len(a)).astype(np.int64)


def resolve_partners(n_pinned: int, earlier: np.ndarray, later: np.ndarray) -> dict[int, int]:
    """Dropped position -> partner position, from the matching pairs.

    Args:
        n_pinned: Positions below this are pinned: anchors that are never dropped.
        earlier: Earlier text of each matching pair.
        later: Later text of each matching pair; pairs sorted by later, then earlier.

    Returns:
        For each dropped text, the first earlier text that matches it and is an anchor.
    """
    partner: dict[int, int] = {}
    for x, y in zip(earlier.tolist(), later.tolist()):
        # Pairs come by later text, then earlier, so a text's fate is settled before it is an earlier one.
        if y < n_pinned or y in partner or x in partner:
            continue
        partner[y] = x
    return partner
