"""Fast MMR and submodular: identical to the previous full-matrix implementations, cosine, size guards."""

from __future__ import annotations

import heapq
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.embed import embed_items
from packbench.algorithms.items import Problem
from packbench.algorithms.similarity import similarity_matrix
from packbench.algorithms.strategies.mmr import MMR, relevance
from packbench.algorithms.strategies.submodular import Submodular, SubmodularObjective


def previous_mmr(problem, lam, similarity, c=0.0):
    """The MMR loop as it was, over the full similarity matrix."""
    cands, room, pinned = problem.candidates, problem.room, problem.pinned
    n = len(cands)
    tokens = np.array([it.tokens for it in cands])
    rel = relevance(np.array([it.score for it in cands]))
    sim = similarity_matrix(list(cands) + list(pinned), similarity)
    redundancy = sim[:n, n:].max(axis=1) if pinned else np.zeros(n)
    cost = tokens.astype(float) ** c if c > 0 else None
    rank = np.empty(n, dtype=np.int64)
    rank[sorted(range(n), key=lambda k: (-cands[k].score, cands[k].id))] = np.arange(n)
    open_, chosen, left = np.ones(n, dtype=bool), [], room
    while True:
        open_ &= tokens <= left
        if not open_.any():
            return chosen
        value = lam * rel - (1.0 - lam) * redundancy
        if cost is not None:
            value = (value + (1.0 - lam)) / cost
        live = np.flatnonzero(open_)
        best = value[live].max()
        ties = live[value[live] >= best - 1e-9 * max(1.0, abs(best))]  # rounding noise is a tie
        pick = int(ties[np.argmin(rank[ties])])
        chosen.append(pick)
        open_[pick] = False
        left -= int(tokens[pick])
        np.maximum(redundancy, sim[:n, pick], out=redundancy)


def previous_submodular(problem, lam, similarity, objective="sqrt", r=1.0):
    """Lazy greedy with one gain per candidate and best single by `value([k])`, as it was."""
    cands, room = problem.candidates, problem.room
    f = SubmodularObjective(cands, problem.pinned, lam=lam, similarity=similarity, objective=objective)
    tokens = [it.tokens for it in cands]
    sums, cover = f.state()
    cost = [float(t) ** r for t in tokens]
    heap = [(-f.gain(k, sums, cover) / cost[k], k, 0) for k in range(f.n) if tokens[k] <= room]
    heapq.heapify(heap)
    chosen, left, step = [], room, 0
    while heap:
        neg, k, seen = heapq.heappop(heap)
        if tokens[k] > left:
            continue
        if seen != step:
            heapq.heappush(heap, (-f.gain(k, sums, cover) / cost[k], k, step))
            continue
        if -neg <= 0:
            break
        chosen.append(k)
        f.add(k, sums, cover)
        left -= tokens[k]
        step += 1
    value = f.value(chosen)
    fits = [k for k in range(len(cands)) if tokens[k] <= room]
    single_value, single = max(((f.value([k]), -k) for k in fits), default=(float("-inf"), 0))
    return sorted([-single] if single_value > value else chosen)


@st.composite
def problems(draw):
    words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "北京", "🍕"]
    n = draw(st.integers(0, 10))
    items = [Item(f"c{k}", " ".join(draw(st.lists(st.sampled_from(words), max_size=8))),
                  draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])), draw(st.integers(1, 6)),
                  source=draw(st.sampled_from([None, "s1", "s2"]))) for k in range(n)]
    pinned = [Item(f"p{k}", " ".join(draw(st.lists(st.sampled_from(words), max_size=6))), 0.0, 1, pinned=True)
              for k in range(draw(st.integers(0, 2)))]
    items = embed_items(items + pinned, dim=8)
    return Problem(tuple(items[:n]), draw(st.integers(0, 25)), tuple(items[n:]))


@settings(max_examples=200, deadline=None)
@given(problems(), st.sampled_from([0.0, 0.3, 0.7, 1.0]), st.sampled_from(["jaccard", "tfidf", "cosine"]),
       st.sampled_from([0.0, 1.0]))
def test_mmr_equals_the_previous_implementation(problem, lam, similarity, c):
    got = MMR(lam=lam, similarity=similarity, cost_exponent=c).select(problem)
    assert got.info["pick_order"] == [problem.candidates[k].id for k in previous_mmr(problem, lam, similarity, c)]


@settings(max_examples=200, deadline=None)
@given(problems(), st.sampled_from([0.0, 0.5, 2.0]), st.sampled_from(["jaccard", "tfidf", "cosine"]),
       st.sampled_from(["sqrt", "linear"]))
def test_submodular_equals_the_previous_implementation(problem, lam, similarity, objective):
    got = Submodular(lam=lam, similarity=similarity, objective=objective).select(problem)
    assert sorted(got.indices) == previous_submodular(problem, lam, similarity, objective)


def test_cosine_mmr_prefers_the_diverse_item():
    items = [Item("a", "x", 1.0, 1, embedding=[1.0, 0.0]), Item("a2", "y", 0.95, 1, embedding=[1.0, 0.01]),
             Item("b", "z", 0.6, 1, embedding=[0.0, 1.0])]
    assert pack(items, 2, near_dup=None, strategy="mmr", lam=0.5, similarity="cosine").ids == ["a", "b"]
    assert pack(items, 2, near_dup=None, strategy="submodular", lam=1.0, similarity="cosine").ids == ["a", "b"]


def test_size_guards_refuse_clearly_and_top_k_restricts():
    rng = random.Random(0)
    items = [Item(f"c{k}", f"w{k} w{k + 1} w{k + 2}", rng.random(), 1, embedding=[rng.random(), 1.0])
             for k in range(3000)]
    with pytest.raises(ValueError, match=r"submodular: the 3000 x 3000 similarity matrix needs 137 MiB, over "
                                         r"max_memory_mb=64; pass top_k=2048"):
        pack(items, 50, near_dup=None, strategy="submodular", similarity="cosine", max_memory_mb=64)
    out = pack(items, 50, near_dup=None, strategy="submodular", similarity="cosine", top_k=200)
    best = {it.id for it in sorted(items, key=lambda it: -it.score)[:200]}
    assert out.info["pool"] == 200 and set(out.ids) <= best and len(out) == 50
    with pytest.raises(ValueError, match="mmr: similarity 'tfidf' builds the full 3000 x 3000 matrix"):
        pack(items, 50, near_dup=None, strategy="mmr", similarity="tfidf", max_memory_mb=64)
    # jaccard and cosine MMR need one column per pick: no matrix, no cap.
    assert len(pack(items, 50, near_dup=None, strategy="mmr", similarity="cosine", max_memory_mb=1)) == 50
