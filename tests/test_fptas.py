"""fptas: the (1 - eps) guarantee against brute force, the bound it reports, and the adversarial families."""

import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.bounds import dantzig_bound
from packbench.algorithms.items import Problem
from packbench.algorithms.strategies.fptas import FPTAS, fptas_plan
from tests.oracles import brute_force_best

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _items(pairs):
    return [Item(f"i{k}", f"text {k}", s, t) for k, (s, t) in enumerate(pairs)]


@st.composite
def knapsacks(draw, max_n=12):
    n = draw(st.integers(0, max_n))
    pairs = [(draw(st.floats(0, 100, allow_nan=False)), draw(st.integers(1, 40))) for _ in range(n)]
    return _items(pairs), draw(st.integers(0, 120))


@SETTINGS
@given(case=knapsacks(), eps=st.floats(0.01, 0.99))
def test_score_is_within_one_minus_eps_of_the_optimum(case, eps):
    items, room = case
    sel = FPTAS(eps=eps).select(Problem(tuple(items), room))
    assert len(set(sel.indices)) == len(sel.indices)
    assert sum(items[k].tokens for k in sel.indices) <= room
    score = sum(items[k].score for k in sel.indices)
    best = brute_force_best([i.score for i in items], [i.tokens for i in items], room)
    assert score >= (1 - eps) * best - 1e-9
    # The reported bound is certified and never looser than Dantzig's.
    assert sel.upper_bound >= best - 1e-9
    assert sel.upper_bound <= max(dantzig_bound(items, room), score) + 1e-9
    if sel.optimal:
        assert score >= best - 1e-9


@SETTINGS
@given(case=knapsacks(), eps=st.floats(0.01, 0.99))
def test_rounding_loses_at_most_eps_times_the_optimum(case, eps):
    """The proof's two facts: n * K <= eps * OPT, and the DP's profit cap admits every feasible set."""
    items, room = case
    keep = [i for i in items if i.score > 0 and i.tokens <= room]
    if not keep:
        return
    scores = [i.score for i in keep]
    best = brute_force_best(scores, [i.tokens for i in keep], room)
    lower = max(max(scores), best / 2)
    scale, profits, cap = fptas_plan(scores, lower, dantzig_bound(keep, room), eps)
    if scale < sys.float_info.min:
        # K itself is below the float range (subnormal scores): the plan works in units of the
        # largest score and the strategy keeps Dantzig's bound (test_subnormal_scores_keep_the_guarantee).
        return
    assert len(keep) * scale <= eps * best * (1 + 1e-12)
    assert all(p - 1e-9 <= s / scale < p + 1 + 1e-9 for p, s in zip(profits, scores))
    n = len(keep)
    for mask in range(2 ** n):
        picked = [k for k in range(n) if mask >> k & 1]
        if sum(keep[k].tokens for k in picked) <= room:
            assert sum(profits[k] for k in picked) <= cap


@SETTINGS
@given(case=knapsacks(max_n=10))
def test_integral_scores_small_eps_is_exact(case):
    # eps * OPT < 1 means losing even one unit of integral score would break the guarantee.
    items, room = case
    items = [Item(i.id, i.text, float(round(i.score)), i.tokens) for i in items]
    best = brute_force_best([i.score for i in items], [i.tokens for i in items], room)
    eps = 0.99 / (best + 1)
    sel = FPTAS(eps=eps).select(Problem(tuple(items), room))
    assert sum(items[k].score for k in sel.indices) == best


@pytest.mark.parametrize("w", [3, 4, 10, 57, 1000])
def test_greedy_adversarial_family(w):
    """Budget W, items (2, 1) and (W, W): greedy scores 2 of W; the others keep their bounds."""
    items = _items([(2.0, 1), (float(w), w)])
    greedy = pack(items, w, near_dup=None, strategy="greedy")
    assert Fraction(greedy.score) / w == Fraction(2, w)
    assert greedy.upper_bound >= w
    best_single = pack(items, w, near_dup=None, strategy="greedy_best_single")
    assert best_single.score == w  # >= W / 2 as promised, and in fact optimal
    for eps in (0.5, 0.1, 0.01):
        fp = pack(items, w, near_dup=None, strategy="fptas", eps=eps)
        assert fp.score >= (1 - eps) * w


@pytest.mark.parametrize("m", [2, 3, 5, 20, 333])
def test_tight_family_for_greedy_plus_best_single(m):
    """Budget 2M, items (2, 1), (M, M), (M, M): the seed's variant scores M + 2 of 2M.

    Best single first gives (M, M) then (2, 1): also M + 2, not strictly better,
    so greedy's answer is kept. The ratio (M + 2) / (2M) tends to 1/2.
    """
    items = _items([(2.0, 1), (float(m), m), (float(m), m)])
    budget = 2 * m
    gbs = pack(items, budget, near_dup=None, strategy="greedy_best_single")
    assert Fraction(gbs.score) / (2 * m) == Fraction(m + 2, 2 * m)
    assert sorted(gbs.ids) == ["i0", "i1"]
    for eps in (0.5, 0.1):
        fp = pack(items, budget, near_dup=None, strategy="fptas", eps=eps)
        assert fp.score >= (1 - eps) * 2 * m
    assert pack(items, budget, near_dup=None, strategy="fptas", eps=0.1).score == 2 * m


def test_pinned_score_is_added_to_the_bound():
    items = _items([(5.0, 3), (4.0, 3), (3.0, 2)]) + [Item("p", "pinned", 7.0, 2, pinned=True)]
    p = pack(items, 7, near_dup=None, strategy="fptas")
    assert p.ids[0] == "p"
    assert p.upper_bound >= 7.0 + 8.0 - 1e-9
    assert p.score <= p.upper_bound


def test_nothing_fits():
    sel = FPTAS().select(Problem(tuple(_items([(3.0, 10)])), 5))
    assert sel.indices == () and sel.upper_bound == 0.0 and sel.optimal is True
    assert FPTAS().select(Problem((), 5)).indices == ()


def test_deterministic():
    items = _items([(float(k % 7) + 0.5, 1 + (k * 13) % 17) for k in range(40)])
    runs = {pack(items, 60, near_dup=None, strategy="fptas", eps=0.2).ids.__repr__() for _ in range(3)}
    assert len(runs) == 1


@pytest.mark.parametrize("eps", [0, 1, -0.5, 1.5])
def test_eps_out_of_range(eps):
    with pytest.raises(ValueError, match="eps"):
        FPTAS(eps=eps)


def test_eps_wrong_type():
    with pytest.raises(TypeError, match="eps"):
        FPTAS(eps="small")


def test_memory_cap_gives_clear_error():
    items = tuple(_items([(float(1 + k % 9), 1 + k % 11) for k in range(300)]))
    with pytest.raises(ValueError, match="max_memory_mb"):
        FPTAS(eps=0.01, max_memory_mb=0.01).select(Problem(items, 500))


def test_memory_refusal_message_stays_readable_for_tiny_eps():
    # The MiB figure was printed with 300 digits for eps = 1e-300.
    items = [Item("a", "x", 3.0, 2), Item("b", "y", 2.0, 2), Item("c", "z", 1.0, 1)]
    with pytest.raises(ValueError, match=r"needs \d\.\d+e\+\d+ MiB for 3 items at eps=1e-300") as info:
        pack(items, 4, None, strategy="fptas", eps=1e-300)
    assert len(str(info.value)) < 250


# Known limit: at multiples of the smallest subnormal (5e-324) the arithmetic keeps no relative
# precision and fptas can return 0.75 of the optimum at eps=0.1 (reported in the closing note of issue 14).
@pytest.mark.parametrize("unit", [1e-320, 2.2e-313, 1e-300])
def test_subnormal_scores_keep_the_guarantee(unit):
    # K = eps * L / n is below the float range here; the choice and the bound must still hold.
    items = [Item("a", "one", 3 * unit, 2), Item("b", "two", 2 * unit, 1), Item("c", "three", 2 * unit, 1),
             Item("d", "four", unit, 1)]
    res = pack(items, 2, None, strategy="fptas", eps=0.1)
    assert res.ids == ["b", "c"] and res.score == 4 * unit  # 3 * unit alone is below 0.9 of the optimum
    assert res.upper_bound >= res.score
