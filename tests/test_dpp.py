"""The budgeted DPP: each pick is the brute-force best determinant gain among what fits; the budget holds."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from packbench.algorithms import Item, pack
from packbench.algorithms.strategies.dpp import VOLUME_EPS, quality_weights


@st.composite
def embedded(draw):
    n = draw(st.integers(1, 7))
    dim = draw(st.integers(1, 4))
    vec = st.lists(st.floats(-1, 1, allow_nan=False).map(lambda x: round(x, 2)), min_size=dim, max_size=dim)
    items = [Item(f"c{k}", f"text {k}", draw(st.sampled_from([0.5, 1.0, 2.0, 3.0])), draw(st.integers(1, 9)),
                  embedding=tuple(draw(vec))) for k in range(n)]
    return items, draw(st.integers(0, 30)), draw(st.sampled_from([0.0, 0.5, 2.0]))


def _kernel(items, theta):
    u = np.array([it.embedding for it in items], dtype=float)
    norms = np.linalg.norm(u, axis=1)
    u = u / np.where(norms > 0, norms, 1.0)[:, None]
    q = quality_weights(np.array([it.score for it in items]), theta)
    return q[:, None] * (u @ u.T) * q[None, :], q


@settings(max_examples=300, deadline=None)
@given(embedded())
def test_each_pick_maximises_the_determinant_among_the_fitting_candidates(case):
    items, budget, theta = case
    res = pack(items, budget, None, strategy="dpp", similarity="cosine", theta=theta)
    assert res.tokens <= budget
    L, q = _kernel(items, theta)
    at = {it.id: k for k, it in enumerate(items)}
    picks = [at[i] for i in res.info["pick_order"]]
    left, chosen = budget, []
    floor = VOLUME_EPS * float((q * q).max())
    while True:
        base = np.linalg.det(L[np.ix_(chosen, chosen)]) if chosen else 1.0
        gains = {k: np.linalg.det(L[np.ix_(chosen + [k], chosen + [k])]) / base
                 for k in range(len(items)) if k not in chosen and items[k].tokens <= left} if base > 1e-9 else {}
        if len(chosen) == len(picks):
            # The greedy stopped: nothing fits or nothing adds volume.
            assert all(g <= floor + 1e-6 for g in gains.values())
            break
        pick = picks[len(chosen)]
        assert pick in gains and gains[pick] >= max(gains.values()) - 1e-6 * max(1.0, max(gains.values()))
        chosen.append(pick)
        left -= items[pick].tokens


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text("abc ", max_size=12), st.floats(0, 5, allow_nan=False), st.integers(1, 20)),
                max_size=10), st.integers(0, 60))
def test_the_budget_is_never_exceeded_with_text_similarity(rows, budget):
    items = [Item(f"i{k}", t, s, n) for k, (t, s, n) in enumerate(rows)]
    res = pack(items, budget, None, strategy="dpp")
    assert res.tokens <= budget and len(set(res.ids)) == len(res.ids)


def test_a_repeat_adds_no_volume_and_is_left_out_while_a_distinct_item_is_taken():
    items = [Item("a", "x", 3.0, 5, embedding=(1.0, 0.0)), Item("a2", "x again", 2.9, 5, embedding=(1.0, 0.0)),
             Item("b", "y", 1.0, 5, embedding=(0.0, 1.0))]
    res = pack(items, 100, None, strategy="dpp", similarity="cosine")
    assert res.info["pick_order"] == ["a", "b"]


def test_theta_zero_is_diversity_only_and_large_theta_follows_the_scores():
    items = [Item("a", "x", 3.0, 5, embedding=(1.0, 0.0)), Item("a2", "x", 2.9, 5, embedding=(0.99, 0.14)),
             Item("b", "y", 0.1, 5, embedding=(0.0, 1.0))]
    assert pack(items, 10, None, strategy="dpp", similarity="cosine", theta=0.0).info["pick_order"][1] == "b"
    assert pack(items, 10, None, strategy="dpp", similarity="cosine", theta=8.0).info["pick_order"] == ["a", "a2"]


@settings(max_examples=300, deadline=None)
@given(scores=st.lists(st.floats(0, 1e6, allow_nan=False) | st.sampled_from([0.0, 0.1, 1.0, 3.0]), min_size=1,
                       max_size=400),
       theta=st.sampled_from([0.0, 0.5, 2.0, 37.0]))
def test_quality_weights_are_numpys_std_and_mean_bit_for_bit(scores, theta):
    # The weights were ``exp(theta * (rel - rel.mean()) / rel.std())``; the faster form must give the
    # same floats, or the kernel (and so a near-tied pick) changes.
    scores = np.array(scores)
    rel = scores / scores.max() if scores.max() > 0 else np.zeros_like(scores)
    std = float(rel.std())
    want = np.exp(theta * ((rel - rel.mean()) / std if std > 0 else np.zeros_like(rel)))
    assert np.array_equal(quality_weights(scores, theta), want)
