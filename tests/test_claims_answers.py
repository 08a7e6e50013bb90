"""Claim 9: answer positions in packed NQ-Open contexts, per order and budget (embedded sample)."""

from __future__ import annotations

import numpy as np
import pytest

from packbench.algorithms import Item
from packbench.algorithms.orders.curves import PRESETS, position_weights
from packbench.experiments.claims.checks import Settings
from packbench.experiments.claims.groups.answers import answer_weights, answers_claims


def _items(n):
    return [Item(f"p{k}", f"passage {k}", float(n - k), 10) for k in range(n)]


def test_answer_weight_is_the_curve_at_the_answer_position():
    chosen = _items(10)
    presets = tuple(PRESETS)
    pos, n, w = answer_weights(chosen, frozenset({"p3"}), "original", presets)
    assert (pos, n) == (3, 10)
    assert w == pytest.approx([position_weights(p, 10)[3] for p in presets])


def test_no_answer_passage_scores_zero_for_every_order():
    for name in ("original", "score_desc", "lost_in_middle", "curve"):
        pos, _, w = answer_weights(_items(6), frozenset({"absent"}), name, ("gpt-3.5-turbo-20",))
        assert pos is None and np.all(w == 0)


def test_curve_order_is_never_worse_than_the_simple_orders_on_one_context():
    # The curve order sorts by score; with the best passage bearing the answer it lands on the curve's peak.
    chosen = _items(20)
    preset = ("gpt-3.5-turbo-20",)
    best = {name: answer_weights(chosen, frozenset({"p0"}), name, preset)[2][0]
            for name in ("original", "score_desc", "lost_in_middle", "curve")}
    assert best["curve"] == pytest.approx(max(best.values()))


def test_answers_group_on_the_embedded_sample(monkeypatch):
    monkeypatch.delenv("PACKBENCH_DATA_DIR", raising=False)
    out = answers_claims(Settings.for_mode(True, 0))
    assert [r.claim for r in out.rows] == ["9 budget=1000", "9 budget=2000"]
    for row in out.rows:
        assert 0.0 < row.worst <= 1.0
        assert "ahead of" in row.statement
    table = out.sections[0]
    assert "embedded" in table or "sample" in table
    assert table.count("| 1000 |") >= 4 and table.count("| 2000 |") >= 4
