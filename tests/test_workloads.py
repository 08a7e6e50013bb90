"""The benchmark text workloads: the realistic one (NQ-Open's word statistics, planted near-copies) and the easy one."""

from __future__ import annotations

import random

import numpy as np
import pytest

from packbench.algorithms.dedupe import containment, jaccard, shingles, words
from packbench.experiments.bench.workloads import (NEAR_COPY_KINDS, plant_near_copy, random_candidates,
                                                   realistic_candidates)
from packbench.experiments.corpora.data import NQ_OPEN_SAMPLE, read_jsonl_gz, sample_path
from packbench.experiments.corpora.word_stats import (WordStats, load_word_stats, passage_words,
                                                      trigram_distinct_share)


def test_realistic_workload_is_deterministic_by_seed():
    a, b = realistic_candidates(300, seed=4), realistic_candidates(300, seed=4)
    assert [(it.id, it.text, it.score, it.tokens) for it in a] == [(it.id, it.text, it.score, it.tokens) for it in b]
    assert [it.text for it in realistic_candidates(300, seed=5)] != [it.text for it in a]
    assert len({it.id for it in a}) == 300 and all(it.tokens >= 1 for it in a)


def test_trigram_share_matches_the_held_out_sample():
    # The stats were fitted on the rows outside the embedded sample: its 300 passages are held out.
    real = passage_words(read_jsonl_gz(sample_path(NQ_OPEN_SAMPLE)))
    generated = load_word_stats().generate(len(real), np.random.default_rng(11))
    gen_share, real_share = trigram_distinct_share(map(words, generated)), trigram_distinct_share(real)
    assert abs(gen_share - real_share) <= 0.02, (gen_share, real_share)
    # The easy workload is far from it: its texts share almost no trigrams.
    easy = trigram_distinct_share(words(it.text) for it in random_candidates(len(real), seed=11, dup_share=0.0))
    assert easy - real_share > 0.04
    real_median = np.median([len(ws) for ws in real])
    assert abs(np.median([len(ws) for ws in map(words, generated)]) - real_median) <= 0.15 * real_median


def test_trigram_distinct_share_counts_across_texts():
    assert trigram_distinct_share([("a", "b", "c", "d"), ("a", "b", "c")]) == 2 / 3
    assert trigram_distinct_share([("a", "b")]) == 1.0


def test_planted_near_copies_are_of_each_kind():
    rng = random.Random(3)
    src = "The cat sat on the mat today. It was warm and the sun was out. Birds sang in the old oak tree near"
    other = "Another paragraph about rivers and hills"
    edit = plant_near_copy("edit", src, other, rng)
    assert edit != src and 0.3 < jaccard(shingles(words(edit)), shingles(words(src))) < 1.0
    cut = words(plant_near_copy("cut", src, other, rng))
    assert words(src)[:len(cut)] == cut and 0.5 <= len(cut) / len(words(src)) <= 0.8
    assert words(plant_near_copy("merge", src, other, rng)) == words(src) + words(other)
    reorder = plant_near_copy("reorder", src, other, rng)
    assert sorted(words(reorder)) == sorted(words(src)) and words(reorder) != words(src)
    with pytest.raises(ValueError, match="near-copy kind"):
        plant_near_copy("paraphrase", src, other, rng)
    assert set(NEAR_COPY_KINDS) == {"edit", "cut", "merge", "reorder"}


def test_realistic_workload_plants_its_share_of_near_copies():
    items = realistic_candidates(400, seed=2, dup_share=0.2)
    sets = [shingles(words(it.text)) for it in items]
    # A planted copy holds half of its own (or of its source's) trigrams in common with an earlier
    # text; base passages share only common phrases.
    copies = sum(any(containment(s, sets[j]) >= 0.5 for j in range(k)) for k, s in enumerate(sets))
    assert 0.14 * len(items) <= copies <= 0.26 * len(items)
    with pytest.raises(ValueError, match="dup_share"):
        realistic_candidates(10, dup_share=1.0)


def test_word_stats_reject_a_broken_file():
    data = load_word_stats().to_json()
    assert WordStats.from_json(data).vocab == load_word_stats().vocab
    with pytest.raises(ValueError, match="'unigram'"):
        WordStats.from_json({k: v for k, v in data.items() if k != "unigram"})
    with pytest.raises(ValueError, match="disagree"):
        WordStats.from_json({**data, "prev_total": data["prev_total"][:-1]})
