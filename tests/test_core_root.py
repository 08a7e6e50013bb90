"""The search's root proof and the galloping search its bounds and the reduction's use.

Where the greedy set meets the break state's bound (Dantzig's over every item, rounded as the
search rounds: gcd, affine step), `kernel.search` returns at once: proven, with no swap looked
for and no flip bound per item. `bounds.first_above` replaced the binary searches of those
bounds and of the reduction's: it must give searchsorted's index from every starting guess.
"""

from __future__ import annotations

import math
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from packbench.algorithms.solvers.core.bounds import _AFFINE_TRIES, _bound, affine_step, first_above
from packbench.algorithms.solvers.core.kernel import PROVEN, search
from packbench.algorithms.solvers.core.minknap import efficiency_order, minknap

from tests.test_minknap import _brute


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(st.integers(0, 5), min_size=1, max_size=40), target=st.integers(-3, 120),
       lo=st.integers(0, 40), width=st.integers(0, 40))
def test_first_above_is_searchsorted_from_every_guess(steps, target, lo, width):
    cw = np.cumsum(np.array(steps, np.int64))  # nondecreasing, with repeats
    lo = min(lo, len(cw))
    hi = min(len(cw), lo + width)
    want = lo + int(np.searchsorted(cw[lo:hi], target, side="right"))
    for guess in range(-2, len(cw) + 3):
        assert first_above(cw, target, lo, hi, guess) == want


def _root(w, p, c):
    """(greedy profit, the break state's bound) of items in efficiency order, as `search` computes them."""
    n = len(w)
    cw, cp = np.concatenate([[0], np.cumsum(w)]), np.concatenate([[0], np.cumsum(p)])
    b = int(np.searchsorted(cw[1:], c, side="right"))
    used, greedy = int(cw[b]), int(cp[b])
    for k in range(b, n):
        if used + w[k] <= c:
            used, greedy = used + int(w[k]), greedy + int(p[k])
    gp = math.gcd(*p.tolist())
    a, ga = affine_step(w, p, gp, _AFFINE_TRIES)
    return greedy, int(_bound(cw, cp, w, p, n, c, b - 1, b, cw[b], cp[b], gp, a, ga))


def _instances(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.randint(1, 11)
        w = [rng.randint(1, 30) for _ in range(n)]
        kind = rng.random()
        # Uncorrelated, strongly correlated and equal-ratio items: the last two often meet the bound.
        p = [rng.randint(1, 30) if kind < 0.4 else (x + 10 if kind < 0.7 else 3 * x) for x in w]
        w, p = np.array(w, np.int64), np.array(p, np.int64)
        order = efficiency_order(w, p)
        c = rng.randint(1, int(w.sum()))
        w, p = w[order], p[order]
        keep = w <= c  # the search takes items that fit alone
        if keep.any():
            yield w[keep], p[keep], c


def _root_proof_fails(slack):
    """True when "greedy + slack >= the root bound" claims an optimum the brute force beats."""
    for w, p, c in _instances(11, 1500):
        greedy, root = _root(w, p, c)
        if greedy + slack >= root and _brute(w.tolist(), p.tolist(), c) > greedy:
            return True
    return False


def test_the_root_proof_holds_and_a_loosened_one_fails_the_brute_force():
    assert not _root_proof_fails(0)
    assert _root_proof_fails(1)  # one unit of slack would prove sets that are not optimal


def test_a_greedy_set_at_the_root_bound_returns_at_once_and_stays_exact():
    met = 0
    for w, p, c in _instances(5, 600):
        greedy, root = _root(w, p, c)
        out = search(w, p, c, -1, 1, 1e300, 0, 10**5, np.zeros(0, np.int64))
        status, value, step, work, swap_out, swap_in = out[0], out[1], out[2], out[7], out[8], out[9]
        res = minknap(w, p, c)
        assert res.status == "proven" and res.value == _brute(w.tolist(), p.tolist(), c)
        if root <= greedy:
            met += 1
            assert (status, value, step, work, swap_out, swap_in) == (PROVEN, greedy, -1, 0, -1, -1)
            assert len(out[4]) == 0 and len(out[10]) == 0
    assert met > 50
