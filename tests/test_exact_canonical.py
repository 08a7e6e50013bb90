"""`exact` returns one canonical optimum (the lexicographically first), whichever solver proves it."""

from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.solvers import dp as dp_module
from packbench.algorithms.solvers.core.minknap import WORK_LIMIT, MinknapResult
from packbench.algorithms.solvers import stages as stages_module
from packbench.algorithms.strategies import exact as exact_module
from packbench.algorithms.strategies.exact import Exact
from packbench.algorithms.strategies.exact_dp import ExactDP
from tests.oracles import lex_first_optimum, problem_of as _problem, tied_cases


tied = tied_cases(11, 4, 3, 14)


def _no_core_search(monkeypatch):
    """The expanding-core search runs out of work at once: the later stages decide."""
    monkeypatch.setattr(exact_module, "minknap", lambda *args, **kwargs: MinknapResult(None, -1, WORK_LIMIT, 0))


def _paths(monkeypatch, path):
    """Force one of exact's solver paths."""
    if path == "minknap":  # no DP first however small: the search proves, the compiled lists break ties
        monkeypatch.setattr(exact_module, "_DP_DIRECT_SEC", -1.0)
    else:
        _no_core_search(monkeypatch)
    if path == "dp":  # branch and bound never proves: the DP decides
        monkeypatch.setattr(exact_module, "bnb_knapsack", lambda w, s, room, limit: ([], False, 0.0))
        monkeypatch.setattr(exact_module, "_DP_DIRECT_SEC", -1.0)
    elif path == "bnb":  # branch and bound proves, then the canonical step re-reduces and runs the DP
        monkeypatch.setattr(exact_module, "_DP_DIRECT_SEC", -1.0)
        monkeypatch.setattr(exact_module, "_MIN_SLICE", 30.0)  # time to prove even on a loaded machine
    elif path.startswith("bnb_lists") or path == "lists_first":  # the Pareto lists before the DP
        _paths(monkeypatch, "bnb")
        monkeypatch.setattr(exact_module, "_LEX_ITEM_SEC", 0.0)
        # "capped": the lists get a few bytes, both before the probe and in the tie-break, outgrow
        # them, and the DP takes over.
        monkeypatch.setattr(exact_module, "_LEX_BYTE_SEC", 1e12 if path.endswith("capped") else 1e-300)
        if path == "bnb_lists":  # lists only in the tie-break, after branch and bound proved
            monkeypatch.setattr(exact_module, "_LEX_FIRST_SHARE", 0.0)
    elif path == "sharpen":  # the search's best set after a few visits re-reduces before the direct DP
        monkeypatch.setattr(exact_module, "_SHARPEN_MIN_SEC", -1.0)
        monkeypatch.setattr(exact_module, "_SHARPEN_WORK", 3)
        monkeypatch.setattr(exact_module, "_SHARPEN_SHARE", 0.0)  # 3 visits, not a share of the estimate
    elif path == "race":  # no memory for the first DP: CP-SAT and branch and bound race
        real = exact_module.dp_cost
        calls = []

        def first_refused(w, room):
            calls.append(1)
            need, est = real(w, room)
            return (need if len(calls) > 1 else 2**60), est
        monkeypatch.setattr(exact_module, "dp_cost", first_refused)
        # The lists at the greedy profit outgrow their cap, so the solvers must prove first.
        monkeypatch.setattr(exact_module.Exact, "_lex_first", staticmethod(lambda *args: None))


@pytest.mark.parametrize("path", ["minknap", "direct", "dp", "bnb", "bnb_lists", "bnb_lists_capped", "lists_first",
                                  "race", "sharpen"])
@settings(max_examples=120, deadline=None)
@given(case=tied)
def test_every_solver_path_returns_the_lexicographically_first_optimum(path, case):
    tokens, scores, room = case
    with pytest.MonkeyPatch.context() as mp:
        _paths(mp, path)
        sel = Exact().select(_problem(tokens, scores, room))
    assert sel.optimal is True and sel.info["canonical"] is True and sel.info["tie_break"] == "lex"
    assert sel.indices == lex_first_optimum(tokens, scores, room)
    expected = {"minknap": {"minknap"}, "direct": {"exact_dp"}, "sharpen": {"exact_dp", "minknap"}, "dp": {"exact_dp"},
                "bnb": {"bnb"}, "bnb_lists": {"bnb"},
                "bnb_lists_capped": {"bnb"}, "lists_first": {"pareto_lex", "bnb"}, "race": {"bnb", "cpsat"}}[path]
    assert sel.info["solver"] in expected | {"reduction", "trivial"}  # lists_first: "bnb" on a subset-sum core


def test_lists_first_find_the_canonical_optimum_without_a_proof_first():
    # Two sizes (as in Jooken's class), a greedy set one below the optimum, many optimal sets.
    tokens, scores = [5, 5, 3, 3, 3, 5, 3], [6, 6, 4, 4, 4, 6, 4]
    with pytest.MonkeyPatch.context() as mp:
        _paths(mp, "lists_first")
        mp.setattr(exact_module, "bnb_knapsack", lambda *args: pytest.fail("branch and bound ran"))
        sel = Exact().select(_problem(tokens, scores, 11))
    assert sel.info["solver"] == "pareto_lex" and sel.optimal is True
    assert sel.indices == lex_first_optimum(tokens, scores, 11)


@settings(max_examples=150, deadline=None)
@given(case=tied)
def test_exact_dp_returns_the_same_canonical_set(case):
    tokens, scores, room = case
    prob = _problem(tokens, scores, room)
    assert ExactDP().select(prob).indices == lex_first_optimum(tokens, scores, room)


def test_one_hundred_identical_exact_calls_give_one_set():
    # Subset sum with many equal items: a huge number of optimal sets.
    items = [Item(f"c{k}", f"chunk {k}", float(w), w) for k, w in enumerate([3, 5, 7, 11, 13] * 60)]
    sets = {tuple(pack(items, 1001, None, strategy="exact").ids) for _ in range(100)}
    assert len(sets) == 1


def test_dp_deadline_stops_between_items():
    with pytest.raises(TimeoutError):
        dp_module.dp_knapsack([3, 4, 5], [1.0, 2.0, 3.0], 8, deadline=0.0)


@pytest.mark.parametrize("path", ["minknap", "direct", "bnb"])
@settings(max_examples=100, deadline=None)
@given(case=st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 9), min_size=n, max_size=n), st.integers(1, 30))))
def test_subset_sum_instances_take_the_bitset_dp_to_the_same_canonical_set(path, case):
    tokens, room = case
    scores = [2 * w for w in tokens]  # every density equal
    with pytest.MonkeyPatch.context() as mp:
        _paths(mp, path)
        sel = Exact().select(_problem(tokens, scores, room))
    assert sel.optimal is True and sel.indices == lex_first_optimum(tokens, scores, room)
    assert dp_module.subset_sum_lex(tokens, room)[0] == list(lex_first_optimum(tokens, tokens, room))


@pytest.mark.parametrize("path", ["bnb_lists", "lists_first"])
@settings(max_examples=60, deadline=None)
@given(case=tied)
def test_subset_sum_tie_break_takes_the_bitset_dp_not_the_pareto_lists(path, case):
    tokens, _, room = case
    scores = [float(w) for w in tokens]  # proportional: every set on the Pareto front, the bitset DP is cheap

    def no_lists(*args, **kwargs):
        raise AssertionError("pareto_lex run on a subset-sum core that the DP fits")

    with pytest.MonkeyPatch.context() as mp:
        _paths(mp, path)  # lists whenever the cost model allows them
        for module in (exact_module, stages_module):  # the greedy-profit pass and the tie-break
            mp.setattr(module, "pareto_lex", no_lists)
        sel = Exact().select(_problem(tokens, scores, room))
    assert sel.optimal is True and sel.info["tie_break"] == "lex"
    assert sel.indices == lex_first_optimum(tokens, scores, room)


def test_one_hundred_identical_exact_calls_on_a_hard_instance_give_one_set():
    # A spanner instance (two efficiencies, many optimal sets: the run bound proves it at once) and a
    # circle one (hundreds of thousands of state visits, past the tie-break's cap: the search's own set).
    from packbench.experiments.bench.hard import hard_cases

    for cls in ("spanner_strongly", "circle"):
        (_, _, _, prob), = hard_cases([1000], 1, only=(cls,))
        first = Exact(time_limit=60).select(prob)
        assert first.optimal is True and first.info["solver"] == "minknap" and first.info["canonical"] is True
        sets = {Exact(time_limit=60).select(prob).indices for _ in range(100)}
        assert sets == {first.indices}


@pytest.mark.parametrize("path", ["direct", "sharpen", "minknap"])
def test_every_hard_class_shape_gets_the_lexicographically_first_optimum(path):
    from packbench.experiments.bench.hard import hard_cases

    # Small instances of each hard family's shape (Pisinger's hard classes, Jooken's), brute-forced.
    for label, _, _, prob in hard_cases([13], 2, R=60):
        tokens = [c.tokens for c in prob.candidates]
        scores = [c.score for c in prob.candidates]
        with pytest.MonkeyPatch.context() as mp:
            _paths(mp, path)
            sel = Exact().select(prob)
        assert sel.optimal is True and sel.info["tie_break"] == "lex", label
        assert sel.indices == lex_first_optimum(tokens, scores, prob.room), label
