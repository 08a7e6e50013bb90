"""MinHash + LSH dedupe: banding choice, signatures, and answers checked against the exact join."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import DEDUPE_METHODS, MinHash, dedupe_indexed, dedupe_minhash, jaccard, shingles, words
from packbench.algorithms.dedupe.exact import exact_shingle_codes, exact_word_ids
from packbench.algorithms.dedupe.minhash import NUM_PERM, band_keys, lsh_params, minhash_signatures, signatures_flat


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
    owner, codes = exact_shingle_codes(*exact_word_ids([" ".join(a), " ".join(b)]))
    sets = [codes[owner == t].tolist() for t in (0, 1)]
    sig = minhash_signatures(sets)
    assert sig.shape == (2, NUM_PERM) and sig.dtype == np.uint32
    assert np.array_equal(sig, minhash_signatures(sets))
    true_j = jaccard(shingles(a), shingles(b))
    assert abs(float(np.mean(sig[0] == sig[1])) - true_j) < 0.12


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2**64 - 2), min_size=1, max_size=40), min_size=1, max_size=30),
       st.sampled_from([1, 7, 128]))
def test_flat_signatures_are_the_per_set_minima(sets, num_perm):
    values = np.array([x for s in sets for x in s], dtype=np.uint64)
    lens = np.array([len(s) for s in sets])
    sig = signatures_flat(values, lens, num_perm)
    assert np.array_equal(sig, minhash_signatures(sets, num_perm))
    # Row t is the elementwise minimum of its elements' one-element signatures.
    singles = signatures_flat(values, np.ones(len(values), dtype=np.int64), num_perm)
    ends = np.cumsum(lens)
    for t in range(len(sets)):
        assert np.array_equal(sig[t], singles[ends[t] - lens[t]:ends[t]].min(axis=0))


def test_equal_bands_give_equal_keys():
    rng = np.random.default_rng(0)
    sigs = rng.integers(0, 2**32, size=(5, NUM_PERM), dtype=np.uint32)
    sigs[3, :8] = sigs[1, :8]  # band 0 equal, the rest different
    keys = band_keys(sigs, 16, 8)
    assert keys.shape == (5, 16) and keys[3, 0] == keys[1, 0]
    assert not np.any(keys[3, 1:] == keys[1, 1:])


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
    assert DEDUPE_METHODS["minhash"] is MinHash
    items = _corpus(200, seed=3)
    fast = pack(items, 500, dedupe="minhash")
    assert fast.tokens <= 500 and all(it.id not in fast.dropped for it in fast)
