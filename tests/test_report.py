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


def test_summary_is_tidy_one_line_per_variant_budget_dedupe_order_strategy():
    s = summarise(ROWS)
    assert list(s.columns[:8]) == ["source", "p_cls", "p_n", "budget", "near_dup", "dedupe", "order", "strategy"]
    assert list(s["source"]) == ["pisinger", "pisinger"] and list(s["p_cls"]) == ["a", "b"]  # variants: columns
    assert list(s["order"]) == ["original", "lost_in_middle"] and list(s["p_n"]) == [10, 10]
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
    assert lines[0].startswith("| source | p_cls | p_n | budget | near_dup | dedupe | order | strategy |")
    assert len(lines) == 4 and "| pisinger | a | 10 | 100 | 0.8 |  | original | greedy | 4 | 3 |" in lines[2]


def test_write_report_writes_every_plot_even_without_measured_rows(tmp_path):
    written = write_report(tmp_path, [row(run_id="x", status="error", reason="boom", score_ratio=None)])
    names = sorted(p.name for p in written)
    assert names == sorted(["summary.csv", "summary.parquet", "summary.md", "report.html"]
                          + [f"{p}.png" for p in PLOTS])
    assert all(p.stat().st_size > 0 and p.read_bytes()[:4] != b"" for p in written)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written if p.suffix == ".png")
    assert all(p.read_bytes()[:4] == b"PAR1" for p in written if p.suffix == ".parquet")
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


# ---- labels and panels (the decision itself: tests/test_decision*.py) ----

from packbench.experiments.report.frame import budget_text, frame
from packbench.experiments.report.plots.costs import runtime_panels


def test_labels_show_only_parameters_that_vary():
    rows = [row(run_id="a", strategy="fptas", sp_eps=0.1, sp_max_memory_mb=256.0),
            row(run_id="b", strategy="fptas", sp_eps=0.2, sp_max_memory_mb=256.0),
            row(run_id="c", strategy="cpsat", sp_time_limit=0.3, sp_eps=None)]
    df = frame(rows)
    assert list(df["choice"]) == ["fptas(eps=0.1)", "fptas(eps=0.2)", "cpsat"]
    assert budget_text("0.05") == "5% of tokens" and budget_text("2048") == "2,048 tokens"
    assert budget_text("natural") == "natural"


def test_runtime_panels_keep_dedupe_settings_apart_and_need_a_size_range():
    rows = []
    for n, nd in ((40, 0.8), (160, 0.8), (40, None), (160, None)):
        rows += [row(run_id=f"r{n}{nd}", source="retrieval", n_candidates=n, near_dup=nd)]
    rows += [row(run_id=f"c{n}", source="conversation", n_candidates=n) for n in (28, 30, 32)]
    panels = runtime_panels(frame(rows))
    assert [(s, nd, sorted(p["n_candidates"])) for s, nd, p in panels] == [
        ("retrieval", "0.8", [40, 160]), ("retrieval", "off", [40, 160])]