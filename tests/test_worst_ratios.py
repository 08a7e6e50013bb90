"""The worst-ratio experiment: its exact optima are right and a short run keeps every claimed bound."""

import itertools

import numpy as np
import pytest

from packbench.algorithms.strategies.submodular import SubmodularObjective
from packbench.experiments.claims.worst_ratios import knapsack_optimum, main, random_instance, subset_masks, submodular_optimum
from tests.oracles import brute_force_best


@pytest.mark.parametrize("seed", range(15))
def test_vectorised_optima_match_brute_force(seed):
    items, room, _ = random_instance(np.random.default_rng(seed), 8)
    masks = subset_masks(len(items))
    assert knapsack_optimum(items, room) == pytest.approx(
        brute_force_best([i.score for i in items], [i.tokens for i in items], room))
    f = SubmodularObjective(items, lam=0.5)
    best = max(f.value(s) for m in range(len(items) + 1) for s in itertools.combinations(range(len(items)), m)
               if sum(items[k].tokens for k in s) <= room)
    assert submodular_optimum(f, items, room, masks) == pytest.approx(best)


def test_short_run_keeps_every_claimed_bound(capsys):
    assert main(["--n", "150", "--seed", "3", "--max-items", "7"]) == 0
    out = capsys.readouterr().out
    assert "| greedy_best_single | >= 1/2 |" in out and "fptas (eps=0.1)" in out
