"""The "jaccard" dedupe (the default) as an indexed set-similarity join (prefix filtering), same answers as pairwise.

The rule: a candidate is dropped when its normalised word list equals, or its
word-trigram Jaccard similarity is >= the threshold with, a pinned item or a
higher-scored kept candidate (`rule`).

Three stages, none of which can change the answer:

1. Counting filter (`filter.may_match`): all texts are tokenised at once
   into 64-bit word codes (in input order) and every shingle is hashed into a
   table of about 1.25 slots per shingle. A text whose once-seen shingles number at least its
   prefix length ``s - ceil(t * s) + 1`` can share at most
   ``ceil(t * s) - 1`` shingles with any other text, so it reaches Jaccard >= t
   with none and equals no other word list: it is kept, never absorbs
   anything, and is left out of the rest. Texts of mostly unique shingles go
   no further, without a sort.
2. Exact shingles of the remaining texts (`shingle_ids`: `exact_word_ids`,
   `exact_shingle_codes`, `shared_ranks`): dense word ids, trigram codes
   one-to-one with shingles, each shared shingle ranked by how many texts hold
   it (a lower rank is rarer).
3. The join: if two sets have Jaccard >= t > 0 they share at least
   ``ceil(t * |x|)`` shingles, so the first ``|x| - ceil(t * |x|) + 1`` of
   each in rarity order (its *prefix*, unshared shingles first) must
   intersect. Prefixes are fixed per text, so the pairs whose prefixes meet
   are known in advance. While they are few (`batch`), all of them are
   verified at once with `jaccard`'s division on the same integers and each
   text's partner is the first matching earlier anchor. Otherwise the anchor
   loop runs: only the prefix ranks that a later text also holds are indexed
   and only those an earlier text holds are probed; kept anchors index
   theirs; a candidate verifies the anchors found through its probes in
   anchor order, after a length filter (``min/max size >= t``), and a dict of
   word-id sequences finds exact repeats. Both give the same answer.

Threshold 0 matches everything (Jaccard >= 0 always holds), so then the first
anchor is every candidate's partner. Prefix lengths get a 1e-12 relative slack
(`filter.PREFIX_SLACK`), so float rounding can never make a filter miss
a pair the reference would match.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

import warnings

import numpy as np

from ..items import Item
from .anchors import join_anchors
from .batch import candidate_pairs, resolve_partners, shared_counts
from .filter import PREFIX_SLACK, may_match, prefix_lengths
from .native import native_available, native_decide
from .shingle_ids import dense_ids, distinct_shingles, exact_shingle_codes, shared_ranks  # noqa: F401 (re-exported)
from .rule import DedupeMethod, DedupeResult, absorb_all, dedupe_order, visiting_order
from .tokenise import word_codes

__all__ = ["dedupe_indexed", "kept_flags_indexed", "JaccardJoin", "ExactAlias", "active_texts", "exact_word_ids", "exact_shingle_codes",
           "distinct_shingles", "shared_ranks"]

# The batch path is taken while the candidate pairs stay within this many per text (plus a base):
# past that a few prefix ranks are held by many texts, and the anchor loop, which only indexes
# anchors, does less work.
_PAIRS_PER_TEXT = 16
_PAIRS_BASE = 4096
# The anchor loop runs compiled (`kernels.anchor_loop`); off, the Python loop of `anchors.join_anchors`
# (the same answers; the tests run both).
_COMPILED = True
# The C join (`native`) answers first where it is built; off, this module's numpy path (the same answers;
# the tests of the numpy path's branches switch it off).
_NATIVE = True


def _prefix_entries(sizes: np.ndarray, unshared: np.ndarray, flat: np.ndarray, bounds: np.ndarray,
                    threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """(rank, owner) of every shared rank in a text's prefix, text after text.

    A text's prefix is its first ``s - ceil(t * s) + 1`` shingles in rarity
    order, unshared ones first: only its first ``prefix - unshared`` shared
    ranks can meet another text's prefix.
    """
    counts = np.diff(bounds)
    k = np.clip(prefix_lengths(sizes, threshold) - unshared, 0, counts)
    # Index arrays over the prefix entries only (a mask over every shared rank costs several
    # arrays of the full size).
    at = np.repeat(bounds[:-1] - (np.cumsum(k) - k), k) + np.arange(int(k.sum()), dtype=np.int64)
    return flat[at], np.repeat(np.arange(len(sizes), dtype=np.int64), k)


def _prefix_lists(ranks: np.ndarray, owner: np.ndarray, n_texts: int
                  ) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Per text (those with any), the prefix ranks worth indexing, and those worth probing.

    Prefixes do not depend on the join's progress, so it is known in advance
    which prefix ranks some later text holds (only those are worth indexing)
    and which some earlier text holds (only those are worth probing); the
    others could never meet.
    """
    if len(ranks) == 0:
        return {}, {}
    by_rank = np.argsort(ranks, kind="stable")  # (rank, text) order: owners ascend on input
    r_sorted, o_sorted = ranks[by_rank], owner[by_rank]
    new_rank = np.ones(len(r_sorted), dtype=bool)
    np.not_equal(r_sorted[1:], r_sorted[:-1], out=new_rank[1:])
    group = np.cumsum(new_rank) - 1
    starts = np.flatnonzero(new_rank)
    first_of = o_sorted[starts]
    last_of = o_sorted[np.append(starts[1:], len(o_sorted)) - 1]
    to_index, to_probe = np.zeros(len(ranks), dtype=bool), np.zeros(len(ranks), dtype=bool)
    to_index[by_rank] = o_sorted < last_of[group]
    to_probe[by_rank] = o_sorted > first_of[group]

    def split(mask: np.ndarray) -> dict[int, list[int]]:
        # Only texts with something to index/probe get a list: most have none.
        b = np.searchsorted(owner[mask], np.arange(n_texts + 1)).tolist()
        values = ranks[mask].tolist()
        return {t: values[b[t]:b[t + 1]] for t in np.unique(owner[mask]).tolist()}

    return split(to_index), split(to_probe)


def exact_word_ids(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """(dense word id per word, words per text, vocabulary size): equal ids if and only if equal words."""
    return dense_ids(*word_codes(texts, exact=True))


def active_texts(texts: Sequence[str], threshold: float) -> np.ndarray:
    """Indices of the texts the join must look at; the others provably match nothing (`may_match`)."""
    return np.flatnonzero(may_match(*word_codes(texts, exact=False), threshold))


def dedupe_indexed(candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
    """Exact dedupe by prefix-filtered similarity join; same result as `dedupe_pairwise`.

    Args:
        candidates: Non-pinned items.
        pinned: Pinned items (anchors that are never dropped).
        threshold: Jaccard threshold in [0, 1].

    Returns:
        (kept candidates in visiting order, dropped id -> id of the first item it matched).
    """
    candidates = candidates if isinstance(candidates, list) else list(candidates)
    if threshold <= 0.0:  # Jaccard >= 0 holds for every pair: the first anchor absorbs the rest
        return absorb_all(dedupe_order(candidates), list(pinned))
    flags, dropped = _decide(candidates, list(pinned), threshold)
    order = visiting_order(candidates)
    if flags is None:
        visit = map(candidates.__getitem__, order.tolist())
        return [it for it in visit if it.id not in dropped], dropped
    return list(map(candidates.__getitem__, order[flags[order]].tolist())), dropped


def kept_flags_indexed(candidates: Sequence[Item], pinned: Sequence[Item],
                       threshold: float) -> tuple[list[bool] | np.ndarray, dict[str, str]]:
    """`dedupe_indexed`'s answer as a kept flag per candidate in input order, and the dropped map.

    The flags are a bool array where the join gives them as one (a list of 10^5 bools costs `pack` a
    conversion each way), else a list.
    """
    candidates = candidates if isinstance(candidates, list) else list(candidates)
    if threshold <= 0.0:
        kept, dropped = absorb_all(dedupe_order(candidates), list(pinned))
        return [it.id not in dropped for it in candidates], dropped
    flags, dropped = _decide(candidates, list(pinned), threshold)
    if flags is None:
        return [it.id not in dropped for it in candidates], dropped
    return flags, dropped


def _decide(candidates: list[Item], anchors_first: list[Item], threshold: float
            ) -> tuple[np.ndarray | None, dict[str, str]]:
    """(kept flag per candidate in input order, dropped id -> partner id).

    The flags are None where only the dropped map is known (the anchor loop).
    """
    if not candidates:
        return np.zeros(0, dtype=bool), {}
    if _NATIVE and native_available():
        found = native_decide(candidates, anchors_first, threshold)
        if found is not None:
            return found
    n_pinned = len(anchors_first)
    # (A copy of the candidates list touches every item: only made when there are pinned ones.)
    inputs = anchors_first + candidates if anchors_first else candidates
    # One exact tokenisation serves the filter and the join (the filter takes exact codes as well). It
    # reads the texts in input order, where they lie in memory, rather than in visiting order (a cache
    # miss per text once the texts outgrow the cache); the filter does not depend on the order.
    codes, lens = word_codes(list(map(attrgetter("text"), inputs)), exact=True)
    mask = may_match(codes, lens, threshold)
    # Texts proven unable to match are kept and never absorb anything, so only the others need the
    # visiting order: the rule's order of them alone is the whole order restricted to them, and
    # sorting them alone reads a fraction of the items (and has far fewer ties to break by id).
    active_c = np.flatnonzero(mask[n_pinned:])
    visit = active_c[visiting_order([candidates[k] for k in active_c.tolist()])]
    active_p = np.flatnonzero(mask[:n_pinned])
    # The join's order: pinned anchors in input order, then the candidates in visiting order.
    active_src = np.concatenate([active_p, visit + n_pinned])
    # The active texts' codes, gathered by word ranges (a mask over every word costs far more).
    active_lens = lens[active_src]
    first_word = np.cumsum(lens)[active_src] - active_lens
    at = np.repeat(first_word - (np.cumsum(active_lens) - active_lens), active_lens)
    at += np.arange(len(at))
    # The active texts' ids, in one pass reading each item once.
    dropped, dropped_at = _join([inputs[k].id for k in active_src.tolist()], len(active_p), threshold,
                                codes[at], active_lens)
    if dropped_at is None and dropped:
        return None, dropped
    # The dropped texts' positions are known: a mask is cheaper than a look-up per item.
    flags = np.ones(len(candidates), dtype=bool)
    if dropped:
        flags[active_src[dropped_at] - n_pinned] = False
    return flags, dropped


def _join(ids: list[str], n_pinned: int, threshold: float, codes: np.ndarray,
          lens: np.ndarray) -> tuple[dict[str, str], np.ndarray | None]:
    """The prefix-filtered join over the texts of `ids` (pinned anchors first, then candidates in visiting order).

    `codes` and `lens` are their exact word codes (`word_codes(..., exact=True)`).
    Returns dropped id -> partner id, and the dropped texts' positions in `ids`
    where the batch path knows them (None from the anchor loop).
    """
    word_ids, lens, vocab = dense_ids(codes, lens)
    sizes_a, unshared, flat, bounds_a = shared_ranks(word_ids, lens, vocab)
    ranks, owners = _prefix_entries(sizes_a, unshared, flat, bounds_a, threshold)
    pairs = candidate_pairs(ranks, owners, len(ids), _PAIRS_PER_TEXT * len(ids) + _PAIRS_BASE)
    if pairs is not None:
        earlier, later = pairs
        inter = shared_counts(flat, bounds_a, earlier, later)
        # `jaccard`'s division on the same integers, hence the same floats as the loop's verdicts.
        union = sizes_a[earlier] + sizes_a[later] - inter
        match = inter / union >= threshold
        partner = resolve_partners(n_pinned, earlier[match], later[match])
        return {ids[y]: ids[x] for y, x in partner.items()}, np.fromiter(partner, dtype=np.int64, count=len(partner))
    if _COMPILED:
        from . import kernels  # lazy: numba is imported (and the kernel loaded) only when the loop runs

        partner = kernels.anchor_loop(flat, bounds_a, sizes_a, unshared, n_pinned, float(threshold), PREFIX_SLACK,
                                      int(flat.max()) + 1 if len(flat) else 1)
        at = np.flatnonzero(partner >= 0)
        return dict(zip(map(ids.__getitem__, at.tolist()), map(ids.__getitem__, partner[at].tolist()))), at
    index_ranks, probe_ranks = _prefix_lists(ranks, owners, len(ids))
    sizes, bounds = sizes_a.tolist(), bounds_a.tolist()
    word_bounds = np.concatenate([[0], np.cumsum(lens)]).tolist()
    shared_sets: dict[int, frozenset] = {}

    def shared_set(pos: int) -> frozenset:
        if pos not in shared_sets:
            shared_sets[pos] = frozenset(flat[bounds[pos]:bounds[pos + 1]].tolist())
        return shared_sets[pos]

    def verify(pos: int, other_pos: int) -> bool:
        size, other = sizes[pos], sizes[other_pos]
        if min(size, other) / max(size, other) < threshold:
            return False
        # Unshared shingles never meet, so the shared sets give the intersection; the
        # division is `jaccard`'s, on the same integers, hence the same float.
        inter = len(shared_set(pos) & shared_set(other_pos))
        return inter / (size + other - inter) >= threshold

    def repeat_key(pos: int) -> bytes:
        return word_ids[word_bounds[pos]:word_bounds[pos + 1]].tobytes()

    return join_anchors(ids, n_pinned, index_ranks, probe_ranks, verify, repeat_key), None


class JaccardJoin(DedupeMethod):
    """Equal normalised words or word-trigram Jaccard >= threshold, by an indexed join (the default); same as pairwise."""

    name = "jaccard"

    def dedupe(self, candidates: Sequence[Item], pinned: Sequence[Item], threshold: float) -> DedupeResult:
        return dedupe_indexed(candidates, pinned, threshold)

    def kept_flags(self, candidates: Sequence[Item], pinned: Sequence[Item],
                   threshold: float) -> tuple[list[bool], dict[str, str]]:
        return kept_flags_indexed(candidates, pinned, threshold)


class ExactAlias(JaccardJoin):
    """Deprecated name of "jaccard" (it was called "exact" before 0.2); warns when constructed."""

    name = "exact"
    alias_of = "jaccard"

    def __init__(self, **params) -> None:
        # The one place the old name is honoured: every lookup of "exact" constructs this class.
        warnings.warn('dedupe method "exact" is renamed "jaccard"; "exact" will be removed', DeprecationWarning,
                      stacklevel=3)
        super().__init__(**params)
