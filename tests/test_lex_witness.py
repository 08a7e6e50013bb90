"""The witness pass of the tie-break (`minknap.lex_by_witness`, `lex_first_from`): the same set as `lex_first`.

Both apply one rule (take item k whenever a set keeping the decisions so far, with k, reaches the
target); the witness answers it by swaps, bounds and small searches instead of stored lists, so on
every instance it must give exactly `lex_first`'s set, and the brute force's lexicographic optimum.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packbench.algorithms.solvers.core.lex import lex_first
from packbench.algorithms.solvers.core.minknap import lex_by_witness, lex_first_from, minknap

from tests.oracles import lex_first_optimum as _lex_first_optimum

# Few kinds of (weight, profit), repeated, plus free items: many optimal sets and many swaps.
kinds_case = st.tuples(
    st.lists(st.tuples(st.integers(1, 9), st.integers(1, 9)), min_size=1, max_size=4),
    st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(1, 30), st.integers(1, 30)),
             min_size=1, max_size=13),
    st.floats(0.0, 1.0))


def _instance(case):
    kinds, picks, frac = case
    items = [kinds[q % len(kinds)] if same else (x, y) for same, q, x, y in picks]
    w = np.array([x for x, _ in items], np.int64)
    p = np.array([y for _, y in items], np.int64)
    c = int(w.max()) + int(frac * (int(w.sum()) - int(w.max())))
    return w, p, c


@settings(max_examples=400, deadline=None)
@given(case=kinds_case)
def test_the_witness_pass_gives_the_lexicographically_first_optimum(case):
    w, p, c = _instance(case)
    res = minknap(w, p, c)
    mask = np.zeros(len(w), dtype=bool)
    mask[res.chosen] = True
    expected = list(_lex_first_optimum(w.tolist(), p.tolist(), c))
    assert lex_by_witness(w, p, c, res.value, mask, 10**6) == expected
    assert lex_first_from(w, p, c, res.value, 10**6, res.chosen) == expected


def test_without_budget_it_gives_up_and_lex_first_from_falls_back_to_the_lists():
    rng = np.random.default_rng(3)
    w = rng.integers(1, 60, 40)
    p = rng.integers(1, 60, 40)
    c = int(w.sum()) // 2
    res = minknap(w, p, c)
    mask = np.zeros(len(w), dtype=bool)
    mask[res.chosen] = True
    assert lex_by_witness(w, p, c, res.value, mask, 0) is None  # it needs a search here, and may not run one
    assert lex_first_from(w, p, c, res.value, 4, res.chosen) == lex_first(w, p, c, res.value, 10**6)


@pytest.mark.parametrize("seed", range(3))
def test_on_many_equal_items_it_matches_lists_that_need_far_more_states(seed):
    # Multiples of two base items (the spanner classes' shape): the lists need many states,
    # the witness finds the same set by same-kind swaps.
    rng = np.random.default_rng(seed)
    base_w, base_p = rng.integers(5, 40, 2), rng.integers(5, 40, 2)
    pick, mult = rng.integers(0, 2, 400), rng.integers(1, 8, 400)
    w, p = base_w[pick] * mult, base_p[pick] * mult
    c = int(w.sum()) // 3
    res = minknap(w, p, c)
    lists = lex_first(w, p, c, res.value, 10**7)
    assert lists is not None
    assert lex_first_from(w, p, c, res.value, 10**7, res.chosen) == lists


def test_a_search_as_hard_as_the_proof_ends_the_tie_break_without_the_lists():
    # Strongly correlated with offsets 1000 and 1001: a question the witness cannot answer needs a
    # search about as long as the proof. Past half the budget in one search the pass gives up, and
    # lex_first_from answers None (the caller keeps the search's own set) without running the lists.
    from packbench.algorithms.solvers.core.minknap import _witness_pass

    rng = np.random.default_rng(1)
    w = rng.integers(1, 10**4, 3000)
    p = w + 1000 + (w % 7 == 0)
    c = int(w.sum()) // 2
    res = minknap(w, p, c)
    assert res.proven and res.work > 40_000
    mask = np.zeros(len(w), dtype=bool)
    mask[res.chosen] = True
    found, hopeless = _witness_pass(w, p, c, res.value, mask, 10_000)
    assert found is None and hopeless
    assert lex_first_from(w, p, c, res.value, 40_000, res.chosen) is None


@pytest.mark.parametrize("seed", [6, 18, 19, 20])
def test_questions_a_greedy_set_or_one_swap_answers_need_no_search(seed):
    # Profit ceilings (p = 3 ceil(w / 3)): where no same-kind swap keeps the witness, the greedy rest
    # or the break solution with one swap after k is a new one, so with no budget for a search
    # the pass still ends, on the lists' set (before, every such question cost a search: None here).
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 100, 40)
    p = 3 * -(-w // 3)
    c = int(w.sum()) // 2
    res = minknap(w, p, c)
    mask = np.zeros(len(w), dtype=bool)
    mask[res.chosen] = True
    assert lex_by_witness(w, p, c, res.value, mask, 0) == lex_first(w, p, c, res.value, 10**6)


@pytest.mark.parametrize("label", ["jooken(c=1e9,g=2)", "jooken(c=1e6,g=2)"])
def test_questions_the_searchs_root_bound_refutes_need_no_search(label):
    # Jooken's class: nearly every question is one the search would end at its root (its Dantzig bound on
    # the items that fit, rounded by their gcd); with no budget for a search the pass still ends, on the
    # lists' set (before, each such question cost a search: None here).
    from packbench.experiments.bench.hard import hard_cases

    prob = next(case[3] for case in hard_cases([60], 1, only=[label]) if case[0] == label)
    w = np.array([c.tokens for c in prob.candidates], np.int64)
    p = np.array([int(c.score) for c in prob.candidates], np.int64)
    fits = w <= prob.room
    w, p = w[fits], p[fits]
    res = minknap(w, p, prob.room)
    mask = np.zeros(len(w), dtype=bool)
    mask[res.chosen] = True
    assert lex_by_witness(w, p, prob.room, res.value, mask, 0) == lex_first(w, p, prob.room, res.value, 10**7)


@settings(max_examples=400, deadline=None)
@given(items=st.lists(st.tuples(st.integers(1, 40), st.integers(1, 12)), min_size=1, max_size=11),
       mult=st.integers(1, 4), k=st.integers(-1, 10), left=st.integers(0, 120), delta=st.integers(-3, 3))
def test_the_root_refutation_never_refutes_a_reachable_target(items, mult, k, left, delta):
    # A refutation is a proof that no set of the items after k fitting in `left` reaches `need`: the brute
    # force must agree; profits share factors (mult) so that the gcd and shifted roundings act.
    from itertools import combinations

    from packbench.algorithms.solvers.core.minknap import efficiency_order
    from packbench.algorithms.solvers.core.witness import _root_refutes

    w = np.array([x for x, _ in items], np.int64)
    p = np.array([mult * (x + y) for x, y in items], np.int64)  # p = mult w + mult y: the affine shift helps
    after = [j for j in range(len(w)) if j > k and w[j] <= left]
    best = max((int(p[list(s)].sum()) for r in range(len(after) + 1) for s in combinations(after, r)
                if int(w[list(s)].sum()) <= left), default=0)
    need = best + delta  # near the optimum, where a bound off by one would show
    if _root_refutes(w, p, efficiency_order(w, p), k, left, need):
        assert best < need
    if best < need and not after:
        assert need <= 0 or _root_refutes(w, p, efficiency_order(w, p), k, left, need)
