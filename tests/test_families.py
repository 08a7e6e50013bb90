"""Synthetic families: Pisinger formulas, retrieval ground truth, trap optima, pinned items."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from packbench.algorithms import pack
from packbench.algorithms.dedupe import words
from packbench.experiments.families import FAMILIES
from packbench.experiments.families.pinned import pinned_items
from packbench.experiments.families.pisinger import Pisinger, pisinger_weights_profits
from packbench.experiments.families.retrieval import Retrieval, edit_words
from packbench.experiments.families.traps import Traps


def draw(cls, R=1000, n=2000, seed=7):
    w, p = pisinger_weights_profits(cls, n, R, np.random.default_rng(seed))
    assert w.dtype.kind == "i" and p.dtype.kind == "i" and len(w) == len(p) == n
    return w, p


@pytest.mark.parametrize("R", [100, 1000, 10000])
def test_pisinger_formulas(R):
    t = R // 10
    w, p = draw("uncorrelated", R)
    assert w.min() >= 1 and w.max() <= R and p.min() >= 1 and p.max() <= R
    assert abs(np.corrcoef(w, p)[0, 1]) < 0.1  # independent draws
    w, p = draw("weakly_correlated", R)
    assert (w >= 1).all() and (w <= R).all() and (p >= np.maximum(1, w - t)).all() and (p <= w + t).all()
    assert (p != w).any()
    w, p = draw("strongly_correlated", R)
    assert (w >= 1).all() and (w <= R).all() and (p == w + t).all()
    w, p = draw("inverse_strongly_correlated", R)
    assert (p >= 1).all() and (p <= R).all() and (w == p + t).all()
    w, p = draw("almost_strongly_correlated", R)
    assert (w >= 1).all() and (w <= R).all()
    assert (p >= w + t - R / 500).all() and (p <= w + t + R / 500).all()
    w, p = draw("subset_sum", R)
    assert (w >= 1).all() and (w <= R).all() and (p == w).all()


def test_pisinger_ranges_are_covered():
    w, p = draw("uncorrelated", R=100, n=20000)
    assert set(w) == set(range(1, 101)) and set(p) == set(range(1, 101))
    w, p = draw("weakly_correlated", R=100, n=20000)
    assert set(p - w) == set(range(-10, 11))  # the whole band [w - R/10, w + R/10] is reachable


def test_pisinger_rejects_bad_R_and_class():
    with pytest.raises(ValueError, match="multiple of 10"):
        Pisinger(R=1005)
    with pytest.raises(ValueError, match="Pisinger class"):
        pisinger_weights_profits("hard", 3, 100, np.random.default_rng(0))
    with pytest.raises(ValueError, match="'cls'"):
        Pisinger(cls="hard")


def test_pisinger_instance_maps_weights_to_tokens_and_is_seeded():
    a = next(Pisinger(cls="strongly_correlated", n=30, R=100, system_tokens=5).instances(3))
    b = next(Pisinger(cls="strongly_correlated", n=30, R=100, system_tokens=5).instances(3))
    c = next(Pisinger(cls="strongly_correlated", n=30, R=100, system_tokens=5).instances(4))
    assert a == b and a.items != c.items
    cands = [it for it in a.items if not it.pinned]
    assert len(cands) == 30 and all(it.score == it.tokens + 10 for it in cands)
    assert a.meta["budget"] == sum(it.tokens for it in cands) // 2 + 5
    assert [it.id for it in a.items if it.pinned] == ["system"]


def test_retrieval_ground_truth_and_shape():
    fam = Retrieval(n=60, dup_rate=0.25, sources=5, n_answers=2, len_median=80, system_tokens=30, question_tokens=10)
    inst = next(fam.instances(1))
    cands = [it for it in inst.items if not it.pinned]
    assert len(cands) == 60 and sum(it.pinned for it in inst.items) == 2
    assert [it.score for it in cands] == sorted((it.score for it in cands), reverse=True)
    assert all(20 <= it.tokens <= 400 and it.tokens == len(it.text.split()) for it in cands)
    assert {it.source for it in cands} <= {f"doc{k}" for k in range(5)}
    groups = inst.groups
    assert set(groups) == {it.id for it in cands}
    by_group = {}
    for it in cands:
        by_group.setdefault(groups[it.id], []).append(it)
    assert sum(len(v) - 1 for v in by_group.values()) == 15  # 25 % of 60 are copies
    for members in by_group.values():
        for a, b in itertools.combinations(members, 2):  # copies differ by 1-3 word edits
            wa, wb = a.text.split(), b.text.split()
            assert wa != wb and abs(len(wa) - len(wb)) <= 3
    top = {groups[it.id] for it in cands[:1]}
    assert inst.answers and {groups[a] for a in inst.answers} >= top and len({groups[a] for a in inst.answers}) == 2


def test_retrieval_duplicates_are_near_duplicates_for_dedupe():
    inst = next(Retrieval(n=80, dup_rate=0.3, len_median=150, min_tokens=100).instances(0))
    packed = pack(inst.items, 10**6, near_dup=0.5)
    # with this long text, 1-3 edits keep trigram Jaccard above 0.5: dedupe finds exactly the copies
    assert {k: inst.groups[k] for k in packed.dropped} == {k: inst.groups[v] for k, v in packed.dropped.items()}
    assert len(packed.dropped) == 24


def test_edit_words_always_changes_the_text():
    rng = np.random.default_rng(0)
    base = "a b c d e f".split()
    for _ in range(200):
        out = edit_words(rng, base, int(rng.integers(1, 4)))
        assert out != base and abs(len(out) - len(base)) <= 3


@pytest.mark.parametrize("trap,strategy,ratio", [("density", "greedy", 2 / 1000), ("value", "prefix", 10 / 90),
                                                 ("half", "greedy_best_single", (50 + 2) / 100)])
def test_traps_fool_their_heuristic(trap, strategy, ratio):
    inst = next(Traps(trap=trap, W=1000, M=50, system_tokens=7).instances(0))
    budget = inst.meta["budget"]
    assert budget == {"density": 1000, "value": 100, "half": 100}[trap] + 7
    best = pack(inst.items, budget, None, strategy="exact_dp")
    assert best.score == inst.meta["optimum"]
    got = pack(inst.items, budget, None, strategy=strategy)
    assert got.score / best.score == pytest.approx(ratio)


def test_pinned_items_have_the_requested_size():
    rng = np.random.default_rng(0)
    items = pinned_items(rng, 40, 12)
    assert [(it.id, it.tokens, it.pinned, it.score) for it in items] == [
        ("system", 40, True, 0.0), ("question", 12, True, 0.0)]
    assert len(words(items[0].text)) == 41  # "system:" + 40 words
    assert pinned_items(rng, 0, 0) == []


def test_registered_families_build_with_defaults():
    for name in ("pisinger", "retrieval", "traps"):
        inst = next(FAMILIES[name]().instances(0))
        assert inst.items and inst.groups is not None
