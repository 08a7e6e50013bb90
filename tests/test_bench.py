"""`packbench bench`: the suite, the fixed reference implementations, the results table."""

from __future__ import annotations

import random
import time

import pytest

from packbench.algorithms import Item, pack
from packbench.algorithms.strategies.exact_dp import dp_knapsack
from packbench.experiments.bench import build_suite, format_results
from packbench.experiments.bench.reference import pure_python_dp, reference_pack, regex_word_count
from packbench.experiments.bench.suite import dedupe_agreement, reference_for
from packbench.experiments.bench.text_speed import interleaved, interleaved_split


def test_suite_names_are_unique_and_quick_is_a_subset():
    full = [c.name for c in build_suite(quick=False)]
    quick = [c.name for c in build_suite(quick=True)]
    assert len(full) == len(set(full)) and set(quick) < set(full)
    for group in ("pack/", "dedupe/", "dp/", "solver/", "strategy/", "tokens/"):
        assert any(n.startswith(group) for n in quick)
    assert {"pack/realistic_100k", "pack/easy_100k", "dedupe/seed000_3000"} <= set(full)
    assert {"pack/realistic_10k", "pack/easy_10k"} <= set(quick)


def test_reference_pack_is_seed_000_semantics():
    rng = random.Random(0)
    vocab = [f"t{k}" for k in range(40)]
    items = [Item("sys", "be brief", 0.0, 3, pinned=True)]
    for k in range(120):
        base = items[rng.randrange(len(items))].text.split() if k and rng.random() < 0.3 else []
        ws = base[:-1] + [rng.choice(vocab)] if base else rng.choices(vocab, k=rng.randint(1, 12))
        items.append(Item(f"c{k}", " ".join(ws), round(rng.random(), 3), rng.randint(1, 20)))
    for budget in (3, 40, 200):
        assert [it.id for it in reference_pack(items, budget)] == pack(items, budget).ids
    with pytest.raises(ValueError):
        reference_pack(items, 2)


def test_pure_python_dp_matches_the_numpy_dp():
    rng = random.Random(1)
    for _ in range(20):
        w = [rng.randint(1, 30) for _ in range(rng.randint(0, 15))]
        s = [float(rng.randint(1, 50)) for _ in w]
        assert pure_python_dp(w, s, 60) == dp_knapsack(w, s, 60)[1]


def test_dedupe_agreement():
    assert dedupe_agreement({"a": "x", "b": "y"}, {"a": "x", "c": "z"}) == {"recall": 0.5, "precision": 0.5}
    assert dedupe_agreement({}, {}) == {"recall": 1.0, "precision": 1.0}


def test_results_table_shows_speedups_over_paired_cases():
    doc = {"mode": "quick", "cases": {"ref": {"seconds": 2.0, "quality": {"n": 1}},
                                      "fast": {"seconds": 0.01, "quality": {"n": 1}, "pair": "ref"}}}
    table = format_results(doc)
    assert "200x" in table and "fast" in table


def test_every_timed_case_has_a_quick_reference_of_its_kind():
    quick = {c.name: c for c in build_suite(quick=True)}
    for case in build_suite(quick=False):
        ref = reference_for(case.name)
        assert ref in quick and quick[ref].reference, case.name
    assert {c.name for c in quick.values() if c.reference} == {
        "dedupe/seed000_300", "dp/pure_python_50x32768", "tokens/regex_words_1k"}


def test_regex_word_count():
    assert regex_word_count(["Hello, world", "a-b c"]) == 5


def test_text_speed_runs_the_cases_in_turn_and_reports_the_kernels_time_apart():
    calls: list[str] = []

    def burn():  # 20 ms of CPU: its wall time cannot be less
        calls.append("b")
        end = time.process_time() + 0.02
        while time.process_time() < end:
            pass

    cases = {"a": lambda: calls.append("a"), "b": burn}
    split = interleaved_split(cases, 3)
    assert calls == ["a", "b"] * 3  # round by round, so load hits both cases alike
    assert set(split) == {"a", "b"}
    assert split["b"][0] >= 0.02 and 0.0 <= split["b"][1] <= split["b"][0] + 0.02
    assert set(interleaved(cases, 2)) == {"a", "b"} and len(calls) == 10
