"""The compiled reduction (`reduce_kernel`) gives the numpy reduction's answer exactly, and its fixings hold."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.solvers import reduce as reduce_module
from packbench.algorithms.solvers.reduce import reduce_knapsack, reduce_knapsack_numpy
from packbench.algorithms.solvers.reduce_kernel import reduce_sorted


@st.composite
def instances(draw):
    """(tokens, integral scores, room, margin, known): shapes with many ties and near-equal densities."""
    n = draw(st.integers(1, 24))
    tokens = draw(st.lists(st.integers(1, 30), min_size=n, max_size=n))
    shape = draw(st.sampled_from(["free", "correlated", "proportional", "few"]))
    if shape == "free":
        scores = draw(st.lists(st.integers(1, 60), min_size=n, max_size=n))
    elif shape == "correlated":
        scores = [w + draw(st.integers(0, 3)) for w in tokens]
    elif shape == "proportional":
        scores = [3 * w for w in tokens]
    else:
        scores = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    room = draw(st.integers(max(tokens), max(max(tokens), sum(tokens))))
    margin = draw(st.sampled_from([0.0, 0.5, 1.0, 3.0]))
    known = draw(st.one_of(st.none(), st.integers(0, sum(scores) + 2).map(float)))
    return np.array(tokens), np.array(scores, dtype=float), room, margin, known


@settings(max_examples=600, deadline=None)
@given(instances())
def test_compiled_reduction_equals_the_numpy_one(case):
    tokens, scores, room, margin, known = case
    assert reduce_knapsack(tokens, scores, room, margin=margin, known=known) == \
        reduce_knapsack_numpy(tokens, scores, room, margin=margin, known=known)


@settings(max_examples=300, deadline=None)
@given(instances())
def test_the_kernel_itself_answers_integral_instances(case):
    # Not the numpy fallback: the kernel accepts every integral instance below 2**53 and agrees.
    tokens, scores, room, margin, known = case
    order = np.argsort(-scores / tokens, kind="stable")
    ok, inc, fixed_in, free, left, inc_score, upper, early = reduce_sorted(
        tokens[order].astype(np.int64), scores[order], order.astype(np.int64), room, margin, known is not None,
        0.0 if known is None else known, 1e-9)
    ref = reduce_knapsack_numpy(tokens, scores, room, margin=margin, known=known)
    assert ok
    assert tuple(inc.tolist()) == ref.incumbent and inc_score == ref.incumbent_score and upper == ref.upper_bound
    if not early:
        assert (tuple(fixed_in.tolist()), tuple(free.tolist()), left) == (ref.fixed_in, ref.free, ref.room)


@settings(max_examples=300, deadline=None)
@given(instances())
def test_margin_one_fixings_keep_every_optimum(case):
    # Brute force: with integral scores and margin 1 every optimal set takes the fixed items and
    # only free ones besides, and the room left is the room minus the fixed items.
    tokens, scores, room, _, _ = case
    if len(tokens) > 14:
        tokens, scores = tokens[:14], scores[:14]
        room = min(room, int(tokens.sum()))
    red = reduce_knapsack(tokens, scores, room, margin=1.0)
    best, optima = -1.0, []
    for bits in itertools.product((0, 1), repeat=len(tokens)):
        chosen = [k for k, b in enumerate(bits) if b]
        if int(tokens[chosen].sum()) > room:
            continue
        value = float(scores[chosen].sum())
        if value > best:
            best, optima = value, [chosen]
        elif value == best:
            optima.append(chosen)
    allowed = set(red.fixed_in) | set(red.free)
    for chosen in optima:
        assert set(red.fixed_in) <= set(chosen) <= allowed
    assert red.room == room - int(tokens[list(red.fixed_in)].sum())
    assert red.incumbent_score <= best <= red.upper_bound


def test_non_integral_and_huge_scores_take_the_numpy_path(monkeypatch):
    # Where float sums could depend on their order the kernel declines, and the numpy path answers.
    tokens = np.array([3, 5, 4, 2, 7])
    for scores in (np.array([1.5, 2.25, 3.1, 0.7, 4.9]), np.array([2.0**52, 2.0**52, 3.0, 2.0**51, 1.0])):
        order = np.argsort(-scores / tokens, kind="stable")
        ok = reduce_sorted(tokens[order].astype(np.int64), scores[order], order.astype(np.int64), 9, 1.0, False,
                           0.0, 1e-9)[0]
        assert not ok
        ref = reduce_knapsack_numpy(tokens, scores, 9, margin=1.0)
        calls = []
        real = reduce_module._reduce_sorted_numpy
        monkeypatch.setattr(reduce_module, "_reduce_sorted_numpy", lambda *a: calls.append(1) or real(*a))
        assert reduce_knapsack(tokens, scores, 9, margin=1.0) == ref
        assert calls == [1]
        monkeypatch.undo()
