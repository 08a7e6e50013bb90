"""The vectorised density order and greedy fill give exactly the Python loops' answers.

Above a few hundred candidates `density_order` and `greedy_fill` run in numpy;
the reference loops are the seed's definitions, so every case here compares
the two on instances large enough to take the numpy path, with many ties in
density, score and tokens, starts, filtered orders and rooms from 0 to
everything.
"""

from __future__ import annotations

import random

import pytest

from packbench.algorithms.items import Item
from packbench.algorithms.strategies import greedy as g


def _instance(rng: random.Random, n: int) -> list[Item]:
    scores = [rng.choice([0.0, 1.0, 2.0, 0.5, round(rng.random(), 2), rng.random()]) for _ in range(n)]
    tokens = [rng.choice([1, 2, 3, 5, rng.randint(1, 400)]) for _ in range(n)]
    ids = [f"i{rng.randint(0, 99)}-{k}" for k in range(n)]
    rng.shuffle(ids)
    return [Item(ids[k], "x", scores[k], tokens[k]) for k in range(n)]


@pytest.mark.parametrize("seed", range(40))
def test_vector_paths_match_the_loops(seed: int) -> None:
    rng = random.Random(seed)
    cands = _instance(rng, rng.choice([g._VECTOR_MIN, 300, 1200]))
    tokens = [it.tokens for it in cands]
    ref = g._python_density_order(cands)
    assert g.density_order(cands) == ref
    for room in (0, 1, 37, 4096, sum(tokens) // 3, sum(tokens), sum(tokens) + 9):
        start = rng.sample(range(len(cands)), rng.choice([0, 1, 3]))
        order = ref if rng.random() < 0.5 else [k for k in ref if tokens[k] <= room]
        used = sum(tokens[k] for k in start)
        expected = g._python_fill(cands, room, list(start), set(start), used, order)
        assert g.greedy_fill(cands, room, start=start, order=order) == expected
        assert g.greedy_fill(cands, room, start=start) == g._python_fill(cands, room, list(start), set(start),
                                                                          used, ref)


def test_repeated_indices_in_an_order_take_the_loop() -> None:
    cands = _instance(random.Random(7), 400)
    order = g.density_order(cands)
    doubled = order + order
    assert g.greedy_fill(cands, 5000, order=doubled) == g._python_fill(cands, 5000, [], set(), 0, doubled)
