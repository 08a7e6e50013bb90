"""The decision: paired intervals, ties, fallback metrics, domains, "not enough instances", stable text."""

from __future__ import annotations

import random

import pytest

from packbench.experiments.report import decision_sections, decisions, ship_lines, write_report
from packbench.experiments.report.decision import DELTA, LATENCY_MARGIN, latency_class
from packbench.experiments.report.frame import frame
from packbench.experiments.report.stats import paired_interval, ratio_interval


def cell(source="pisinger", budget=0.2, near_dup=None, order="original", **strategies):
    """Rows of one cell: strategy -> per-instance (score_ratio, cpu_ms[, answer_recall[, leak_tokens]])."""
    rows = []
    for strat, runs in strategies.items():
        for k, run in enumerate(runs):
            base = {"experiment": "e", "run_id": f"{source}{budget}{near_dup}{order}{strat}{k}", "source": source,
                    "p_n": 10, "seed": k, "instance": f"seed={k}", "strategy": strat, "strategy_label": strat,
                    "order": order, "order_label": order, "budget_spec": budget, "budget": 100,
                    "near_dup": near_dup, "dedupe": "exact", "reason": None, "ratio_kind": "exact",
                    "utilisation": 0.9, "utility": 1.0, "order_efficiency": 1.0, "budget_violation": False}
            if isinstance(run, str):
                rows.append({**base, "status": run, "reason": "refused", "score_ratio": None})
                continue
            ratio, ms, *rest = run
            rows.append({**base, "status": "ok", "score_ratio": ratio, "cpu_seconds_min": ms / 1e3,
                         "cpu_seconds_median": ms / 1e3, "seconds_median": ms / 1e3 * 3,
                         "answer_recall": rest[0] if rest else None,
                         "leak_tokens": rest[1] if len(rest) > 1 else 0.0})
    return rows


def jitter(values, spread, rng):
    return [v * (1 + rng.uniform(-spread, spread)) for v in values]


def test_paired_interval_is_exact_for_equal_differences_and_seeded_otherwise():
    assert paired_interval([1.0, 1.0, 0.5], [0.9, 0.9, 0.4]) == paired_interval([1.0, 1.0, 0.5], [0.9, 0.9, 0.4])
    iv = paired_interval([1.0] * 6, [0.9] * 6)
    assert (iv.mean, iv.low, iv.high, iv.n) == (pytest.approx(0.1), pytest.approx(0.1), pytest.approx(0.1), 6)
    noisy = paired_interval([0.9, 1.0, 0.95, 0.97, 0.99, 1.0], [1.0] * 6)
    assert noisy.low < noisy.mean < noisy.high <= 0
    assert ratio_interval([2.0] * 5, [1.0] * 5).mean == pytest.approx(2.0)
    with pytest.raises(ValueError, match="same non-zero length"):
        paired_interval([1.0], [1.0, 2.0])


def test_quality_decides_first_and_latency_only_among_the_tied():
    rows = cell(greedy=[(0.97, 0.02)] * 8, exact=[(1.0, 3.0)] * 8, prefix=[(0.9, 0.01)] * 8)
    (d,) = decisions(frame(rows))
    assert d.pick.strategy == "exact" and d.tied == ("exact",) and d.n == 8
    assert d.why.startswith("best score ratio (n=8); next greedy -0.030 [-0.030, -0.030]")


def test_a_saturated_metric_hands_over_to_the_next_declared_one():
    # Everyone finds the answer (recall 1.0): the score ratio decides, not latency.
    rows = cell(source="nq_open", budget=512, prefix=[(0.88, 0.01, 1.0)] * 6, greedy=[(0.97, 0.02, 1.0)] * 6,
                exact=[(1.0, 0.5, 1.0)] * 6)
    (d,) = decisions(frame(rows))
    assert d.metrics[:2] == ("answer_recall", "score_ratio")
    assert set(d.tied) == {"prefix", "greedy", "exact"}  # tied for best on recall
    assert d.stages[1][2] == ("exact",) and d.pick.strategy == "exact"
    assert "3 tied for best answer recall (n=6); of those, exact best on score ratio" in d.why


def test_strategies_within_the_interval_are_tied_and_the_simplest_of_one_class_wins():
    rng = random.Random(3)
    a = [0.95 + rng.uniform(-0.03, 0.03) for _ in range(8)]
    b = [x + rng.uniform(-0.02, 0.02) for x in a]
    rows = cell(fptas=[(x, 0.4) for x in a], exact_dp=[(x, 0.5) for x in b], greedy=[(0.5, 0.3)] * 8)
    (d,) = decisions(frame(rows))
    assert set(d.tied) == {"fptas", "exact_dp"}
    assert d.pick.strategy == "fptas"  # same latency class: the declared simplicity order, said so
    assert "the simplest of those not slower (declared order)" in d.why


def test_a_higher_latency_class_counts_only_when_the_paired_ratio_says_so():
    # Both tied on quality; bnb sits just over the 0.1 ms bound, exact_dp just under: no sure difference.
    near = cell(bnb=[(1.0, 0.105)] * 6, exact_dp=[(1.0, 0.095)] * 6)
    (d,) = decisions(frame(near))
    assert d.pick.strategy == "exact_dp"  # simplicity, since bnb is not surely slower
    far = cell(exact=[(1.0, 0.05)] * 6, exact_dp=[(1.0, 5.0)] * 6)
    (d,) = decisions(frame(far))
    assert d.pick.strategy == "exact" and "then the fastest latency class" in d.why


def test_latency_is_named_only_where_it_overrode_the_declared_order():
    # exact_dp is both the simplest and surely the faster: whether exact is surely slower hangs on timing
    # noise near the margin, so the text names the rule that picks exact_dp either way.
    for slow in (0.06, 5.0):  # exact not surely slower, then surely slower: one text for both
        (d,) = decisions(frame(cell(exact_dp=[(1.0, 0.05)] * 6, exact=[(1.0, slow)] * 6)))
        assert d.pick.strategy == "exact_dp"
        assert d.why.endswith("then the simplest of those not slower (declared order)")


def test_three_instances_cannot_decide():
    rows = cell(source="conversation", budget=256, greedy=[(0.97, 0.02)] * 3, exact=[(1.0, 0.5)] * 3)
    (d,) = decisions(frame(rows))
    assert d.pick is None and d.n == 3
    assert d.why == "not enough instances to decide (n=3; at least 5 needed)"
    md_cells = decisions(frame(rows))
    assert all(line.strategy is None or line.cells == 0 for line in ship_lines(md_cells))


def test_no_cell_picks_a_strategy_outside_its_domain():
    # recency is the fastest and best here, but it is a chat-history policy and traps are knapsack instances.
    rows = cell(source="traps", budget="natural", recency=[(1.0, 0.01)] * 6, greedy=[(0.9, 0.02)] * 6,
                mmr=[(1.0, 0.01)] * 6)
    (d,) = decisions(frame(rows))
    assert d.domain == "knapsack" and d.pick.strategy == "greedy"
    assert dict(d.out_of_domain) == {"mmr": "meant for retrieval", "recency": "meant for chat"}
    chat = cell(source="conversation", budget=256, recency=[(1.0, 0.01)] * 6, greedy=[(0.9, 0.02)] * 6)
    (c,) = decisions(frame(chat))
    assert c.domain == "chat" and c.pick.strategy == "recency"


def test_incomplete_or_over_budget_strategies_do_not_compete():
    rows = cell(exact=[(1.0, 0.01)] * 5 + ["skipped"], exact_dp=[(1.0, 1.0)] * 6, greedy=[(0.9, 0.01)] * 6)
    rows += [dict(r, run_id=r["run_id"] + "o", strategy="tokenpack", strategy_label="tokenpack",
                  budget_violation=True, source="pisinger") for r in cell(tokenpack=[(1.0, 0.01)] * 6)]
    (d,) = decisions(frame(rows))
    assert dict(d.excluded) == {"exact": "1 of 6 runs skipped or failed"}
    assert dict(d.out_of_domain) == {"tokenpack": "meant for retrieval"}
    assert d.pick.strategy == "exact_dp"


def many_cells(rng, factor=1.0, spread=0.0):
    """Several cells with classes well apart; CPU times scaled by `factor` and jittered by `spread`."""
    rows = []
    for budget in (0.05, 0.2, 0.5):
        for strat, ratio, ms in (("prefix", 0.8, 0.02), ("greedy", 0.97, 0.04), ("greedy_best_single", 0.985, 0.3),
                                 ("exact_dp", 1.0, 3.0), ("recency", 0.99, 0.02)):
            vals = [min(1.0, ratio + 0.01 * ((k * 7 + len(strat)) % 3 - 1)) for k in range(8)]
            cpu = jitter([ms * factor] * 8, spread, rng)
            rows += cell(budget=budget, **{strat: list(zip(vals, cpu))})
    for strat, rec, ms in (("prefix", 1.0, 0.015), ("greedy", 1.0, 0.03), ("mmr", 1.0, 4.0)):
        rows += cell(source="retrieval", budget=512, near_dup=0.8,
                     **{strat: [(0.9 if strat == "prefix" else 1.0, c, rec, 0.0) for c in
                                jitter([ms * factor] * 6, spread, rng)]})
    return rows


def test_decision_sections_are_identical_when_timings_move_within_noise(tmp_path):
    rng = random.Random(0)
    base = many_cells(rng)
    write_report(tmp_path / "a", base, plots=[])
    reference = decision_sections((tmp_path / "a" / "summary.md").read_text())
    assert "## Ship this" in reference and "## Decisions per cell" in reference
    for trial in range(4):  # a busy or slower machine: every time scaled, each call jittered; rows shuffled
        rows = many_cells(rng, factor=rng.uniform(0.8, 1.3), spread=0.15)
        rng.shuffle(rows)
        write_report(tmp_path / f"t{trial}", rows, plots=[])
        assert decision_sections((tmp_path / f"t{trial}" / "summary.md").read_text()) == reference


def test_ship_block_names_one_strategy_per_domain_and_latency_budget_with_its_regret(tmp_path):
    rows = many_cells(random.Random(1))
    lines = {(ln.domain, ln.latency): ln for ln in ship_lines(decisions(frame(rows)))}
    fast = lines[("knapsack", 0)]  # <= 0.1 ms: prefix and greedy fit; greedy is better everywhere
    assert fast.strategy == "greedy" and fast.held == 3 and fast.cells == 3 and fast.losses == ()
    # Its regret is against the best at any latency (exact_dp): what the latency budget costs.
    assert fast.regret[1] == "score ratio" and fast.regret[0] == pytest.approx(1.0 - 0.97, abs=0.011)
    assert lines[("knapsack", 3)].strategy == "exact_dp" and lines[("knapsack", 3)].held == 3
    assert lines[("retrieval", 0)].strategy == "greedy"  # recall saturates; the score ratio separates
    write_report(tmp_path, rows, plots=[])
    md = (tmp_path / "summary.md").read_text()
    assert md.index("## Ship this") < md.index("## Decisions per cell") < md.index("## Details per source")
    assert "| ≤ 0.1 ms | **greedy** |" in md and "~~recency~~ (meant for chat)" in md
    # Within the margin of the 0.1 ms bound is still <= 0.1 ms; surely above it is the next class.
    assert latency_class(0.1) == 0 and latency_class(0.1 * LATENCY_MARGIN * 0.95) == 0
    assert latency_class(0.1 * LATENCY_MARGIN * 1.05) == 1
    assert latency_class(50) == 3
    assert DELTA > 0
