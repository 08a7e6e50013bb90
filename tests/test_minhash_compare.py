"""The datasketch comparison path keeps the dedupe semantics, and the comparison reports agreement."""

from __future__ import annotations

import pytest

from packbench.algorithms import Item
from packbench.algorithms.dedupe import dedupe_indexed, jaccard, shingles, words
from packbench.experiments.bench.minhash_compare import compare, dedupe_datasketch
from packbench.experiments.bench.workloads import random_candidates

pytest.importorskip("datasketch")


def test_datasketch_drops_only_verified_matches_of_earlier_kept_items():
    items = random_candidates(300, seed=5, words=40, dup_share=0.3)
    pin = Item("sys", items[0].text, 0.0, 1, pinned=True)
    kept, dropped = dedupe_datasketch(items, [pin], 0.8)
    by_id = {it.id: it for it in [*items, pin]}
    kept_ids = [it.id for it in kept]
    assert set(kept_ids) | set(dropped) == {it.id for it in items}
    assert dropped[items[0].id] == "sys"
    for cand, partner in dropped.items():
        assert partner in kept_ids or partner == "sys"
        wa, wb = words(by_id[cand].text), words(by_id[partner].text)
        assert wa == wb or jaccard(shingles(wa), shingles(wb)) >= 0.8


def test_exact_repeats_give_the_exact_answer():
    items = [Item(f"i{k}", t, float(k % 4), 1) for k, t in enumerate(["a b c d", "A b c d!", "x y", "x y", ""])]
    assert dedupe_datasketch(items, [], 0.9)[1] == dedupe_indexed(items, [], 0.9)[1]


def test_compare_rows_report_agreement_with_the_exact_join():
    rows = compare([400], ["exact", "minhash"], repeats=1)
    assert [r["method"] for r in rows] == ["exact", "minhash"]
    assert rows[0]["recall"] == rows[0]["precision"] == 1.0
    assert rows[1]["precision"] == 1.0 and rows[1]["recall"] >= 0.9
