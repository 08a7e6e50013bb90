"""`packbench gate`: a user's config with a strategy from outside the project, gated against committed results."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from packbench.experiments.cli import main as cli_main
from packbench.experiments.gate import CellStats, Tolerances, compare_cells, parse_tolerances

CONFIG = """
name = "user_gate"
seeds = [0, 1]
repeats = 1
budgets = [0.3]
near_dup = ["off"]
reference = "exact_dp"

[[sources]]
name = "pisinger"
cls = ["uncorrelated"]
n = 12

[[strategies]]
name = "greedy"

[[strategies]]
name = "mystrat:by_density"

[gate]
ratio_mean = 0.001
ratio_worst = 0.001
"""

# The user's strategy: density order (good) or its reverse (a planted quality drop).
STRATEGY = """
def by_density(items, budget):
    room = budget - sum(it.tokens for it in items if it.pinned)
    out = []
    for it in sorted((it for it in items if not it.pinned), key=lambda it: -it.score / it.tokens){reverse}:
        if it.tokens <= room:
            out.append(it.id)
            room -= it.tokens
    return out
"""


def _write_strategy(tmp, worse: bool) -> None:
    (tmp / "mystrat.py").write_text(STRATEGY.replace("{reverse}", "[::-1]" if worse else ""))
    for cached in (tmp / "__pycache__").glob("mystrat*"):
        cached.unlink()


def _run(tmp, out: str) -> None:
    subprocess.run([sys.executable, "-m", "packbench", "run", "user.toml", "--out", out], cwd=tmp, check=True,
                   capture_output=True)


@pytest.fixture
def user_project(tmp_path, monkeypatch):
    (tmp_path / "user.toml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_gate_fails_on_a_planted_quality_drop_and_passes_an_improvement(user_project, capsys):
    tmp = user_project
    _write_strategy(tmp, worse=True)
    _run(tmp, "committed_worse")
    _write_strategy(tmp, worse=False)
    _run(tmp, "committed_good")

    # The good strategy against results committed from the worse one: an improvement, exit 0.
    code = cli_main(["gate", "user.toml", "--baseline", "committed_worse", "--results", "committed_good",
                     "--markdown", "gate.md", "--junit", "gate.xml"])
    out = capsys.readouterr().out
    assert code == 0 and "no regressions" in out
    assert "pisinger / 0.3 / mystrat:by_density" in out and "improved" in out
    md = (tmp / "gate.md").read_text()
    assert "**no regressions**" in md and "| ✓ | pisinger / 0.3 / mystrat:by_density | improved |" in md
    suite = ET.parse(tmp / "gate.xml").getroot().find("testsuite")
    assert suite.get("failures") == "0" and int(suite.get("tests")) == 2

    # The planted drop (the code changed back to the worse order) against the good results: exit 1.
    _write_strategy(tmp, worse=True)
    code = cli_main(["gate", "user.toml", "--baseline", "committed_good", "--markdown", "gate.md",
                     "--junit", "gate.xml"])
    out = capsys.readouterr().out
    assert code == 1 and "1 regression(s)" in out
    lines = out.splitlines()
    k = next(i for i, ln in enumerate(lines) if "mystrat:by_density" in ln)
    assert lines[k].startswith("!!") and " worse " in lines[k]  # the cell's figures, then why it failed
    assert "ratio_mean:" in lines[k + 1] and "(tolerance 0.001)" in lines[k + 1]
    assert "greedy" in out and "!! pisinger / 0.3 / greedy" not in out
    failure = ET.parse(tmp / "gate.xml").getroot().find("testsuite/testcase/failure")
    assert "ratio_mean" in failure.get("message")
    assert "**1 regression(s)**: `pisinger / 0.3 / mystrat:by_density`" in (tmp / "gate.md").read_text()

    # A tolerance from the command line wide enough to accept the drop.
    assert cli_main(["gate", "user.toml", "--baseline", "committed_good", "--tol-ratio-mean", "1",
                     "--tol-ratio-worst", "1"]) == 0


def test_gate_cannot_run_exits_2_with_the_reason(user_project, capsys):
    tmp = user_project
    _write_strategy(tmp, worse=False)  # its own: alone (or on its own xdist worker) no other test wrote it
    assert cli_main(["gate", "user.toml", "--baseline", "nowhere"]) == 2
    assert "runs.jsonl" in capsys.readouterr().err
    (tmp / "bad.toml").write_text(CONFIG.replace("ratio_mean = 0.001", "ratio_maen = 0.001"))
    assert cli_main(["gate", "bad.toml", "--baseline", "nowhere"]) == 2
    assert "ratio_maen" in capsys.readouterr().err
    assert cli_main(["gate", "user.toml", "--baseline", "nowhere", "--tol-speed", "0.5"]) == 2


def _stats(**kw) -> CellStats:
    base = dict(runs=4, measured=4, ratio_mean=0.9, ratio_worst=0.8, answer_recall=0.5, leakage=0.1,
                budget_violations=0, errors=0, timeouts=0)
    return CellStats(**{**base, **kw})


def test_each_figure_fails_in_its_bad_direction_only():
    key = ("src", "0.3", "s")
    tol = Tolerances()
    cases = {"ratio_mean": 0.8, "ratio_worst": 0.7, "answer_recall": 0.4, "leakage": 0.2,
             "budget_violations": 1, "errors": 1, "timeouts": 1}
    for figure, bad in cases.items():
        [v] = compare_cells({key: _stats()}, {key: _stats(**{figure: bad})}, tol)
        assert v.failed and figure in v.regressions[0], figure
    better = compare_cells({key: _stats()}, {key: _stats(ratio_mean=0.95, leakage=0.0)}, tol)[0]
    assert better.status == "improved" and not better.failed
    within = compare_cells({key: _stats()}, {key: _stats(ratio_mean=0.897)}, tol)[0]
    assert within.status == "ok"
    gone = compare_cells({key: _stats()}, {}, tol)[0]
    assert gone.failed and gone.status == "missing"
    lost = compare_cells({key: _stats()}, {key: _stats(ratio_mean=None, ratio_worst=None)}, tol)[0]
    assert lost.failed


def test_tolerances_are_validated_by_name():
    assert parse_tolerances({"errors": 2.0}).errors == 2
    for table, msg in (({"ratio": 1}, "unknown key 'ratio'"), ({"errors": 1.5}, "whole number"),
                       ({"leakage": -0.1}, ">= 0"), ({"speed": 0.9}, "speed"), ({"ratio_mean": "x"}, "number")):
        with pytest.raises(ValueError, match=msg):
            parse_tolerances(table)


SLOW_LINE = "    sum(range(400_000))  # planted slowdown: milliseconds per call, whatever the instance\n"


def _git(tmp, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp, check=True,
                   capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_gate_against_a_revision_of_the_users_project_flags_the_planted_slowdown(user_project, capsys):
    tmp = user_project
    _write_strategy(tmp, worse=False)
    _git(tmp, "init", "-q")
    _git(tmp, "add", "mystrat.py", "user.toml")
    _git(tmp, "commit", "-qm", "base")
    _git(tmp, "tag", "base")
    _run(tmp, "committed")
    # The same choices, slower: quality passes, speed fails for that strategy's cell only.
    (tmp / "mystrat.py").write_text(STRATEGY.replace("{reverse}", "").replace(
        "    room = budget", SLOW_LINE + "    room = budget"))
    # --results reuses the committed rows: the quality side is not what this test is about.
    # A slowdown of milliseconds on a strategy of microseconds: a few pairs see it (--pairs buys power).
    code = cli_main(["gate", "user.toml", "--baseline", "committed", "--results", "committed", "--against", "base",
                     "--pairs", "4"])
    out = capsys.readouterr().out
    assert code == 1 and "your project's working tree vs REF" in out
    flagged = [ln for ln in out.splitlines() if ln.startswith("!!")]
    assert len(flagged) == 1 and "speed: pisinger / 0.3 / mystrat:by_density" in flagged[0]
    assert "slower" in flagged[0]
    assert any(ln.startswith("   speed: pisinger / 0.3 / greedy") for ln in out.splitlines())

    # The REF side really ran REF's code: against the slow revision itself, nothing is slower.
    _git(tmp, "commit", "-qam", "slow")
    assert cli_main(["gate", "user.toml", "--baseline", "committed", "--results", "committed",
                     "--against", "HEAD", "--pairs", "4"]) == 0


def test_gate_against_a_ref_that_is_not_there_exits_2_before_running(user_project, capsys):
    tmp = user_project
    (tmp / "committed").mkdir()
    (tmp / "committed" / "runs.jsonl").write_text("")
    assert cli_main(["gate", "user.toml", "--baseline", "committed", "--against", "base"]) == 2
    err = capsys.readouterr().err
    assert "--against base needs the working directory" in err and "inside a git repository" in err
    if shutil.which("git") is not None:
        _git(tmp, "init", "-q")
        assert cli_main(["gate", "user.toml", "--baseline", "committed", "--against", "nosuchref"]) == 2
        assert "REF 'nosuchref' is not a commit of" in capsys.readouterr().err
