"""Greedy, greedy with the best-single fix, and prefix: their exact rules."""

from packbench.algorithms import Item, Problem, pack
from packbench.algorithms.strategies.best_single import GreedyBestSingle
from packbench.algorithms.strategies.greedy import Greedy, density_order
from packbench.algorithms.strategies.prefix import Prefix


def _problem(specs, room):
    return Problem(tuple(Item(i, f"text {i}", s, t) for i, s, t in specs), room)


def test_density_order_breaks_ties_by_score_then_id():
    p = _problem([("b", 2, 2), ("a", 2, 2), ("c", 4, 4), ("d", 3, 1)], 100)
    assert [p.candidates[k].id for k in density_order(p.candidates)] == ["d", "c", "a", "b"]


def test_greedy_skips_what_does_not_fit_and_goes_on():
    p = _problem([("x", 10, 5), ("big", 9, 6), ("y", 1, 1)], 6)
    assert sorted(p.candidates[k].id for k in Greedy().select(p).indices) == ["x", "y"]


def test_prefix_stops_at_the_first_item_that_does_not_fit():
    p = _problem([("x", 10, 5), ("big", 9, 6), ("y", 1, 1)], 6)
    assert [p.candidates[k].id for k in Prefix().select(p).indices] == ["x"]


def test_best_single_fix_beats_the_density_trap():
    p = _problem([("small", 2, 1), ("large", 90, 100)], 100)
    assert [p.candidates[k].id for k in Greedy().select(p).indices] == ["small"]
    assert [p.candidates[k].id for k in GreedyBestSingle().select(p).indices] == ["large"]


def test_best_single_then_fill_adds_what_still_fits():
    # Greedy takes a (density 3) and b, blocking c; best single c, then fill with a, scores more.
    p = _problem([("a", 3, 1), ("b", 2.5, 9), ("c", 9, 9)], 10)
    chosen = GreedyBestSingle().select(p).indices
    assert sorted(p.candidates[k].id for k in chosen) == ["a", "c"]


def test_heuristics_carry_the_dantzig_bound():
    items = [Item("a", "one", 3, 2), Item("b", "two", 4, 4), Item("c", "three", 5, 6)]
    res = pack(items, 7, None, strategy="greedy")
    # Density order a (1.5), b (1.0), c (0.83): a and b whole, then 1/6 of c.
    assert res.score == 7 and res.upper_bound == 3 + 4 + 5 / 6
    assert res.optimal is None


def test_heuristic_meeting_its_bound_is_marked_optimal():
    items = [Item("a", "one", 3, 2), Item("b", "two", 4, 4)]
    res = pack(items, 6, None, strategy="greedy")
    assert res.score == 7 and res.optimal is True
