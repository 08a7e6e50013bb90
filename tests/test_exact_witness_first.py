"""Before a small DP breaks the tie among optima, the witness pass: the same lexicographic optimum, or the DP."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.solvers import stages as stages_module
from packbench.algorithms.solvers.stages import witness_lex
from packbench.algorithms.strategies import exact as exact_module
from packbench.algorithms.strategies.exact import Exact
from tests.oracles import lex_first_optimum, problem_of as _problem, tied_cases


tied = tied_cases(12, 5, 4, 16)


def _probe_proves(mp):
    """The probe before the direct DP runs on every core, with work enough to prove; then the witness pass."""
    mp.setattr(exact_module, "_SHARPEN_MIN_SEC", -1.0)
    mp.setattr(exact_module, "_SHARPEN_WORK", 10**6)
    mp.setattr(exact_module, "_WITNESS_MIN_SEC", -1.0)  # the pass before any DP, however small


@settings(max_examples=200, deadline=None)
@given(case=tied)
def test_the_witness_pass_alone_gives_the_lexicographic_optimum(case):
    tokens, scores, room = case
    with pytest.MonkeyPatch.context() as mp:
        _probe_proves(mp)
        mp.setattr(exact_module, "_WITNESS_SHARE", 1e6)  # never out of work on these sizes
        # Any DP run would fail the test: the answer must come from the probe's proof and the witness pass.
        mp.setattr(stages_module, "canonical_dp", lambda *a, **k: pytest.fail("the DP ran"))
        sel = Exact().select(_problem(tokens, scores, room))
    assert sel.optimal is True and sel.info["canonical"] is True and sel.info["tie_break"] == "lex"
    assert sel.info["solver"] in {"minknap", "reduction", "trivial"}
    assert sel.indices == lex_first_optimum(tokens, scores, room)


@pytest.mark.parametrize("skipped", [False, True])
@settings(max_examples=150, deadline=None)
@given(case=tied)
def test_where_the_witness_pass_gives_up_or_is_skipped_the_dp_gives_the_lexicographic_optimum(skipped, case):
    tokens, scores, room = case
    gave_up = []

    def give_up(*args, **kwargs):
        gave_up.append(1)
        return None

    with pytest.MonkeyPatch.context() as mp:
        _probe_proves(mp)
        mp.setattr(stages_module, "lex_by_witness", give_up)
        if skipped:  # a DP estimated below the threshold goes first, without the pass
            mp.setattr(exact_module, "_WITNESS_MIN_SEC", 1e9)
        sel = Exact().select(_problem(tokens, scores, room))
    assert sel.optimal is True and sel.info["canonical"] is True and sel.info["tie_break"] == "lex"
    assert sel.indices == lex_first_optimum(tokens, scores, room)
    if skipped:
        assert not gave_up
    elif sel.info["solver"] == "minknap":  # the probe proved: the pass was tried, then the DP
        assert gave_up


@settings(max_examples=200, deadline=None)
@given(case=tied, work=st.integers(0, 40))
def test_a_small_work_budget_either_gives_the_optimum_or_none(case, work):
    # The pass directly, from the brute-force optimum nearest the end as its witness.
    tokens, scores, room = case
    w, p = np.array(tokens, dtype=np.int64), np.array(scores, dtype=np.float64)
    target = sum(scores[k] for k in lex_first_optimum(tokens, scores, room))
    optima = [tuple(k for k, b in enumerate(bits) if b) for bits in itertools.product((0, 1), repeat=len(tokens))
              if sum(tokens[k] for k, b in enumerate(bits) if b) <= room
              and sum(scores[k] for k, b in enumerate(bits) if b) == target]
    witness = list(optima[0])  # the lexicographically last optimum: the pass must move off it
    core = list(range(len(tokens)))
    found = witness_lex(core, [], witness, w, p, room, float("inf"), work)
    assert found is None or tuple(found) == lex_first_optimum(tokens, scores, room)


def test_the_witness_pass_skips_the_dp_on_a_hard_instance():
    # multiple_strongly_correlated at n = 1,000: the search proves, the canonical core's DP is small,
    # and the witness pass finds the canonical set within its budget; the DP's set is the same.
    from packbench.experiments.bench.hard import hard_cases

    (_, _, _, prob), = hard_cases([1000], 1, only=("multiple_strongly",))
    calls = []
    real = stages_module.canonical_dp
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stages_module, "canonical_dp", lambda *a, **k: calls.append(1) or real(*a, **k))
        sel = Exact(time_limit=60).select(prob)
    assert sel.optimal is True and sel.info["tie_break"] == "lex" and not calls
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stages_module, "lex_by_witness", lambda *a, **k: None)
        by_dp = Exact(time_limit=60).select(prob)
    assert by_dp.indices == sel.indices


@pytest.mark.parametrize("share", [0.0, 1e6])
@settings(max_examples=100, deadline=None)
@given(case=tied)
def test_the_probe_before_a_small_dp_gets_a_share_of_its_estimate_in_visits(share, case):
    # One visit alone (share 0) rarely proves; a share of the DP's estimate, counted in visits, does:
    # then the witness pass and no DP. Either way the brute-force lexicographic optimum.
    tokens, scores, room = case
    budgets, real = [], stages_module.sharpen

    def spy(core, tokens_, profits, room_, red, deadline, cap, work, *rest):
        budgets.append((work, exact_module.dp_cost(tokens_[core], red.room)[1]))
        return real(core, tokens_, profits, room_, red, deadline, cap, work, *rest)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exact_module, "_SHARPEN_MIN_SEC", -1.0)
        mp.setattr(exact_module, "_SHARPEN_WORK", 1)
        mp.setattr(exact_module, "_SHARPEN_SHARE", share)
        mp.setattr(exact_module.Exact, "_sharpen", staticmethod(spy))
        if share:
            mp.setattr(exact_module, "_WITNESS_MIN_SEC", -1.0)
            mp.setattr(exact_module, "_WITNESS_SHARE", 1e6)
            mp.setattr(stages_module, "canonical_dp", lambda *a, **k: pytest.fail("the DP ran"))
        sel = Exact().select(_problem(tokens, scores, room))
    assert sel.optimal is True and sel.info["canonical"] is True and sel.info["tie_break"] == "lex"
    assert sel.indices == lex_first_optimum(tokens, scores, room)
    for work, est in budgets:
        assert work == max(1, int(share * est / exact_module._VISIT_SEC))
    if share and budgets:
        assert sel.info["solver"] == "minknap"
