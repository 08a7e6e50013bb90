"""The Pareto-list solvers and `exact`'s path through them (capacities too large for the capacity DP)."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, Problem
from packbench.algorithms.solvers.pareto import pareto_knapsack, pareto_lex
from packbench.algorithms.solvers.core.minknap import WORK_LIMIT, MinknapResult
from packbench.algorithms.solvers import stages as stages_module
from packbench.algorithms.strategies import exact as exact_module
from packbench.algorithms.strategies.exact import Exact
from tests.oracles import lex_first as _lex_first



# Few distinct sizes and profits: many optimal sets, many equal states in the lists.
small = st.integers(1, 11).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 9), min_size=n, max_size=n),
    st.lists(st.integers(1, 5), min_size=n, max_size=n),
    st.integers(0, 40)))


def _fitting(case):
    tokens, profits, room = case
    room = max(room, max(tokens))
    return tokens, profits, room


@settings(max_examples=300, deadline=None)
@given(case=small, greedy_start=st.booleans())
def test_pareto_knapsack_proves_the_brute_force_optimum(case, greedy_start):
    tokens, profits, room = _fitting(case)
    incumbent = []
    if greedy_start:  # any feasible start must be beaten or kept
        for k, w in enumerate(tokens):
            if sum(tokens[j] for j in incumbent) + w <= room:
                incumbent.append(k)
    chosen, proven = pareto_knapsack(tokens, profits, room, incumbent=incumbent)
    assert proven is True
    assert chosen == sorted(set(chosen))
    assert sum(tokens[k] for k in chosen) <= room
    assert sum(profits[k] for k in chosen) == _lex_first(tokens, profits, room)[0]


@settings(max_examples=300, deadline=None)
@given(case=small, below=st.integers(0, 40))
def test_pareto_lex_returns_the_lexicographically_first_optimum(case, below):
    tokens, profits, room = _fitting(case)
    value, lex = _lex_first(tokens, profits, room)
    assert pareto_lex(tokens, profits, room, value) == lex
    # A target below the optimum (a greedy set's profit) keeps longer lists and gives the same set.
    assert pareto_lex(tokens, profits, room, max(0, value - below)) == lex


def test_pareto_lex_rejects_an_unreachable_target():
    with pytest.raises(ValueError, match="target"):
        pareto_lex([3, 4], [1, 1], 5, 2)


def test_pareto_stops_at_the_memory_cap_and_the_deadline_with_a_feasible_set():
    tokens = [7 * k % 23 + 5 for k in range(40)]
    profits = [w + 3 for w in tokens]
    chosen, proven = pareto_knapsack(tokens, profits, 200, incumbent=[0, 1], max_bytes=1)
    assert proven is False and sum(tokens[k] for k in chosen) <= 200
    assert sum(profits[k] for k in chosen) >= profits[0] + profits[1]
    chosen, proven = pareto_knapsack(tokens, profits, 200, deadline=time.perf_counter() - 1)
    assert proven is False and 0 < sum(tokens[k] for k in chosen) <= 200  # the density-greedy start
    assert pareto_lex(tokens, profits, 200, 1, max_bytes=1) is None
    with pytest.raises(TimeoutError):
        pareto_lex(tokens, profits, 200, 1, deadline=time.perf_counter() - 1)


# Tokens of 10^8 and more: the capacity DP would need gigabytes, so `exact` refuses it.
huge = st.integers(2, 11).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(st.integers(1, 4), st.integers(0, 3)), min_size=n, max_size=n),
    st.lists(st.integers(1, 4), min_size=n, max_size=n),
    st.integers(1, 9), st.integers(0, 5)))


def _huge_problem(case):
    """(tokens, profits, room, problem) of a `huge` case: sizes of 10^8 and more, so the DP never fits."""
    sizes, profits, big, extra = case
    tokens = [a * 10**8 + b for a, b in sizes]
    room = max(max(tokens), big * 10**8 + extra)
    prob = Problem(tuple(Item(f"i{k}", "", float(p), w) for k, (w, p) in enumerate(zip(tokens, profits))), room)
    return tokens, profits, room, prob


def _no_core_search(mp):
    """The expanding-core search runs out of work at once: the stages behind it decide."""
    mp.setattr(exact_module, "minknap", lambda *args, **kwargs: MinknapResult(None, -1, WORK_LIMIT, 0))


def _never_proves(w, s, room, limit):
    """A branch and bound that finds nothing and proves nothing: another solver must decide."""
    return [], False, 0.0


@pytest.mark.parametrize("path", ["pareto_lex", "pareto", "bnb"])
@settings(max_examples=100, deadline=None)
@given(case=huge)
def test_exact_without_room_for_the_dp_proves_the_optimum_on_every_path(path, case):
    tokens, profits, room, prob = _huge_problem(case)
    keep = [k for k, w in enumerate(tokens) if w <= room]
    with pytest.MonkeyPatch.context() as mp:
        _no_core_search(mp)
        if path != "pareto_lex":  # the lists at the greedy profit outgrow their cap: a solver proves first
            mp.setattr(exact_module.Exact, "_lex_first", staticmethod(lambda *args: None))
        if path == "pareto":  # branch and bound never proves: the Pareto DP does
            mp.setattr(exact_module, "bnb_knapsack", _never_proves)
        if path == "bnb":  # its wall-clock slice (0.05 s) must not decide the path on a busy machine
            mp.setattr(exact_module, "_RACE_SLICE", 30.0)
        sel = Exact(max_memory_mb=64).select(prob)
    value, lex = _lex_first([tokens[k] for k in keep], [profits[k] for k in keep], room)
    assert sel.optimal is True and sel.info["canonical"] is True
    assert sum(profits[k] for k in sel.indices) == value
    assert sel.info["solver"] in {path, "reduction", "trivial"}
    if path == "pareto_lex":
        assert sel.indices == tuple(keep[q] for q in lex) and sel.info["tie_break"] == "lex"


@pytest.mark.parametrize("path", ["pareto_lex", "pareto"])
def test_exact_proves_a_jooken_instance_with_capacity_1e9(path):
    from packbench.experiments.families import FAMILIES
    from packbench.algorithms.strategies.cpsat import cpsat_knapsack

    inst = next(FAMILIES["jooken"](n=60, c=10**9, g=4).instances(0))
    cands = tuple(i for i in inst.items if not i.pinned)
    prob = Problem(cands, inst.meta["budget"])
    with pytest.MonkeyPatch.context() as mp:  # a Pareto-list DP proves, not the branch-and-bound slice
        _no_core_search(mp)
        mp.setattr(exact_module, "bnb_knapsack", _never_proves)
        if path == "pareto":
            mp.setattr(exact_module.Exact, "_lex_first", staticmethod(lambda *args: None))
        sel = Exact(time_limit=60).select(prob)
    found, proven, _, _ = cpsat_knapsack([c.tokens for c in cands], [int(c.score) for c in cands],
                                         prob.room, 60.0)
    assert proven and sel.optimal and sel.info["solver"] in (path, "reduction")
    assert sum(cands[k].score for k in sel.indices) == sum(cands[k].score for k in found)
    assert sum(cands[k].tokens for k in sel.indices) <= prob.room


def _lex_last_bnb(w, s, room, limit):
    """A branch and bound that proves at once, returning the optimum taking the *latest* items."""
    best = None
    for bits in itertools.product((0, 1), repeat=len(w)):
        if sum(x for x, b in zip(w, bits) if b) <= room:
            value = sum(p for p, b in zip(s, bits) if b)
            if best is None or value > best[0]:
                best = (value, bits)
    return [k for k, b in enumerate(best[1]) if b], True, float(best[0])


@pytest.mark.parametrize("no_lex", ["cap_zero", "lists_overflow"])
@settings(max_examples=100, deadline=None)
@given(case=huge)
def test_without_memory_for_the_lexicographic_tie_break_every_path_gives_one_set(no_lex, case):
    tokens, profits, room, prob = _huge_problem(case)
    value = _lex_first([w for w in tokens if w <= room], [p for w, p in zip(tokens, profits) if w <= room], room)[0]
    runs = []
    for bnb in (_never_proves, _lex_last_bnb):
        with pytest.MonkeyPatch.context() as mp:
            _no_core_search(mp)
            if no_lex == "cap_zero":  # pareto_lex is never tried
                mp.setattr(exact_module, "_LEX_MAX_BYTES", 0)
            else:  # tried before the proof at the greedy profit, outgrows its cap, not tried again
                for module in (exact_module, stages_module):  # the greedy-profit pass and the tie-break
                    mp.setattr(module, "pareto_lex", lambda *args, **kwargs: None)
            mp.setattr(exact_module, "bnb_knapsack", bnb)
            runs.append(Exact(max_memory_mb=64).select(prob))
    pareto_run, bnb_run = runs
    assert pareto_run.indices == bnb_run.indices  # whichever solver proves the optimum
    for sel in runs:
        assert sel.optimal is True and sel.info["canonical"] is True
        assert sum(profits[k] for k in sel.indices) == value
        unique = sel.info["solver"] in ("reduction", "trivial")
        assert sel.info["tie_break"] == ("lex" if unique else "pareto")
