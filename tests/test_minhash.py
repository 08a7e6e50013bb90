"""MinHash + LSH dedupe: banding choice, signatures, and answers checked against the exact join."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import Item, pack
from algorithms.dedupe import DEDUPE_METHODS, dedupe_indexed, dedupe_minhash, jaccard, shingles, words
from algorithms.dedupe_index import shingle_ranks
from algorithms.minhash import NUM_PERM, lsh_params, minhash_signatures


def _corpus(n: int, seed: int) -> list[Item]:
    rng = random.Random(seed)
    vocab = [f"v{k}" for k in range(2000)]
    texts: list[list[str]] = []
    items = []
    for k in range(n):
        if texts and rng.random() < 0.2:
            ws = list(rng.choice(texts))
            for _ in range(rng.randint(0, 6)):
                ws[rng.randrange(len(ws))] = rng.choice(vocab)
        else:
            ws = rng.choices(vocab, k=rng.randint(60, 100))
        texts.append(ws)
        items.append(Item(f"c{k}", " ".join(ws), rng.random(), 10))
    return items


def test_lsh_params_fit_the_signature_and_favour_recall():
    for t in (0.3, 0.5, 0.8, 0.95):
        bands, rows = lsh_params(t)
        assert 1 <= bands * rows <= NUM_PERM
        assert 1 - (1 - t ** rows) ** bands >= 0.9  # a pair at the threshold is usually a candidate
    assert lsh_params(0.8) == (16, 8)
    assert lsh_params(0.95)[1] > lsh_params(0.5)[1]  # stricter threshold, more rows per band


def test_signatures_estimate_jaccard_and_are_deterministic():
    a = [f"w{k}" for k in range(200)]
    b = a[:150] + [f"x{k}" for k in range(50)]
    ranks, _ = shingle_ranks([tuple(a), tuple(b)])
    sig = minhash_signatures(ranks)
    assert sig.shape == (2, NUM_PERM) and sig.dtype == np.uint32
    assert np.array_equal(sig, minhash_signatures(ranks))
    true_j = jaccard(shingles(a), shingles(b))
    assert abs(float(np.mean(sig[0] == sig[1])) - true_j) < 0.12


def test_every_minhash_drop_is_a_verified_match_with_an_earlier_anchor():
    items = _corpus(800, seed=1)
    kept, dropped = dedupe_minhash(items, [], 0.8)
    by_id = {it.id: it for it in items}
    kept_ids = [it.id for it in kept]
    assert set(kept_ids) | set(dropped) == set(by_id) and not set(kept_ids) & set(dropped)
    for cand, partner in dropped.items():
        assert partner in kept_ids
        wa, wb = words(by_id[cand].text), words(by_id[partner].text)
        assert wa == wb or jaccard(shingles(wa), shingles(wb)) >= 0.8


def test_recall_and_precision_against_the_exact_join():
    items = _corpus(1500, seed=2)
    exact = dedupe_indexed(items, [], 0.8)[1]
    approx = dedupe_minhash(items, [], 0.8)[1]
    hit = len(set(exact) & set(approx))
    assert len(exact) > 100
    assert hit / len(exact) >= 0.95
    assert hit / len(approx) >= 0.95


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["", "a", "a b", "a b c", "A b C!", "x y z w", "a b c d"]), max_size=10),
       st.sampled_from([0.0, 0.5, 1.0]))
def test_exact_repeats_and_threshold_zero_match_the_exact_join(texts, threshold):
    items = [Item(f"i{k}", t, float(k % 3), 1, pinned=(k == 0 and threshold == 0.5))
             for k, t in enumerate(texts)]
    pinned = [it for it in items if it.pinned]
    cands = [it for it in items if not it.pinned]
    kept, dropped = dedupe_minhash(cands, pinned, threshold)
    ref_kept, ref_dropped = dedupe_indexed(cands, pinned, threshold)
    # With such short texts every shingle set is tiny: equal sets share every band, so LSH misses nothing.
    assert [it.id for it in kept] == [it.id for it in ref_kept] and dropped == ref_dropped


def test_minhash_is_a_registered_dedupe_method():
    assert DEDUPE_METHODS["minhash"] is dedupe_minhash
    items = _corpus(200, seed=3)
    fast = pack(items, 500, dedupe="minhash")
    assert fast.tokens <= 500 and all(it.id not in fast.dropped for it in fast)
