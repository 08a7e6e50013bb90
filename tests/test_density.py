"""The density order sorted only as far as the fill reads it (`DensityOrder`) gives the whole order's answers.

Its head must be exactly the first part of `density_order` (ties included), its tail the rest in
order, a fill over head and tail the fill over the whole order, and the Dantzig bound from the
head's stable part the bound of a full stable sort; the two strategies built on it must choose what
their item-by-item paths choose, on instances with many equal densities, scores and ids.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from packbench.algorithms.bounds import dantzig_bound, dantzig_bound_arrays
from packbench.algorithms.items import Item, Problem
from packbench.algorithms.strategies import greedy as g
from packbench.algorithms.strategies.best_single import GreedyBestSingle
from packbench.algorithms.strategies.density import DensityOrder, fill_arrays, fill_density


def _instance(rng: random.Random, n: int) -> tuple[Item, ...]:
    # Few distinct scores and tokens: many equal densities; ids from a small range, then made unique.
    scores = [rng.choice([0.0, 1.0, 2.0, 0.5, round(rng.random(), 2), rng.random()]) for _ in range(n)]
    tokens = [rng.choice([1, 2, 3, 5, 40, rng.randint(1, 400)]) for _ in range(n)]
    return tuple(Item(f"i{rng.randint(0, n // 3)}-{k}", "x", scores[k], tokens[k]) for k in range(n))


def _arrays(cands):
    return (np.array([it.score for it in cands], dtype=np.float64),
            np.array([it.tokens for it in cands], dtype=np.int64))


@pytest.mark.parametrize("seed", range(30))
def test_head_and_tail_are_the_whole_order_in_two_parts(seed):
    rng = random.Random(seed)
    cands = _instance(rng, rng.choice([300, 1500, 5000]))
    scores, tokens = _arrays(cands)
    full = g._python_density_order(cands)
    stable = np.argsort(-scores / tokens, kind="stable").tolist()
    for room in (0, 1, 50, 700, int(tokens.sum()) // 2, int(tokens.sum()) + 1):
        order = DensityOrder(cands, scores, tokens, room)
        head = order.head.tolist()
        assert head == full[:len(head)] and order.head_by_index.tolist() == stable[:len(head)]
        assert order.complete == (len(head) == len(cands))
        if not order.complete:
            mask = tokens <= rng.choice([1, 5, 60, room + 1])
            rest = set(full[len(head):])
            assert order.tail(mask).tolist() == [k for k in full if k in rest and mask[k]]
        # The fills over the head (and what of the tail they read) are the fills over the whole order.
        fit = tokens <= room
        start = [k for k in rng.sample(range(len(cands)), 1) if tokens[k] <= room]
        whole = np.array([k for k in full if fit[k]], dtype=np.int64)
        assert fill_density(tokens, order, order.head[fit[order.head]], room, start, fit) == \
            fill_arrays(tokens, whole, room, start)
        assert fill_density(tokens, order, order.head, room) == fill_arrays(tokens, np.array(full), room)
        assert dantzig_bound_arrays(scores, tokens, room, order.head_by_index) == dantzig_bound(cands, room)


@pytest.mark.parametrize("seed", range(20))
def test_strategies_on_arrays_choose_what_their_loops_choose(seed, monkeypatch):
    rng = random.Random(100 + seed)
    cands = _instance(rng, rng.choice([400, 3000]))
    for room in (0, 7, 300, 4096, sum(it.tokens for it in cands) // 4):
        problem = Problem(cands, room)
        fast = {cls: cls().select(problem) for cls in (GreedyBestSingle, g.Greedy)}
        # The loops: the paths the strategies take below _VECTOR_MIN candidates.
        with monkeypatch.context() as mp:
            mp.setattr(g, "_VECTOR_MIN", 10**9)
            mp.setattr("packbench.algorithms.strategies.best_single._VECTOR_MIN", 10**9)
            slow = {cls: cls().select(Problem(cands, room)) for cls in fast}
        for cls in fast:
            assert fast[cls].indices == slow[cls].indices, (cls.__name__, room)
            assert fast[cls].upper_bound == slow[cls].upper_bound and fast[cls].optimal == slow[cls].optimal
