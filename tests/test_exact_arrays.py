"""`exact`'s array plumbing: the reduction's and the search's positions as int64 arrays, and the bench's workers.

At 10,000 items every list of positions read into numpy cost about 0.1 ms, so the minknap route
passes arrays: `Reduction.fixed_array` / `free_array` / `incumbent_array` and `MinknapResult.at`.
They must always be the tuples and lists they stand for, whichever path built the object.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from packbench.algorithms import STRATEGIES, Item, Problem
from packbench.algorithms.solvers.core.minknap import PROVEN, MinknapResult, minknap
from packbench.algorithms.solvers.reduce import Reduction, reduce_knapsack
from packbench.algorithms.solvers.scaling import integer_profits, integer_profits_array
from packbench.algorithms.solvers.stages import reduce_again


def _instance(rng, n):
    w = np.array([rng.randint(1, 60) for _ in range(n)], dtype=np.int64)
    p = np.array([float(x + rng.randint(0, 20)) for x in w.tolist()])
    return w, p, int(w.sum()) // 2


@pytest.mark.parametrize("seed", range(40))
def test_the_reductions_arrays_are_its_tuples(seed):
    rng = random.Random(seed)
    w, p, room = _instance(rng, rng.randint(2, 60))
    for known in (None, float(p.sum()) / 3):
        red = reduce_knapsack(w, p, room, margin=1.0, known=known)
        for name, arr in (("fixed_in", red.fixed_array), ("free", red.free_array), ("incumbent", red.incumbent_array)):
            assert arr.dtype == np.int64 and arr.tolist() == list(getattr(red, name)), name
            assert not arr.flags.writeable  # shared with later stages: nobody may write into them
    built = Reduction((3, 1), (0, 2), 5, (1,), 2.0, 4.0)  # from tuples alone (the numpy path, tests)
    assert built.fixed_array.tolist() == [3, 1] and built.free_array.tolist() == [0, 2]
    assert built.incumbent_array.tolist() == [1] and built == Reduction((3, 1), (0, 2), 5, (1,), 2.0, 4.0)


@pytest.mark.parametrize("seed", range(20))
def test_the_search_reports_its_set_as_a_list_and_an_array(seed):
    w, p, room = _instance(random.Random(seed), 30)
    res = minknap(w, p.astype(np.int64), room)
    assert res.status == PROVEN and res.at.dtype == np.int64 and res.at.tolist() == res.chosen
    assert MinknapResult([4, 7], 3, PROVEN, 1).at.tolist() == [4, 7]
    assert MinknapResult(None, -1, PROVEN, 0).at is None


@pytest.mark.parametrize("scores", [[2.0**49, 2.0**49, 1.0], [2.0**50 - 1, 1.0], [2.0**50 - 2, 1.0], [3.0, 0.0]])
def test_integral_scores_near_the_headroom_scale_as_the_list_version(scores):
    # numpy's sum decides whether integral scores are kept as they are: it must agree with fsum's at 2**50.
    profits, unit, err = integer_profits(scores)
    arr, unit_a, err_a = integer_profits_array(np.array(scores))
    assert arr.tolist() == [float(x) for x in profits] and (unit_a, err_a) == (unit, err)


def test_the_bench_runs_this_checkout_in_a_worker_with_the_same_answer():
    from packbench.experiments.bench.before import BeforeWorker, this_tree

    here = this_tree()
    if here is None:
        pytest.skip("packbench is installed, not run from a checkout: the bench times it in-process")
    rng = random.Random(3)
    w, p, room = _instance(rng, 200)
    prob = Problem(tuple(Item(f"i{k}", "", float(s), int(t)) for k, (t, s) in enumerate(zip(w, p))), room)
    sel = STRATEGIES["exact"](time_limit=10).select(prob)
    with BeforeWorker(here) as worker:
        got = worker.solve(prob, 10.0)
    assert got["optimal"] and got["score"] == pytest.approx(sum(prob.candidates[k].score for k in sel.indices))
    assert got["tie_break"] == sel.info["tie_break"] and got["cpu"] > 0


@pytest.mark.parametrize("seed", range(10))
def test_a_reduction_keeps_arrays_and_builds_its_tuples_only_when_read(seed):
    # exact's search route reads only the arrays: the tuples (0.3 ms of a 0.7 ms reduction at 10,000 items)
    # must not be built for it, yet read later they are the arrays' positions, and the object stays read-only.
    w, p, room = _instance(random.Random(seed), 50)
    red = reduce_knapsack(w, p, room, margin=1.0)
    assert not {"fixed_in", "free", "incumbent"} & set(vars(red))
    twin = Reduction(red.fixed_array.tolist(), list(red.free), red.room, red.incumbent_array, red.incumbent_score,
                     red.upper_bound)
    assert red == twin and hash(red) == hash(twin) and red.free == tuple(red.free_array.tolist())
    with pytest.raises(AttributeError, match="read-only"):
        red.room = 0
    arr = np.array([4, 2], dtype=np.int64)
    Reduction(arr, (), 1, arr, 0.0, 0.0)
    assert arr.flags.writeable  # a caller's array is copied, never frozen under it


@pytest.mark.parametrize("seed", range(10))
def test_the_witness_pass_kinds_and_tree_match_their_definitions(seed):
    from packbench.algorithms.solvers.core.lex import item_tree, tree_in_order
    from packbench.algorithms.solvers.core.minknap import efficiency_order
    from packbench.algorithms.solvers.core.witness import item_kinds

    rng = np.random.default_rng(seed)
    w, p = rng.integers(1, 6, 300), rng.integers(1, 6, 300)  # few kinds, many ties in efficiency
    kind, count = item_kinds(w, p)
    _, inverse = np.unique(np.stack([w, p], axis=1), axis=0, return_inverse=True)
    assert kind.tolist() == inverse.reshape(-1).tolist() and count == int(inverse.max()) + 1
    for a, b in zip(item_tree(w, p), tree_in_order(w, p, efficiency_order(w, p))):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("seed", range(40))
def test_the_second_reduction_is_reused_only_where_it_is_the_same(seed):
    rng = random.Random(seed)
    w, p, room = _instance(rng, rng.randint(2, 80))
    p = np.floor(p)  # exact's profits are integral
    order = np.argsort(-p / w, kind="stable")
    first = reduce_knapsack(w, p, room, margin=1.0, order=order)
    for known in (first.incumbent_score - 1, first.incumbent_score, first.incumbent_score + 1,
                  first.incumbent_score + rng.randint(2, 30)):
        again = reduce_again(w, p, room, known, order, first)
        fresh = reduce_knapsack(w, p, room, margin=1.0, known=known, order=order)
        assert (again is first) == (known <= first.incumbent_score)
        for name in ("fixed_in", "free", "incumbent", "room", "incumbent_score", "upper_bound"):
            assert getattr(again, name) == getattr(fresh, name), (known, name)


def test_the_paired_bench_gives_a_slow_rows_first_call_penalty_to_neither_side(monkeypatch):
    from packbench.experiments.bench import hard_vs

    calls = []

    class Fake:  # a worker whose first call on an instance is slow, as a fresh process's is
        def __init__(self, tree):
            self.side, self.seen = str(tree), 0

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def solve(self, problem, limit):
            calls.append(self.side)
            self.seen += 1
            return {"cpu": 0.7 if self.seen == 1 else 0.5, "optimal": True, "score": 1.0, "solver": "x",
                    "tie_break": "lex"}

    monkeypatch.setattr(hard_vs, "BeforeWorker", Fake)
    monkeypatch.setattr(hard_vs, "this_tree", lambda: "now")
    prob = Problem((Item("a", "", 1.0, 1), Item("b", "", 1.0, 1)), 1)
    row = hard_vs.run_vs([("cls", 2, 0, prob)], "before")[0]
    assert calls == ["now", "before", "before", "now"]  # the second pair in the other order
    assert row["now"]["cpu"] == row["before"]["cpu"] == 0.5


@pytest.mark.parametrize("seed", range(30))
def test_the_sharpened_reduction_is_the_same_with_the_callers_order(seed):
    from packbench.algorithms.solvers.reduce import density_order
    from packbench.algorithms.solvers.stages import sharpen

    rng = random.Random(seed)
    w, p, room = _instance(rng, rng.randint(20, 120))
    p = np.floor(p)
    order = density_order(w, p)
    red = reduce_knapsack(w, p, room, margin=1.0, order=order)
    for work in (1, 5, 50):  # small budgets: often unproven, with a better set (the re-reduction)
        plain = sharpen(red.free_array, w, p, room, red, float("inf"), 2**30, work)
        given_order = sharpen(red.free_array, w, p, room, red, float("inf"), 2**30, work, order)
        assert plain[0] == given_order[0] and np.array_equal(plain[1], given_order[1]) and plain[2] == given_order[2]
