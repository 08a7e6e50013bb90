"""The branches the exact join takes only on large batches give the answers of the small-batch ones.

Each branch is forced on small inputs by lowering the size at which it starts.
"""

from __future__ import annotations

import random
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item
from packbench.algorithms.dedupe import dedupe_indexed, dedupe_order, dedupe_pairwise, exact, filter, shingle_ids
from packbench.algorithms.dedupe.rule import visiting_order
from packbench.algorithms.dedupe.tokenise import word_codes
from test_dedupe import _summary, dedupe_inputs


@settings(max_examples=300, deadline=None)
@given(case=dedupe_inputs(), block=st.sampled_from([1, 2, 5, 64]))
def test_join_with_every_large_batch_branch_equals_pairwise(case, block):
    items, threshold = case
    candidates = [it for it in items if not it.pinned]
    pinned = [it for it in items if it.pinned]
    with mock.patch.object(shingle_ids, "_COUNTING_SORT_MIN", 0), mock.patch.object(filter, "_HASH_BLOCK", block), \
            mock.patch.object(exact, "_COMPILED", False), mock.patch.object(exact, "_NATIVE", False):  # the numpy path's branches
        got = _summary(dedupe_indexed(candidates, pinned, threshold))
    assert got == _summary(dedupe_pairwise(candidates, pinned, threshold))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 40), st.sampled_from([1, 3, 7, 100]))
def test_once_counts_do_not_depend_on_the_block_size(seed, n_texts, block):
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(rng.choice([5, 50, 500]))]
    texts = [" ".join(rng.choices(words, k=rng.choice([0, 1, 2, 3, rng.randint(4, 40)]))) for _ in range(n_texts)]
    codes, lens = word_codes(texts, exact=False)
    expected = filter.once_counts(codes, lens)
    # Small blocks: the per-text sums run over many runs of texts, cut at every block edge.
    with mock.patch.object(filter, "_HASH_BLOCK", block):
        got = filter.once_counts(codes, lens)
    assert all((g == e).all() for g, e in zip(got, expected))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), max_size=6), max_size=12), st.sampled_from([0, 2**62]))
def test_each_text_gets_its_ranks_ascending_on_every_branch(owners_by_rank, counting_min):
    # Rank r is held by the texts owners_by_rank[r] (each once, ascending), as `shared_ranks` lists them.
    held = [sorted(set(ts)) for ts in owners_by_rank]
    owners = np.array([t for ts in held for t in ts], dtype=np.int64)
    counts = np.array([len(ts) for ts in held], dtype=np.int64)
    n_texts = 6
    expected = [r for t in range(n_texts) for r, ts in enumerate(held) if t in ts]
    with mock.patch.object(shingle_ids, "_COUNTING_SORT_MIN", counting_min):
        assert shingle_ids._by_text(owners, counts, n_texts).tolist() == expected
        # Over 65,536 texts the 16-bit radix sort cannot be used: the packed sort takes over.
        assert shingle_ids._by_text(owners, counts, 70_000).tolist() == expected


@pytest.mark.parametrize("vocab", [1, 60, 100, 300, 2000])
def test_dense_ids_from_the_first_table_or_the_full_one(vocab):
    rng = np.random.default_rng(vocab)
    values = rng.integers(0, 2**64 - 1, size=vocab, dtype=np.uint64, endpoint=True)
    codes = values[rng.integers(0, vocab, size=3000)]
    table_ids, tried = shingle_ids._table_ids, []

    def recorded(*args, **kwargs):
        found = table_ids(*args, **kwargs)
        tried.append(found is not None)
        return found

    # A first table of 1,024 slots, crowded past 128 taken slots: 100 words fit (some of them losing
    # their slot to another), 300 fall back to the full table.
    with (mock.patch.object(shingle_ids, "_FIRST_TABLE_BITS", 10),
          mock.patch.object(shingle_ids, "_table_ids", recorded)):
        ids, _, n_ids = shingle_ids.dense_ids(codes, np.array([len(codes)]))
    distinct = len(set(codes.tolist()))
    assert tried == ([True] if vocab <= 100 else [False, True])
    assert n_ids == distinct and sorted(set(ids.tolist())) == list(range(n_ids))
    by_code = dict(zip(codes.tolist(), ids.tolist()))
    assert all(by_code[c] == i for c, i in zip(codes.tolist(), ids.tolist()))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=3), st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, 5e-324, 1e300])),
                max_size=30, unique_by=lambda t: t[0]))
def test_visiting_order_is_the_rule_order(fields):
    # Few distinct scores (and -0.0 == 0.0): runs of ties, put in id order as the rule says.
    items = [Item(i, "", score, 1) for i, score in fields]
    assert [items[k].id for k in visiting_order(items).tolist()] == [it.id for it in dedupe_order(items)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from([0.0, -0.0, 1.0, 2.5])), max_size=30),
       st.data())
def test_visiting_order_of_a_subset_is_the_order_restricted_to_it(fields, data):
    # Repeated ids too: equal (score, id) pairs stay in input order, as the rule's stable sorts leave them.
    items = [Item(i, "", score, 1) for i, score in fields]
    assert [items[k] for k in visiting_order(items).tolist()] == dedupe_order(items)
    assert [id(items[k]) for k in visiting_order(items).tolist()] == [id(it) for it in dedupe_order(items)]
    keep = data.draw(st.lists(st.booleans(), min_size=len(items), max_size=len(items)))
    subset = [k for k in range(len(items)) if keep[k]]
    restricted = [k for k in visiting_order(items).tolist() if keep[k]]
    assert [subset[k] for k in visiting_order([items[k] for k in subset]).tolist()] == restricted


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "B", "7", "é", "bb"]), max_size=12).map(" ".join), max_size=30),
       st.sampled_from([4, 16, 1 << 18]), st.booleans())
def test_codes_outgrowing_the_first_buffer_are_kept_in_order(texts, block_chars, exact):
    import packbench.algorithms.dedupe.tokenise as tk
    from packbench.algorithms.dedupe import signature

    with mock.patch.object(tk, "_BLOCK_CHARS", block_chars):
        codes, lens = word_codes(texts, exact=exact)
    expected = [signature(t) for t in texts]
    assert lens.tolist() == [len(ws) for ws in expected]
    flat = [w for ws in expected for w in ws]
    for a in range(len(flat)):
        for b in range(len(flat)):
            assert (codes[a] == codes[b]) == (flat[a] == flat[b]) or (not exact and flat[a] != flat[b])


def test_one_letter_words_outgrow_the_first_buffer():
    # Two characters per word: more words than the buffer's first size (a quarter of the characters).
    texts = [" ".join("abcdefghij"[(k + j) % 10] for j in range(50)) for k in range(40)]
    codes, lens = word_codes(texts)
    assert len(codes) > sum(map(len, texts)) // 4 + len(texts) + 1
    assert lens.tolist() == [50] * 40
    assert [chr(int(c)) for c in codes[:12]] == list("abcdefghijab")
