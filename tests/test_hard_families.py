"""Pisinger's hard classes and Jooken et al.'s class follow their published formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from packbench.experiments.families import FAMILIES
from packbench.experiments.families.hard import (HARD_CLASSES, jooken_weights_profits,
                                                 pisinger_hard_weights_profits)


def _draw(cls, n=3000, R=1000, **kw):
    return pisinger_hard_weights_profits(cls, n, R, np.random.default_rng(7), **kw)


@pytest.mark.parametrize("base", ["uncorrelated", "weakly_correlated", "strongly_correlated"])
def test_spanner_items_are_multiples_of_v_normalised_spanner_items(base):
    w, p = _draw(f"spanner_{base}", v=2, m=10)
    ratios = {(int(a), int(b)) for a, b in zip(w, p)}
    # Every item is a * (w_k, p_k) for one of the 2 spanner items and 1 <= a <= 10.
    spanners = {(a // g, b // g) for a, b in ratios for g in [math.gcd(a, b)]}
    assert 1 <= len({(sw * 1.0 / sp) for sw, sp in spanners}) <= 2
    assert w.min() >= 1 and w.max() <= 10 * math.ceil(1000 / 11)
    if base == "strongly_correlated":
        # A normalised spanner item is (ceil(w/11), ceil((w + 100)/11)).
        assert all(b >= a for a, b in ratios)


def test_multiple_strongly_correlated_formula():
    w, p = _draw("multiple_strongly_correlated", k1=0.3, k2=0.2, divisor=6)
    assert np.array_equal(p, np.where(w % 6 == 0, w + 300, w + 200))
    assert w.min() >= 1 and w.max() <= 1000


def test_profit_ceiling_formula():
    w, p = _draw("profit_ceiling", ceiling=3)
    assert np.array_equal(p, 3 * np.ceil(w / 3).astype(np.int64))


def test_circle_formula():
    w, p = _draw("circle", arc=2 / 3)
    expect = np.floor(2 / 3 * np.sqrt(4 * 1000**2 - (w - 2000.0) ** 2))
    assert np.array_equal(p, np.maximum(expect, 1).astype(np.int64))


def test_jooken_groups_follow_the_generator():
    n, c, g, f, eps, s = 1000, 10**10, 4, 0.1, 0.001, 300
    w, p = jooken_weights_profits(n, c, g, f, eps, s, np.random.default_rng(0))
    assert len(w) == len(p) == n
    per = (n - 100) // 3
    for j in range(1, g):
        base = math.floor((1 / 2**j + eps) * c)
        part = slice((j - 1) * per, j * per)
        assert (w[part] - base).min() >= 1 and (w[part] - base).max() <= s
        assert (p[part] - base).min() >= 1 and (p[part] - base).max() <= s
    rest = slice(per * (g - 1), n)
    assert w[rest].min() >= 1 and w[rest].max() <= s and len(w[rest]) == n - 3 * per


@pytest.mark.parametrize("cls", HARD_CLASSES)
def test_family_instances_are_seeded_and_budgeted(cls):
    fam = FAMILIES["pisinger_hard"](cls=cls, n=60, R=100)
    a = next(fam.instances(3))
    b = next(fam.instances(3))
    assert [(i.tokens, i.score) for i in a.items] == [(i.tokens, i.score) for i in b.items]
    total = sum(i.tokens for i in a.items)
    assert max(i.tokens for i in a.items) <= a.meta["budget"] <= total


def test_jooken_family_and_bad_params():
    inst = next(FAMILIES["jooken"](n=50, c=10**6, g=3).instances(0))
    assert inst.meta["budget"] == 10**6 and len(inst.items) == 50
    with pytest.raises(ValueError, match="R"):
        FAMILIES["pisinger_hard"](R=15)
    with pytest.raises(ValueError, match="no item per large group"):
        FAMILIES["jooken"](n=3, g=10, f=0.1)


def test_hard_bench_proves_every_row_and_the_solvers_agree():
    from packbench.experiments.bench.hard import format_hard, run_hard

    rows = run_hard(sizes=(40,), seeds=1, limit=5.0, only=("circle", "jooken(c=1e9,g=6)"))
    assert [r["cls"] for r in rows] == ["circle", "jooken(c=1e9,g=6)"]
    assert all(r["exact"]["optimal"] and r["agree"] for r in rows)
    assert rows[1]["exact_dp"]["seconds"] is None  # c = 10^9: the capacity DP is refused
    table = format_hard(rows)
    assert "jooken(c=1e9,g=6)" in table and "refused" in table
