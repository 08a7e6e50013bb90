"""The weight-class bound of the expanding-core search (`core.heavy`): valid on every completion, and it bites.

Instances here have items just above c / 2, c / 3, c / 4 (Jooken-like groups) beside small ones, so
`weight_classes` finds classes and the search, its flip test and its rebuilds all use the bound. The
bound is checked against the brute-force best completion of random states; a variant that lets one
heavy item fewer in (cap - 1) is shown to cut a better completion, so the check can fail.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packbench.algorithms.solvers.core.heavy import (
    COUNT_BITS,
    class_bound,
    class_tables,
    step_tables,
    weight_classes,
)
from packbench.algorithms.solvers.core.minknap import MEMORY_LIMIT, PROVEN, minknap, minknap_bytes

from tests.test_minknap import _brute


def _heavy_instance(rng: random.Random, n: int):
    """Sorted by efficiency: groups just above c / 2, c / 3, c / 4 and small items; (w, p, c)."""
    c = rng.choice([60, 100, 240, 1000])
    w, p = [], []
    for _ in range(n):
        share = rng.choice([2, 2, 3, 4, 0, 0])
        base = c // share + 1 if share else 0
        spread = max(2, c // 20)
        w.append(base + rng.randint(0 if share else 1, spread))
        p.append(base + rng.randint(1, spread) + rng.randint(0, 3 * spread * (share == 0)))
    w, p = np.array(w, np.int64), np.array(p, np.int64)
    keep = w <= c
    w, p = w[keep], p[keep]
    order = np.lexsort((np.arange(len(w)), -(p / w)))
    return w[order], p[order], c


def _best_completion(w, p, c, s, t, core):
    """Brute force: the best p(Y) over subsets Y of items 0..s and t..n-1 with w(core) + w(Y) <= c; None if none."""
    outside = list(range(s + 1)) + list(range(t, len(w)))
    room = c - int(w[core].sum())
    best = None
    for mask in itertools.product((0, 1), repeat=len(outside)):
        ys = [k for k, m in zip(outside, mask) if m]
        if int(w[ys].sum()) <= room:
            best = max(best or 0, int(p[ys].sum()))
    return best


def _bounds(w, p, c, s, t, core, slack):
    """Per class: the class bound of the state with core items `core`, each cap lowered by `slack`."""
    classes = weight_classes(w, c)
    lw, lq, pre_p, pre_w, suf_p, suf_w, flags = class_tables(w, p, c, classes)
    best_p, best_w = step_tables(pre_p, pre_w, suf_p, suf_w, classes, s, t)
    out = []
    for jj in range(len(classes)):
        held = sum(int((flags[k] >> (COUNT_BITS * jj)) & 255) for k in core)
        out.append(class_bound(lw, lq, w, p, len(w), c, s, t, best_p, best_w, jj,
                               int(classes[jj]) - held - slack, int(w[core].sum())))
    return out


def _states(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        w, p, c = _heavy_instance(rng, rng.randint(2, 11))
        n = len(w)
        if n == 0 or len(weight_classes(w, c)) == 0:
            continue
        s = rng.randint(-1, n - 1)
        t = rng.randint(s + 1, n)
        core = [k for k in range(s + 1, t) if rng.random() < 0.5]
        yield w, p, c, s, t, core


def test_weight_classes_keep_only_limits_that_can_bind():
    c = 100
    # Three items over c/2 (class 1), nothing else over c/5 beyond them: classes 2..4 repeat class 1's set.
    assert weight_classes([51, 60, 70, 10, 5], c).tolist() == [1]
    # Items over c/4 (26, 27, 30) join: class 3 counts 6 > 3; class 4 (over 20) adds nothing new.
    assert weight_classes([51, 60, 70, 26, 27, 30, 5], c).tolist() == [1, 3]
    assert weight_classes([10, 20, 30], c).size == 0  # no class: the search skips the bound


def test_the_class_bound_never_cuts_a_better_completion():
    checked = 0
    for w, p, c, s, t, core in _states(1, 600):
        best = _best_completion(w, p, c, s, t, core)
        for bound in _bounds(w, p, c, s, t, core, 0):
            if best is None:
                continue  # no completion fits: any bound is valid
            assert bound >= best - 1e-9, (w.tolist(), p.tolist(), c, s, t, core, bound, best)
            checked += 1
    assert checked > 300


def test_a_bound_allowing_one_heavy_item_fewer_is_caught():
    caught = 0
    for w, p, c, s, t, core in _states(2, 600):
        best = _best_completion(w, p, c, s, t, core)
        if best is not None and any(b < best - 1e-9 for b in _bounds(w, p, c, s, t, core, 1)):
            caught += 1
    assert caught > 0  # the brute force above would see that variant cut a better completion


def test_the_bound_bites_on_a_jooken_like_instance():
    # One item above c/2 fits; Dantzig fills the room with a fraction of a second one, the class bound cannot.
    w = np.array([5, 60, 61, 62], np.int64)
    p = np.array([50, 62, 62, 62], np.int64)
    order = np.lexsort((np.arange(4), -(p / w)))
    w, p = w[order], p[order]
    (bound,) = _bounds(w, p, 100, -1, 0, [], 0)
    assert bound == pytest.approx(62 + 50)  # the optimum: one heavy item and the small one


jooken_like = st.tuples(st.integers(2, 12), st.integers(0, 2**31))


@settings(max_examples=300, deadline=None)
@given(case=jooken_like)
def test_minknap_matches_brute_force_with_heavy_classes(case):
    n, seed = case
    w, p, c = _heavy_instance(random.Random(seed), n)
    perm = np.random.default_rng(seed).permutation(len(w))  # minknap sorts itself
    w, p = w[perm].tolist(), p[perm].tolist()
    if not w:
        return
    res = minknap(w, p, c)
    opt = _brute(w, p, c)
    assert res.status == PROVEN and res.value == opt
    assert sum(w[k] for k in res.chosen) <= c and sum(p[k] for k in res.chosen) == opt
    # The search itself, with the classes and without: both prove the optimum.
    from packbench.algorithms.solvers.core.clock import CLOCK_ID, to_clock
    from packbench.algorithms.solvers.core.kernel import PROVEN as KERNEL_PROVEN
    from packbench.algorithms.solvers.core.kernel import search

    ws, ps = np.array(w, np.int64), np.array(p, np.int64)
    order = np.lexsort((np.arange(len(ws)), -(ps / ws)))
    ws, ps = ws[order], ps[order]
    for classes in (weight_classes(ws, c), np.zeros(0, np.int64)):
        out = search(ws, ps, c, -1, CLOCK_ID, to_clock(None), 0, 10**6, classes)
        assert out[0] == KERNEL_PROVEN and out[1] == opt


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_jooken_past_the_64_step_window_matches_the_dp_and_cuts_states(seed):
    # g = 3 at c = 10^4: the best state comes after step 64, so the set is rebuilt by smaller searches,
    # which carry classes of their own; the classes cut about half of the state visits here.
    from packbench.algorithms.solvers.core.clock import CLOCK_ID, to_clock
    from packbench.algorithms.solvers.core.kernel import search
    from packbench.algorithms.solvers.dp import dp_knapsack
    from packbench.experiments.families.hard import jooken_weights_profits

    c = 10**4
    w, p = jooken_weights_profits(100, c, 3, 0.2, 0.001, 300, np.random.default_rng(seed))
    keep = w <= c
    w, p = w[keep], p[keep]
    classes = weight_classes(w, c)
    assert classes.tolist() == [1, 3]
    res = minknap(w, p, c)
    _, opt = dp_knapsack(w.tolist(), p.tolist(), c)
    assert res.status == PROVEN and res.value == opt
    assert sum(int(w[k]) for k in res.chosen) <= c and sum(int(p[k]) for k in res.chosen) == opt
    order = np.lexsort((np.arange(len(w)), -(p / w)))
    ws, ps = w[order], p[order]
    on = search(ws, ps, c, -1, CLOCK_ID, to_clock(None), 0, 10**7, classes)
    off = search(ws, ps, c, -1, CLOCK_ID, to_clock(None), 0, 10**7, np.zeros(0, np.int64))
    assert on[2] >= 64 and on[1] == off[1] == opt
    assert on[7] < off[7]  # state visits: the bound cut states Dantzig's let through
    assert minknap(w, p, c, max_bytes=minknap_bytes(len(w), 1, len(classes))).status == MEMORY_LIMIT
