"""Containment dedupe: drop a candidate when most of the smaller text's shingles are inside the other.

Rule (same visiting order and partner rule as seed 000's): a candidate is
dropped when its signature equals, or its shingle containment
``|A & B| / min(|A|, |B|)`` (`rule.containment`) is >= the threshold with, a
pinned item or an already kept candidate. This catches a chunk cut from a
longer paragraph, whose Jaccard with the paragraph is low.

The join is the exact one of `exact` with a different filter. If the smaller
set x (of size s) holds ``ceil(t * s)`` shingles of y, the first
``s - ceil(t * s) + 1`` shingles of x in rarity order (its prefix) meet y. So
every anchor indexes its shared shingles under two keys, "held" and "prefix"
(the latter only for those in its prefix), and a candidate probes its prefix
against the anchors' held shingles (finding larger anchors that may contain
it) and its held shingles against the anchors' prefixes (finding smaller
anchors it may contain). Texts none of whose shingles occur in another text
match nothing (`filter.once_counts`) and are left out. Candidates found are
verified with the exact integers and the same division as `rule.containment`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..items import Item
from .anchors import join_anchors
from .exact import exact_word_ids, shared_ranks
from .filter import once_counts, prefix_lengths
from .rule import DedupeMethod, DedupeResult, absorb_all, dedupe_order
from .tokenise import word_codes

__all__ = ["dedupe_containment", "Containment"]


def _first_last(ranks: np.ndarray, owners: np.ndarray, n_ranks: int) -> tuple[np.ndarray, np.ndarray]:
    """Per rank, the first and last owner holding it (n_texts / -1 when none); owners ascend on input."""
    first = np.full(n_ranks, np.iinfo(np.int64).max)
    last = np.full(n_ranks, -1)
    if len(ranks):
        order = np.argsort(ranks, kind="stable")
        r, o = ranks[order], owners[order]
        start = np.ones(len(r), dtype=bool)
        np.not_equal(r[1:], r[:-1], out=start[1:])
        stop = np.append(start[1:], True)
        first[r[start]] = o[start]
        last[r[stop]] = o[stop]
    return first, last


def _split(owners: np.ndarray, keys: np.ndarray) -> dict[int, list[int]]:
    """Per owner (those with any), its keys as a list."""
    if len(owners) == 0:
        return {}
    order = np.argsort(owners, kind="stable")
    owners, keys = owners[order], keys[order].tolist()
    starts = np.flatnonzero(np.diff(owners, prepend=-1))
    bounds = np.append(starts, len(owners)).tolist()
    return {int(o): keys[a:b] for o, a, b in zip(owners[starts].tolist(), bounds[:-1], bounds[1:])}


def _join(texts: Sequence[Item], n_pinned: int, threshold: float) -> dict[str, str]:
    word_ids, lens, vocab = exact_word_ids([it.text for it in texts])
    sizes_a, unshared, flat, bounds_a = shared_ranks(word_ids, lens, vocab)
    n = len(texts)
    n_ranks = int(flat.max()) + 1 if len(flat) else 1
    counts = np.diff(bounds_a)
    owner = np.repeat(np.arange(n, dtype=np.int64), counts)
    k = np.clip(prefix_lengths(sizes_a, threshold) - unshared, 0, counts)
    in_prefix = np.arange(len(flat), dtype=np.int64) - bounds_a[:-1][owner] < k[owner]
    first_held, last_held = _first_last(flat, owner, n_ranks)
    first_pre, last_pre = _first_last(flat[in_prefix], owner[in_prefix], n_ranks)
    # Keep only keys some later text probes (to index) or some earlier text indexes (to probe).
    index_held = owner < last_pre[flat]
    index_pre = in_prefix & (owner < last_held[flat])
    probe_held = in_prefix & (owner > first_held[flat])
    probe_pre = owner > first_pre[flat]
    index_keys = _split(np.concatenate([owner[index_held], owner[index_pre]]),
                        np.concatenate([flat[index_held], flat[index_pre] + n_ranks]))
    probe_keys = _split(np.concatenate([owner[probe_held], owner[probe_pre]]),
                        np.concatenate([flat[probe_held], flat[probe_pre] + n_ranks]))
    sizes, bounds = sizes_a.tolist(), bounds_a.tolist()
    word_bounds = np.concatenate([[0], np.cumsum(lens)]).tolist()
    shared_sets: dict[int, frozenset] = {}

    def shared_set(pos: int) -> frozenset:
        if pos not in shared_sets:
            shared_sets[pos] = frozenset(flat[bounds[pos]:bounds[pos + 1]].tolist())
        return shared_sets[pos]

    def verify(pos: int, other: int) -> bool:
        # Unshared shingles never meet: the shared sets give the intersection, divided as `containment` does.
        return len(shared_set(pos) & shared_set(other)) / min(sizes[pos], sizes[other]) >= threshold

    def repeat_key(pos: int) -> bytes:
        return word_ids[word_bounds[pos]:word_bounds[pos + 1]].tobytes()

    return join_anchors([it.id for it in texts], n_pinned, index_keys, probe_keys, verify, repeat_key)


def dedupe_containment(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
    """Containment dedupe (see the module doc); same result as `pairwise.pairwise_containment`.

    Args:
        candidates: Non-pinned items.
        pinned: Pinned items (anchors that are never dropped).
        threshold: Containment threshold in [0, 1].

    Returns:
        (kept candidates in visiting order, dropped id -> id of the first item it matched).
    """
    visit = dedupe_order(candidates)
    if threshold <= 0.0 or not visit:  # containment >= 0 always holds
        return absorb_all(visit, list(pinned))
    texts = list(pinned) + visit
    unshared, occurrences = once_counts(*word_codes([it.text for it in texts], exact=False))
    active = np.flatnonzero(unshared < occurrences).tolist()
    dropped = _join([texts[k] for k in active], sum(k < len(pinned) for k in active), threshold)
    return [it for it in visit if it.id not in dropped], dropped


class Containment(DedupeMethod):
    """Drop a candidate when shingle containment |A & B| / min(|A|, |B|) >= near_dup: catches chunk-in-paragraph."""

    name = "containment"

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        return dedupe_containment(candidates, pinned, threshold)
