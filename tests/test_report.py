"""Summaries and plots from rows, and the run/report/list commands."""

from __future__ import annotations

import math
import os

import pytest

from packbench.experiments.cli import main
from packbench.experiments.commands.run import resolve_config_path
from packbench.experiments.provenance import REPO_ROOT, relative_to_repo
from packbench.experiments.report import PLOTS, markdown_table, order_table, overview, summarise, write_report


def row(**kw):
    base = {"experiment": "e", "run_id": kw.pop("run_id"), "source": "pisinger", "p_n": 10, "p_cls": "a",
            "seed": 0, "instance": "seed=0", "strategy": "greedy", "strategy_label": "greedy",
            "order": "original", "order_label": "original", "budget_spec": 100, "budget": 100, "near_dup": 0.8,
            "status": "ok", "reason": None, "n_after_dedupe": 10, "score_ratio": 1.0, "ratio_kind": "exact",
            "seconds_median": 0.001, "leak_tokens": 0.0, "utilisation": 0.5, "answer_recall": None,
            "utility": 1.0, "order_efficiency": 1.0}
    base.update(kw)
    return base


ROWS = [
    row(run_id="1", score_ratio=0.5, seconds_median=0.001, leak_tokens=0.2, p_cls="a"),
    row(run_id="2", score_ratio=0.9, seconds_median=0.003, leak_tokens=0.0, p_cls="a", seed=1),
    row(run_id="3", score_ratio=0.7, ratio_kind="certified_lower_bound", seconds_median=0.002, p_cls="a", seed=2),
    row(run_id="4", status="skipped", reason="cap", score_ratio=None, seconds_median=None, p_cls="a", seed=3),
    row(run_id="5", p_cls="b", budget_spec="natural", strategy="exact_dp", strategy_label="exact_dp",
        answer_recall=0.5, order="lost_in_middle", order_label="lost_in_middle", order_efficiency=0.5),
]


def test_summary_aggregates_per_source_budget_strategy():
    s = summarise(ROWS)
    assert list(s["source"]) == ["pisinger(cls=a)", "pisinger(cls=b)"]  # only varying params label a source
    a = s.iloc[0]
    assert (a["runs"], a["ok"], a["skipped"], a["timeout"], a["error"]) == (4, 3, 1, 0, 0)
    assert a["ratio_mean"] == pytest.approx(0.7) and a["ratio_worst"] == pytest.approx(0.5)
    assert a["ratio_kind"] == "certified_lower_bound"  # any bound-only ratio makes the group a lower bound
    assert a["runtime_median_ms"] == pytest.approx(2.0)
    assert a["runtime_p95_ms"] == pytest.approx(2.9)
    assert a["leak_tokens_mean"] == pytest.approx(0.2 / 3)
    assert math.isnan(a["answer_recall_mean"]) or a["answer_recall_mean"] is None
    b = s.iloc[1]
    assert (b["budget"], b["strategy"], b["ratio_kind"], b["answer_recall_mean"]) == ("natural", "exact_dp", "exact", 0.5)


def test_overview_is_mean_ratio_per_strategy_and_source():
    rows = ROWS + [row(run_id="6", source="traps", score_ratio=0.25, p_n=None, p_cls=None)]
    t = overview(rows).set_index("strategy")
    assert t.loc["greedy", "pisinger"] == pytest.approx(0.7) and t.loc["greedy", "traps"] == 0.25
    assert t.loc["exact_dp", "pisinger"] == 1.0 and math.isnan(t.loc["exact_dp", "traps"])


def test_order_table_and_markdown():
    t = order_table(ROWS)
    assert set(zip(t["order"], t["order_efficiency_mean"])) == {("original", 1.0), ("lost_in_middle", 0.5)}
    md = markdown_table(summarise(ROWS))
    lines = md.splitlines()
    assert lines[0].startswith("| source | budget | strategy |") and lines[1].startswith("|---|")
    assert len(lines) == 4 and "| pisinger(cls=a) | 100 | greedy | 4 | 3 |" in lines[2]


def test_write_report_writes_every_plot_even_without_measured_rows(tmp_path):
    written = write_report(tmp_path, [row(run_id="x", status="error", reason="boom", score_ratio=None)])
    names = sorted(p.name for p in written)
    assert names == sorted(["summary.csv", "summary.md"] + [f"{p}.png" for p in PLOTS])
    assert all(p.stat().st_size > 0 and p.read_bytes()[:4] != b"" for p in written)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written if p.suffix == ".png")
    md = (tmp_path / "summary.md").read_text()
    assert "| 100 tokens | greedy | 1 | 0 | 1 |" in md  # runs, ok, error (all-zero counts left out)
    assert "- 1 x error: pisinger / greedy: boom" in md and "No run was measured." in md


def test_report_command_rederives_outputs(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["run", str(REPO_ROOT / "configs" / "smoke.toml"), "--out", str(out), "--no-progress",
                 "--workers", "1"]) == 0
    first = (out / "summary.csv").read_text()
    (out / "summary.csv").unlink()
    for plot in (out / "plots").iterdir():
        plot.unlink()
    assert main(["report", str(out)]) == 0
    assert (out / "summary.csv").read_text() == first
    assert len(list((out / "plots").iterdir())) == len(PLOTS)
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert "no runs.jsonl" in capsys.readouterr().err


def test_report_command_warns_about_unreadable_lines_and_leaves_the_file_alone(tmp_path, capsys):
    # It used to print "0 rows" and silently rewrite runs.jsonl without the lines it could not read.
    out = tmp_path / "r"
    out.mkdir()
    raw = b'not json\n{"no_run_id": 1}\n{"run_id": "x", "trunc'
    (out / "runs.jsonl").write_bytes(raw)
    assert main(["report", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning: skipped 3 unreadable line(s)" in err and "0 rows" in err
    assert (out / "runs.jsonl").read_bytes() == raw


def test_run_command_reports_config_errors(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nbudgets = [10]\nsources = [{name = "traps"}]\nstrategies = [{name = "gredy"}]\n')
    assert main(["run", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "unknown strategy 'gredy'" in err and "greedy_best_single" in err
    assert main(["run", "no/such.toml"]) == 2


def test_default_config_resolves_from_cwd_then_repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_config_path(None) == REPO_ROOT / "configs" / "default.toml"
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "default.toml").write_text("")
    assert resolve_config_path(None).resolve() == (tmp_path / "configs" / "default.toml").resolve()
    with pytest.raises(FileNotFoundError, match="not found"):
        resolve_config_path("nope.toml")


def test_list_command_shows_registries(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("greedy", "exact_dp", "lost_in_middle", "pisinger", "retrieval", "traps", "ratio_vs_budget"):
        assert name in out
    assert "    time_limit=10.0  seconds before the search is cut" in out  # Component.describe()
    assert main(["list", "families"]) == 0
    assert "strategies:" not in capsys.readouterr().out


def test_relative_to_repo_never_returns_machine_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert relative_to_repo(REPO_ROOT / "configs" / "smoke.toml") == "configs/smoke.toml"
    assert relative_to_repo(tmp_path / "results" / "x") == "results/x"
    outside = os.path.join(os.path.sep, "somewhere", "else", "file.toml")
    assert relative_to_repo(outside) == "file.toml"


# ---- the decision-first report ----

from hypothesis import given
from hypothesis import strategies as st

from packbench.experiments.report import Candidate, decisions, pareto_front
from packbench.experiments.report.frame import budget_text, frame
from packbench.experiments.report.plots.costs import runtime_panels


def cand(name, quality, p95, ratio=None):
    return Candidate(name, quality, p95, quality if ratio is None else ratio, quality, "exact", 0)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6)), min_size=1, max_size=9))
def test_pareto_front_is_exactly_the_undominated_set(points):
    cands = [cand(f"s{k}", q / 5, float(t)) for k, (q, t) in enumerate(points)]
    front = pareto_front(cands)

    def dominates(a, b):
        return a.quality >= b.quality and a.p95_ms <= b.p95_ms and (a.quality > b.quality or a.p95_ms < b.p95_ms)

    assert {c.strategy for c in front} == {c.strategy for c in cands if not any(dominates(o, c) for o in cands)}
    assert [c.p95_ms for c in front] == sorted(c.p95_ms for c in front)  # fastest first
    qualities = [c.quality for c in front]
    assert all(a <= b for a, b in zip(qualities, qualities[1:]))  # slower members must be better


def cell_rows(source="pisinger", budget=0.2, near_dup=None, **strategies):
    """Rows of one cell: strategy -> list of (score_ratio, seconds) or a status string."""
    rows = []
    for strat, runs in strategies.items():
        for k, run in enumerate(runs):
            base = {"run_id": f"{source}{budget}{near_dup}{strat}{k}", "source": source, "strategy": strat,
                    "strategy_label": strat, "budget_spec": budget, "near_dup": near_dup, "seed": k,
                    "instance": f"seed={k}", "p_cls": None, "p_n": None}
            if isinstance(run, str):
                rows.append(row(**base, status=run, reason="refused", score_ratio=None, seconds_median=None))
            else:
                ratio, secs, *recall = run
                rows.append(row(**base, score_ratio=ratio, seconds_median=secs,
                                answer_recall=recall[0] if recall else None))
    return rows


def test_pick_is_the_fastest_within_tolerance_and_says_why():
    rows = cell_rows(greedy=[(0.97, 0.0001)] * 4, greedy_best_single=[(0.998, 0.0002)] * 4,
                     exact_dp=[(1.0, 0.01)] * 4, prefix=[(0.9, 0.00005)] * 4)
    (d,) = decisions(frame(rows))
    assert d.quality_name == "score ratio"
    assert [c.strategy for c in d.front] == ["prefix", "greedy", "greedy_best_single", "exact_dp"]
    assert d.pick.strategy == "greedy_best_single"  # within 0.005 of the best, 50x faster than exact_dp
    assert "best exact_dp 1.000 costs 10 ms for +0.002" in d.why


def test_latency_ties_go_to_quality_and_incomplete_strategies_do_not_compete():
    rows = cell_rows(fptas=[(0.999, 0.0100)] * 4, exact_dp=[(1.0, 0.0110)] * 4,
                     exact=[(1.0, 0.0001)] * 3 + ["skipped"])
    (d,) = decisions(frame(rows))
    assert d.excluded == ("exact",)  # fastest, but one run was refused
    assert d.pick.strategy == "exact_dp"  # 10% slower than fptas is a tie; the higher quality wins


def test_answer_recall_is_the_quality_where_labelled_and_thresholds_are_separate_cells():
    rows = (cell_rows(source="nq_open", budget=512, near_dup=0.8, greedy=[(0.9, 0.001, 1.0)] * 2,
                      exact=[(1.0, 0.002, 0.0)] * 2)
            + cell_rows(source="nq_open", budget=512, near_dup=None, greedy=[(0.9, 0.001, 0.0)] * 2,
                        exact=[(1.0, 0.002, 1.0)] * 2))
    cells = decisions(frame(rows))
    assert [(d.near_dup, d.quality_name, d.pick.strategy) for d in cells] == [
        ("0.8", "answer recall", "greedy"), ("off", "answer recall", "exact")]


def test_labels_show_only_parameters_that_vary():
    rows = [row(run_id="a", strategy="fptas", sp_eps=0.1, sp_max_memory_mb=256.0),
            row(run_id="b", strategy="fptas", sp_eps=0.2, sp_max_memory_mb=256.0),
            row(run_id="c", strategy="cpsat", sp_time_limit=0.3, sp_eps=None)]
    df = frame(rows)
    assert list(df["choice"]) == ["fptas(eps=0.1)", "fptas(eps=0.2)", "cpsat"]
    assert budget_text("0.05") == "5% of tokens" and budget_text("2048") == "2,048 tokens"
    assert budget_text("natural") == "natural"


def test_summary_md_opens_with_the_decision_and_has_units(tmp_path):
    rows = cell_rows(greedy=[(0.97, 0.0001)] * 2, exact_dp=[(1.0, 0.01)] * 2)
    write_report(tmp_path, rows)
    md = (tmp_path / "summary.md").read_text()
    lines = md.splitlines()
    assert lines[0] == "# e: which strategy to ship"
    table = next(k for k, line in enumerate(lines) if line.startswith("| source | budget | quality | Pareto set"))
    assert table < 6 and "| pisinger | 20% of tokens | score ratio |" in lines[table + 2]
    assert "**exact_dp**" in lines[table + 2]
    assert "runtime p95 (ms)" in md and "leak tokens mean (share of tokens)" in md and "ratio mean (ratio)" in md


def test_runtime_panels_keep_dedupe_settings_apart_and_need_a_size_range():
    rows = []
    for n, nd in ((40, 0.8), (160, 0.8), (40, None), (160, None)):
        rows += [row(run_id=f"r{n}{nd}", source="retrieval", n_candidates=n, near_dup=nd)]
    rows += [row(run_id=f"c{n}", source="conversation", n_candidates=n) for n in (28, 30, 32)]
    panels = runtime_panels(frame(rows))
    assert [(s, nd, sorted(p["n_candidates"])) for s, nd, p in panels] == [
        ("retrieval", "0.8", [40, 160]), ("retrieval", "off", [40, 160])]


def test_equal_answer_recall_is_decided_by_the_score_ratio():
    rows = cell_rows(source="nq_open", budget=512, prefix=[(0.86, 0.0010, 1.0)] * 2,
                     greedy=[(0.95, 0.0011, 1.0)] * 2, exact=[(1.0, 0.0030, 1.0)] * 2)
    (d,) = decisions(frame(rows))
    assert [c.strategy for c in d.front] == ["prefix", "greedy", "exact"]  # same recall, better ratio: kept
    assert d.pick.strategy == "greedy" and "mean score ratio 0.950" in d.why  # a latency tie with prefix
    assert "best exact" in d.why
