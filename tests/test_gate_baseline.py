"""Gates that refuse to compare against nothing: `packbench gate`'s baseline directory and `bench`'s baseline.json."""

from __future__ import annotations

import json

import pytest

from packbench.experiments.bench.baseline import load_baseline
from packbench.experiments.bench.compare import judge_quality
from packbench.experiments.cli import main as cli_main
from packbench.experiments.gate.baseline import BaselineError, check_coverage, load_baseline_cells
from packbench.experiments.gate.cells import CellStats
from packbench.experiments.gate.status import Quality

CONFIG = """
name = "refusals"
seeds = [0]
repeats = 1
budgets = [0.3]
near_dup = ["off"]
reference = "exact_dp"

[[sources]]
name = "pisinger"
cls = ["uncorrelated"]
n = 10

[[strategies]]
name = "greedy"
"""


def _row(run_id: str, strategy: str = "greedy", status: str = "ok", ratio=0.9) -> dict:
    return {"run_id": run_id, "source": "pisinger", "budget_spec": 0.3, "budget": 10, "strategy": strategy,
            "strategy_label": strategy, "status": status, "score_ratio": ratio if status == "ok" else None,
            "tokens": 5}


def _baseline(tmp_path, lines: list, name: str = "base"):
    d = tmp_path / name
    d.mkdir()
    (d / "runs.jsonl").write_bytes(b"".join(
        line if isinstance(line, bytes) else (json.dumps(line) + "\n").encode() for line in lines))
    return d


@pytest.mark.parametrize("lines, reason", [
    ([], "holds no rows"),
    ([b"\0" * 4096], "cannot be read"),
    ([_row("r1"), b"\0\0\0\n"], r"1 line\(s\) cannot be read"),
    ([_row("r1", status="error"), _row("r2", status="error")], "none of its 2 rows was measured"),
    ([_row("r1", ratio=float("nan"))], "ratio_mean, ratio_worst that is not a finite number"),
])
def test_a_baseline_that_cannot_be_compared_with_is_refused_with_the_reason(tmp_path, lines, reason):
    with pytest.raises(BaselineError, match=reason):
        load_baseline_cells(_baseline(tmp_path, lines))


def test_new_cells_need_allow_new():
    stats = CellStats(1, 1, 0.9, 0.9, None, None, 0, 0, 0)
    unmeasured = CellStats(1, 0, None, None, None, None, 0, 1, 0)
    base = {("s", "0.3", "a"): stats, ("s", "0.3", "b"): unmeasured}
    new = {("s", "0.3", "a"): stats, ("s", "0.3", "b"): stats, ("s", "0.3", "c"): stats}
    with pytest.raises(BaselineError, match=r"no measured row for 2 cell\(s\).*s / 0.3 / b \(its baseline rows "
                                            r"are not measured\); s / 0.3 / c; pass --allow-new"):
        check_coverage(base, new, False, "base")
    check_coverage(base, new, True, "base")  # accepted explicitly
    check_coverage(base, {("s", "0.3", "a"): stats}, False, "base")


def test_gate_exits_2_before_running_on_a_baseline_of_nul_bytes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user.toml").write_text(CONFIG)
    _baseline(tmp_path, [b"\0" * 100])
    assert cli_main(["gate", "user.toml", "--baseline", "base"]) == 2
    err = capsys.readouterr().err
    assert "cannot be read as result rows" in err and not (tmp_path / "results").exists()


def test_gate_refuses_a_cell_the_baseline_lacks_unless_allow_new(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "user.toml").write_text(CONFIG)
    _baseline(tmp_path, [_row("x", strategy="other")])
    assert cli_main(["gate", "user.toml", "--baseline", "base", "--out", "gate"]) == 2
    assert "pisinger / 0.3 / greedy; pass --allow-new" in capsys.readouterr().err
    # Accepted explicitly: the new cell is reported, the baseline's own cell is missing (a regression).
    assert cli_main(["gate", "user.toml", "--baseline", "base", "--out", "gate", "--allow-new",
                     "--history", "hist"]) == 1
    out = capsys.readouterr().out
    assert "   pisinger / 0.3 / greedy" in out and " new " in out and "!! pisinger / 0.3 / other" in out
    doc = json.loads((tmp_path / "gate" / "gate.json").read_text())
    assert doc["cells"]["pisinger / 0.3 / greedy"]["status"] == "new"
    assert doc["regressions"] == ["pisinger / 0.3 / other"]
    assert (tmp_path / "gate" / "gate.md").is_file() and (tmp_path / "gate" / "runs.jsonl").is_file()
    [record] = [json.loads(line) for line in (tmp_path / "hist" / "history.jsonl").read_text().splitlines()]
    assert record["cells"] == doc["cells"] and record["date"] and "machine" in record


def test_gate_accepts_a_shipped_config_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _baseline(tmp_path, [])
    assert cli_main(["gate", "smoke", "--baseline", "base"]) == 2
    err = capsys.readouterr().err
    assert "holds no rows" in err and "No such file" not in err  # the name resolved; the empty baseline refused


def _bench_doc(tmp_path, case) -> object:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({"version": 2, "commit": None, "cases": {"dp/x": case}}))
    return path


@pytest.mark.parametrize("case, reason", [
    ({"quality": {"score": 1.0}, "ratio_to_reference": float("nan")}, r"cases\.dp/x\.ratio_to_reference"),
    ({"quality": {"score": 1.0}, "ratio_to_reference": -2.0}, r"ratio_to_reference: Input should be greater than 0"),
    ("not a case", r"cases\.dp/x: Input should be a valid dictionary"),
    ({"quality": {"score": float("inf")}}, r"figure 'score' is inf"),
    ({"quality": "score"}, r"cases\.dp/x\.quality"),
])
def test_bench_baseline_is_validated_with_the_path_to_the_broken_field(tmp_path, case, reason):
    with pytest.raises(ValueError, match=reason):
        load_baseline(_bench_doc(tmp_path, case))


def test_bench_baseline_figures_that_are_not_the_cases_fail_instead_of_improving():
    current = {"score": 3.0, "ids": "ab"}
    status, notes = judge_quality(current, None, {"bogus": 123})
    assert status == Quality.CHANGED and "baseline only: bogus; case only: ids, score" in notes[0]
