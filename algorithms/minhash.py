"""Approximate dedupe: MinHash signatures + LSH banding, candidates verified exactly.

Each text's shingles (seed 000's word trigrams, as integer ids from
`shingle_ranks`) get a MinHash signature of ``num_perm`` 32-bit values from
multiply-shift hashes computed with numpy (measured faster than datasketch's
per-text ``MinHash.update_batch``, see `packbench bench`). The signature is cut
into ``bands`` bands of ``rows`` rows; two texts become a candidate pair when
some band is identical, which happens with probability ``1 - (1 - J**rows)**bands``.
`lsh_params` picks (bands, rows) minimising a weighted sum of the false-positive
and false-negative areas of that S-curve around the threshold, as datasketch
does, but weighing misses far more (see `FALSE_POSITIVE_WEIGHT`).
Candidate pairs are verified with the exact `jaccard`, so every reported
duplicate really is one (apart from knock-on effects: a missed duplicate stays
kept and can absorb later candidates); what LSH can do is miss pairs. Exact
repeats of the normalised word list are always caught through a dict.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from .dedupe_core import dedupe_order, jaccard
from .dedupe_index import dedupe_indexed, shingle_ranks, word_keys
from .items import Item

__all__ = ["dedupe_minhash", "minhash_signatures", "band_keys", "lsh_params", "NUM_PERM", "FALSE_POSITIVE_WEIGHT"]

NUM_PERM = 128
# Candidates are verified exactly, so a false positive costs one set intersection while a
# false negative changes the answer: weigh misses 19 to 1 (at t = 0.8: 16 bands of 8 rows,
# a pair at Jaccard 0.8 becomes a candidate with probability 0.947, at 0.85 with 0.994).
FALSE_POSITIVE_WEIGHT = 0.05
_SEED = 20240607
# Shingle occurrences hashed per numpy block: bounds the (occurrences x num_perm) matrix to ~64 MiB.
_BLOCK = 1 << 16


def lsh_params(threshold: float, num_perm: int = NUM_PERM,
               false_positive_weight: float = FALSE_POSITIVE_WEIGHT) -> tuple[int, int]:
    """(bands, rows) with bands * rows <= num_perm that best separate Jaccard `threshold`.

    Minimises ``w * FP + (1 - w) * FN`` where FP is the area under the
    candidate-probability curve below the threshold and FN the area above it
    left uncovered.

    Args:
        threshold: Jaccard threshold in (0, 1].
        num_perm: Signature length.
        false_positive_weight: The weight w of false positives.

    Returns:
        (bands, rows).
    """
    grid = np.linspace(0.0, 1.0, 1001)
    best, best_err = (num_perm, 1), float("inf")
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            hit = 1.0 - (1.0 - grid ** rows) ** bands
            below, above = grid <= threshold, grid >= threshold
            false_pos = np.trapezoid(hit[below], grid[below]) if below.sum() > 1 else 0.0
            false_neg = np.trapezoid(1.0 - hit[above], grid[above]) if above.sum() > 1 else 0.0
            err = false_positive_weight * false_pos + (1.0 - false_positive_weight) * false_neg
            if err < best_err:
                best, best_err = (bands, rows), err
    return best


def minhash_signatures(ranks: Sequence[Sequence[int]], num_perm: int = NUM_PERM, seed: int = _SEED) -> np.ndarray:
    """MinHash signature (uint32, shape (texts, num_perm)) of each non-empty id set.

    Hash k of id x is the top 32 bits of ``a_k * (x + 1) + b_k`` modulo 2**64
    (multiply-shift with odd ``a_k``), seeded and deterministic.
    """
    rng = np.random.default_rng(seed)
    mult = rng.integers(1, 2**63, size=num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    add = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64)
    sigs = np.empty((len(ranks), num_perm), dtype=np.uint32)
    start = 0
    while start < len(ranks):
        stop, total = start, 0
        while stop < len(ranks) and (total == 0 or total + len(ranks[stop]) <= _BLOCK):
            total += len(ranks[stop])
            stop += 1
        block = ranks[start:stop]
        ids = np.fromiter(chain.from_iterable(block), dtype=np.uint64, count=total) + np.uint64(1)
        lens = np.fromiter((len(r) for r in block), dtype=np.int64, count=len(block))
        offsets = np.concatenate([[0], np.cumsum(lens)[:-1]])
        # (num_perm, occurrences) layout: reduceat along the contiguous axis is ~5x faster.
        hashed = mult[:, None] * ids[None, :]
        hashed += add[:, None]
        hashed >>= np.uint64(32)
        sigs[start:stop] = np.minimum.reduceat(hashed, offsets, axis=1).T
        start = stop
    return sigs


def band_keys(sigs: np.ndarray, bands: int, rows: int) -> list[list[int]]:
    """Per text, one 64-bit hash per band of `rows` signature values.

    Texts with equal bands get equal keys; unequal bands rarely collide, and a
    collision only adds a candidate that the exact verification rejects.
    """
    mixers = np.random.default_rng(_SEED + 1).integers(1, 2**63, size=rows, dtype=np.uint64) * np.uint64(2) + 1
    banded = sigs[:, :bands * rows].astype(np.uint64).reshape(len(sigs), bands, rows)
    return (banded * mixers).sum(axis=2, dtype=np.uint64).tolist()


def dedupe_minhash(candidates: Sequence[Item], pinned: Sequence[Item],
                   threshold: float) -> tuple[list[Item], dict[str, str]]:
    """Approximate dedupe with seed 000's visiting order and partner rule, via MinHash LSH.

    Args:
        candidates: Non-pinned items.
        pinned: Pinned items (anchors that are never dropped).
        threshold: Jaccard threshold in [0, 1].

    Returns:
        (kept candidates in visiting order, dropped id -> id of the first verified match found).
    """
    visit = dedupe_order(candidates)
    if threshold <= 0.0 or not visit:  # Jaccard >= 0 always holds: same answer as the exact join
        return dedupe_indexed(candidates, pinned, threshold)
    texts = list(pinned) + visit
    word_lists = [word_keys(it.text) for it in texts]
    ranks, _ = shingle_ranks(word_lists)
    sigs = minhash_signatures(ranks)
    bands, rows = lsh_params(threshold)
    keys = band_keys(sigs, bands, rows)
    buckets: list[dict[int, list[int]]] = [{} for _ in range(bands)]
    anchor_ids: list[str] = []
    anchor_pos: list[int] = []
    sets: dict[int, frozenset] = {}
    first_with_words: dict[tuple[bytes, ...], int] = {}

    def add_anchor(pos: int, item: Item) -> None:
        a = len(anchor_ids)
        anchor_ids.append(item.id)
        anchor_pos.append(pos)
        first_with_words.setdefault(word_lists[pos], a)
        for bucket, key in zip(buckets, keys[pos]):
            bucket.setdefault(key, []).append(a)

    def id_set(pos: int) -> frozenset:
        if pos not in sets:
            sets[pos] = frozenset(ranks[pos])
        return sets[pos]

    for pos, item in enumerate(pinned):
        add_anchor(pos, item)
    kept: list[Item] = []
    dropped: dict[str, str] = {}
    for off, item in enumerate(visit):
        pos = len(pinned) + off
        match = first_with_words.get(word_lists[pos], len(anchor_ids))
        probes: set[int] = set()
        for bucket, key in zip(buckets, keys[pos]):
            hits = bucket.get(key)
            if hits:
                probes.update(hits)
        for a in sorted(probes):
            if a >= match:
                break
            if jaccard(id_set(pos), id_set(anchor_pos[a])) >= threshold:
                match = a
                break
        if match < len(anchor_ids):
            dropped[item.id] = anchor_ids[match]
            continue
        kept.append(item)
        add_anchor(pos, item)
    return kept, dropped
