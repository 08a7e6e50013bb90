"""Certified upper bounds: the Dantzig bound and the upper_bound every heuristic reports."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.bounds import dantzig_bound
from tests.oracles import brute_force_best

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HEURISTICS = ["greedy", "greedy_best_single", "prefix", "fptas", "mmr", "submodular"]


@st.composite
def knapsacks(draw, max_n=12, fit_alone=False):
    n = draw(st.integers(0, max_n))
    room = draw(st.integers(1, 100))
    top = room if fit_alone else 150
    items = [Item(f"i{k}", f"text number {k}", draw(st.floats(0, 50, allow_nan=False)),
                  draw(st.integers(1, top))) for k in range(n)]
    return items, room


@SETTINGS
@given(case=knapsacks(fit_alone=True))
def test_dantzig_bound_is_within_twice_the_optimum_when_every_item_fits_alone(case):
    """optimum <= bound: the LP relaxation contains every 0/1 packing. bound <= 2 * optimum:
    the bound is (whole items taken) + (a fraction of the split item), and both the whole
    items and the split item alone are feasible packings, each scoring <= optimum."""
    items, room = case
    best = brute_force_best([i.score for i in items], [i.tokens for i in items], room)
    bound = dantzig_bound(items, room)
    assert best - 1e-9 <= bound <= 2 * best + 1e-9


@SETTINGS
@given(case=knapsacks())
def test_dantzig_bound_is_an_upper_bound_even_with_oversized_items(case):
    items, room = case
    best = brute_force_best([i.score for i in items], [i.tokens for i in items], room)
    assert dantzig_bound(items, room) >= best - 1e-9


def test_dantzig_bound_factor_two_is_approached():
    # Items (1 + d, 1) and (W, W) with room W: the LP takes the small one whole and
    # (W - 1) / W of the big one, close to 2 * optimum when d is small and W large.
    w = 1000
    items = [Item("a", "a", 1.0 + 1e-3 * 2, 1), Item("b", "b", float(w), w)]
    bound = dantzig_bound(items, w)
    assert bound > 0.0 and 1.0 < bound / w <= 2.0
    items = [Item("a", "a", 2.0, 1), Item("b", "b", 1.0 * w, w)]
    assert dantzig_bound(items, w) == 2.0 + (w - 1)


@SETTINGS
@given(case=knapsacks(max_n=9), strategy=st.sampled_from(HEURISTICS),
       pinned_score=st.sampled_from([0.0, 3.5]))
def test_every_heuristic_reports_a_certified_ratio(case, strategy, pinned_score):
    items, room = case
    best = brute_force_best([i.score for i in items], [i.tokens for i in items], room)
    pinned = Item("p", "the pinned question", pinned_score, 2, pinned=True)
    p = pack([pinned] + items, room + 2, near_dup=None, strategy=strategy)
    assert p.upper_bound is not None
    assert p.upper_bound >= pinned_score + best - 1e-9
    assert p.score <= p.upper_bound + 1e-9
    if p.optimal:
        assert p.score >= pinned_score + best - 1e-9
