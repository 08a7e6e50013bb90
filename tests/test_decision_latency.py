"""Latency classes that hold: reference ms cancel the machine's factor, a call on a class bound keeps its class,
and the quality metrics' directions come from the declared metrics table."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from packbench.experiments.calibration import REFERENCE_MS, reference_speed, reference_workload, time_reference
from packbench.experiments.metrics import ALL_METRICS, Better
from packbench.experiments.report import decision_sections, decisions, ship_lines, write_report
from packbench.experiments.report.decision import QUALITY, higher
from packbench.experiments.report.frame import frame, reference_ms
from packbench.experiments.report.latency import LATENCY_CLASSES, LATENCY_MARGIN, latency_class


def chat_rows(rng, machine=1.0, jitter=0.0, ms=None, n=12, leak=None):
    """A chat cell and a knapsack cell, every strategy's CPU time around `ms` reference ms (default: on the
    1 ms bound), the whole machine `machine` x slower (CPU time and the reference workload alike) and each
    run's two timings jittered independently by up to `jitter`."""
    ms = ms or {"prefix": 1.0, "recency": 1.02, "greedy": 0.98, "exact_dp": 1.1, "langchain_trim": 1.05}
    rows = []
    for source, budget, strategies in (("conversation", 256, ms), ("pisinger", 0.2, {"greedy": 0.1, "exact_dp": 1.0,
                                                                                      "prefix": 0.1})):
        for strat, base in strategies.items():
            for k in range(n):
                ref_s = REFERENCE_MS / 1e3 * machine * (1 + rng.uniform(-jitter, jitter))
                cpu_s = base / 1e3 * machine * (1 + rng.uniform(-jitter, jitter))
                quality = {"prefix": 0.9, "recency": 1.0, "greedy": 0.95, "exact_dp": 1.0,
                           "langchain_trim": 1.0}[strat]
                rows.append({"experiment": "e", "run_id": f"{source}{strat}{k}", "source": source, "p_n": 10,
                             "seed": k, "instance": f"seed={k}", "strategy": strat, "strategy_label": strat,
                             "order": "original", "order_label": "original", "budget_spec": budget, "budget": 100,
                             "near_dup": None, "dedupe": "jaccard", "reason": None, "ratio_kind": "exact",
                             "status": "ok", "score_ratio": quality, "utilisation": 0.9, "utility": quality,
                             "order_efficiency": 1.0, "budget_violation": False, "answer_recall": None,
                             "leak_tokens": (leak or {}).get(strat, 0.0), "cpu_seconds_min": cpu_s,
                             "cpu_seconds_median": cpu_s, "seconds_median": cpu_s * 3, "cpu_reference_s": ref_s})
    return rows


def test_reference_ms_cancel_the_factor_a_slower_or_busier_machine_puts_on_every_call():
    base = frame(chat_rows(random.Random(0)))
    for machine in (0.4, 2.0, 3.5):
        slow = frame(chat_rows(random.Random(0), machine=machine))
        assert reference_ms(slow).tolist() == pytest.approx(reference_ms(base).tolist())
        assert (slow["cpu_seconds_min"] * 1e3).tolist() != pytest.approx(reference_ms(slow).tolist())
    # Rows written before the reference time was recorded keep their raw CPU ms.
    old = pd.DataFrame({"cpu_seconds_min": [0.002, None], "seconds_median": [0.004, 0.003]})
    assert reference_ms(old).tolist() == pytest.approx([2.0, 3.0])
    gap = pd.DataFrame({"cpu_seconds_min": [0.002, 0.002], "seconds_median": [0.004, 0.004],
                        "cpu_reference_s": [None, REFERENCE_MS / 1e3 * 2]})
    assert reference_ms(gap).tolist() == pytest.approx([2.0, 1.0])


def test_a_call_on_a_class_bound_stays_in_the_class_below_until_it_is_surely_above_it():
    bound = LATENCY_CLASSES[1]
    assert latency_class([bound] * 8) == 1
    # Within the margin: not surely above, so the class below (the same on either side of the bound).
    assert latency_class([bound * 0.8] * 8) == latency_class([bound * 1.2] * 8) == 1
    jittering = [bound * (1 + random.Random(k).uniform(-0.3, 0.3)) for k in range(12)]
    assert latency_class(jittering) == 1
    # Surely above the bound by more than the margin: the next class.
    assert latency_class([bound * LATENCY_MARGIN * 1.05] * 8) == 2
    # Noisy times whose interval still reaches the margin are given the benefit of the doubt.
    straddling = [bound * LATENCY_MARGIN * f for f in (0.7, 1.4, 0.8, 1.3, 0.75, 1.35)]
    assert latency_class(straddling) == 1
    assert latency_class(1e-9) == 0 and latency_class(1e6) == len(LATENCY_CLASSES)


def test_decisions_are_identical_when_latencies_jitter_around_a_bound_on_any_machine(tmp_path):
    rng = random.Random(23)
    write_report(tmp_path / "ref", chat_rows(rng), plots=[])
    reference = decision_sections((tmp_path / "ref" / "summary.md").read_text(encoding="utf-8"))
    assert "## Ship this" in reference
    for trial, machine in enumerate((0.5, 1.0, 1.7, 3.0, 6.0)):  # a faster CPU, this one, busy neighbours
        rows = chat_rows(rng, machine=machine, jitter=0.15)
        rng.shuffle(rows)
        write_report(tmp_path / f"t{trial}", rows, plots=[])
        text = decision_sections((tmp_path / f"t{trial}" / "summary.md").read_text(encoding="utf-8"))
        assert text == reference, f"machine factor {machine}"
    lines = {(ln.domain, ln.latency): ln for ln in ship_lines(decisions(frame(chat_rows(rng, jitter=0.15))))}
    # Every chat strategy sits on the 1 ms bound: at <= 1 ms there is an answer, not "nothing fits every cell".
    assert lines[("chat", 1)].strategy == "recency" and lines[("chat", 1)].held == 1


def test_raw_cpu_times_on_the_bound_would_flip_the_class_but_reference_ms_do_not():
    # What the reference workload is for: the same calls, timed on a machine 2.6x slower (past the margin).
    rows = chat_rows(random.Random(1), ms={"prefix": 0.95, "recency": 0.95, "greedy": 0.95, "exact_dp": 0.95,
                                           "langchain_trim": 0.95})
    slow = chat_rows(random.Random(1), machine=2.6, ms={"prefix": 0.95, "recency": 0.95, "greedy": 0.95,
                                                        "exact_dp": 0.95, "langchain_trim": 0.95})
    raw = [latency_class((pd.DataFrame(r)["cpu_seconds_min"] * 1e3).iloc[:12].tolist()) for r in (rows, slow)]
    assert raw == [1, 2]
    by_ref = [[c.latency for d in decisions(frame(r)) for c in d.candidates] for r in (rows, slow)]
    assert by_ref[0] == by_ref[1]


def test_the_reference_workload_is_real_work_and_the_manifest_names_the_unit():
    assert reference_workload() == reference_workload() > 0
    assert 0 < time_reference() < 1.0
    speed = reference_speed(calls=3)
    assert speed["reference_ms"] == REFERENCE_MS and speed["reference_cpu_ms"] > 0


def test_metric_directions_come_from_the_declared_metrics_table():
    for column, _, metric in QUALITY:
        assert higher(column) is (ALL_METRICS[metric].better is Better.HIGHER)
    assert higher("score_ratio") and not higher("leak_tokens") and higher("utility_share")
    # A lower duplicate share wins once recall and score ratio are tied.
    rows = [dict(r, answer_recall=1.0) for r in chat_rows(random.Random(2), leak={"recency": 0.2})
            if r["source"] == "conversation" and r["strategy"] in ("recency", "exact_dp", "langchain_trim")]
    (d,) = decisions(frame(rows))
    assert [s[0] for s in d.stages][:3] == ["answer_recall", "score_ratio", "leak_tokens"]
    assert "recency" not in d.stages[2][2] and d.pick.strategy != "recency"
