"""Issue 14's reproduction calls: right answers or a ValueError naming the bound, never a silent error."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest

from packbench.algorithms import Item, Problem, pack
from packbench.algorithms.bounds import dantzig_bound
from packbench.algorithms.solvers.dp import dp_knapsack, dp_memory_bytes
from packbench.algorithms.solvers.reduce import reduce_knapsack
from packbench.algorithms.strategies.fptas import FPTAS
from packbench.algorithms.solvers.dp_kernel import warm_up as dp_warm_up


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    dp_warm_up()  # the DP's compilation (or cache load) must not land inside tracemalloc's count


@pytest.mark.parametrize("big", [2**61 - 2, 2**61 - 1, 2**61, 2**62 - 1])
def test_fptas_is_right_at_token_totals_near_2_pow_61(big):
    # An int64 sentinel of 2**61 - 1 for "unreachable" read as reachable once room >= it.
    res = pack([Item("big", "a b c", 100.0, big), Item("s1", "d e f", 1.0, 1)], big, strategy="fptas")
    assert res.ids == ["big"] and res.score == 100.0


def test_huge_scores_give_finite_bounds_and_no_overflow():
    items = [Item("a", "alpha beta gamma", 1e300, 10**9), Item("b", "delta eps zeta", 1e300, 10**9)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for strategy in ("fptas", "greedy", "greedy_best_single", "exact", "bnb", "cpsat"):
            res = pack(items, 1_500_000_000, strategy=strategy)
            assert res.score == 1e300 and len(res.ids) == 1, strategy
            assert np.isfinite(res.upper_bound) and res.upper_bound >= 1e300, strategy
    assert dantzig_bound(items, 1_500_000_000) == pytest.approx(1.5e300)


def test_reduction_on_huge_scores_has_no_overflow_warning():
    rng = np.random.default_rng(0)
    w = rng.integers(10**8, 10**9, 3000)
    s = rng.uniform(1e299, 1e300, 3000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        red = reduce_knapsack(w, s, int(w.sum() // 2))
    assert np.isfinite(red.upper_bound) and red.upper_bound >= red.incumbent_score


def test_exact_dp_takes_a_lone_fitting_item_without_allocating_a_dp_row():
    tracemalloc.start()
    res = pack([Item("a", "x y z", 1.0, 2**28)], 2**28, strategy="exact_dp", max_memory_mb=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert res.ids == ["a"] and res.info["dp_bytes"] == 0 and peak < 2**20


@pytest.mark.parametrize("room", [2**28, 2**34])
def test_exact_dp_counts_its_value_row_and_refuses_before_allocating(room):
    items = [Item("a", "x y z", 1.0, room // 2 + 1), Item("b", "u v w", 2.0, room // 2 + 1)]
    tracemalloc.start()
    with pytest.raises(ValueError, match=r"above max_memory_mb=1\b.*'bnb' or 'cpsat' \(or 'exact'"):
        pack(items, room, strategy="exact_dp", max_memory_mb=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2**20


def test_dp_memory_count_covers_what_the_dp_allocates():
    rng = np.random.default_rng(1)
    w = rng.integers(1, 500, 200).tolist()
    s = rng.uniform(1, 10, 200).tolist()
    room = sum(w) // 3
    tracemalloc.start()
    dp_knapsack(w, s, room)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= dp_memory_bytes(w, room) * 1.05 + 50_000


def test_fptas_memory_cap_counts_the_level_rows_and_names_the_alternatives():
    items = [Item(f"a{i}", f"x{i} y z", 1.0 + i, 2**33 + i) for i in range(300)]
    with pytest.raises(ValueError, match=r"above max_memory_mb=1\b.*'exact', 'bnb' or 'cpsat'"):
        pack(items, 2**34, strategy="fptas", eps=0.001, max_memory_mb=1)


def test_fptas_memory_count_covers_what_it_allocates():
    rng = np.random.default_rng(2)
    items = tuple(Item(f"i{k}", "", float(rng.uniform(1, 9)), int(rng.integers(1, 50))) for k in range(120))
    prob = Problem(items, 1500)
    tracemalloc.start()
    sel = FPTAS(eps=0.05).select(prob)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= sel.info["dp_bytes"] * 1.05 + 200_000


@pytest.mark.parametrize("value", [1, 0, 0.0, 1.0, "yes", None])
def test_recency_contiguous_rejects_non_bools(value):
    with pytest.raises(TypeError, match="'contiguous' must be True or False"):
        pack([Item("a", "x", 1.0, 1)], 10, strategy="recency", contiguous=value)
