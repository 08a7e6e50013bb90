"""Watched worker processes: a plug-in that exits, kills its process, hangs, raises or returns a NaN bound
costs only its own runs (an `error` row naming it and the cause); the other runs are written, and a resume
does not repeat the crash."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from packbench.experiments.config import parse_config
from packbench.experiments.executors import Processes, Serial
from packbench.experiments.runner import TIMING_COLUMNS, run_experiment
from packbench.experiments.storage import RunStore

NOT_RESULTS = set(TIMING_COLUMNS) | {"git_commit", "git_dirty", "code"}
BASE = {"name": "rogue", "repeats": 1, "seeds": [0, 1], "budgets": [0.4], "near_dup": ["off"],
        "reference": "exact_dp", "sources": [{"name": "pisinger", "n": 12, "R": 100}], "plots": []}
ROGUES = {"tests.rogue:exits": r"SystemExit: 3",
          "tests.rogue:kills": r"strategy 'tests.rogue:kills' \(order 'original', source 'pisinger'\): its worker "
                               r"process exited with code 7",
          "tests.rogue:hangs": r"strategy 'tests.rogue:hangs' .*: it ran over the per-run limit of 5 s \(wall time\) "
                               r"and its worker was killed",
          "tests.rogue:raises": r"ZeroDivisionError: bug in the plug-in",
          "tests.rogue:NanBound": r"strategy 'tests.rogue:NanBound' returned Selection.upper_bound=nan"}


def rows(out):
    return {r["run_id"]: {k: v for k, v in r.items() if k not in NOT_RESULTS} for r in RunStore(out).load()}


def test_rogue_plugins_cost_only_their_own_runs_and_resume_does_not_repeat_them(tmp_path):
    builtins = ["greedy", "exact_dp"]
    cfg = parse_config({**BASE, "strategies": [builtins[0], *ROGUES, builtins[1]]})
    # 5 s: a wall-clock limit, generous enough that a built-in run on a busy machine never reaches it
    manifest = run_experiment(cfg, tmp_path / "rogue", executor=Processes(2, batch_runs=8, run_timeout=5.0),
                              progress=False)
    got = rows(tmp_path / "rogue")
    assert len(got) == manifest["runs_total"] == 2 * 7
    for strategy, reason in ROGUES.items():
        mine = [r for r in got.values() if r["strategy"] == strategy]
        assert len(mine) == 2 and all(r["status"] == "error" for r in mine)
        assert all(re.search(reason, r["reason"]) for r in mine), [r["reason"] for r in mine]
    # the built-in strategies' rows are those of a run without the plug-ins
    clean = parse_config({**BASE, "strategies": builtins})
    run_experiment(clean, tmp_path / "clean", executor=Serial(), progress=False)
    expected = rows(tmp_path / "clean")
    assert {rid: r for rid, r in got.items() if r["strategy"] in builtins} == expected
    assert all(r["status"] == "ok" for r in expected.values())
    # the crashes are recorded, so a resume has nothing to do (and does not hang on the plug-in again)
    again = run_experiment(cfg, tmp_path / "rogue", executor=Processes(2, run_timeout=5.0), progress=False)
    assert again["runs_resumed"] == again["runs_total"] == len(got)


class _DiesBeforeAnyRun:
    """A task whose worker dies before it announces a run (a broken installation, not a run's fault)."""

    def events(self, batch):
        import os
        os._exit(9)
        yield  # pragma: no cover - a generator that never gets here


def test_a_worker_that_dies_outside_any_run_again_and_again_stops_the_sweep():
    from packbench.experiments.planning import plan

    planned = plan(parse_config({**BASE, "strategies": ["greedy"]}))
    with pytest.raises(RuntimeError, match=r"died 3 times in a row outside any run \(its worker process exited "
                                           r"with code 9"):
        list(Processes(1).map(_DiesBeforeAnyRun(), [planned]))


def test_run_timeout_must_be_positive():
    with pytest.raises(ValueError, match="run_timeout must be a number of seconds > 0"):
        Processes(1, run_timeout=0)


def test_the_cli_names_outside_components_and_no_plugins_refuses_them_before_importing(tmp_path):
    marker = tmp_path / "imported"
    (tmp_path / "planted.py").write_text(f"open({str(marker)!r}, 'w').close()\n"
                                         "def f(items, budget):\n    return []\n")
    cfg = tmp_path / "planted.toml"
    cfg.write_text('name = "planted"\nrepeats = 1\nbudgets = [0.5]\nplots = []\n[[sources]]\nname = "traps"\n'
                   '[[strategies]]\nname = "greedy"\n[[strategies]]\nname = "planted:f"\n')
    env_path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    refused = subprocess.run([sys.executable, "-m", "packbench", "run", str(cfg), "--out", str(tmp_path / "o"),
                              "--no-plugins"], check=False, capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PYTHONPATH": env_path})
    assert refused.returncode == 2
    assert "--no-plugins, and the config names outside components" in refused.stderr
    assert "strategy 'planted:f' (import path)" in refused.stderr
    assert not marker.exists()  # refused before the module ran
    ran = subprocess.run([sys.executable, "-m", "packbench", "run", str(cfg), "--out", str(tmp_path / "o"),
                          "--workers", "1", "--no-progress"], check=False, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": env_path})
    assert ran.returncode == 0, ran.stderr
    assert "planted.toml imports code from outside packbench" in ran.stderr
    assert "on processes (1 worker)" in ran.stderr  # outside code runs in a watched worker, even with one
    assert marker.exists()
    statuses = {json.loads(line)["strategy"] for line in (tmp_path / "o" / "runs.jsonl").read_text().splitlines()}
    assert statuses == {"greedy", "planted:f"}


def test_the_time_estimate_never_runs_outside_code_in_the_driver(tmp_path):
    # Calibrating times sample runs in the driver's own process, where a plug-in that exits would end the
    # whole command: a config with outside code is planned and counted, but gets no estimate.
    (tmp_path / "quits.py").write_text("import os\ndef f(items, budget):\n    os._exit(9)\n")
    cfg = tmp_path / "quits.toml"
    cfg.write_text('name = "quits"\nrepeats = 1\nbudgets = [0.5]\nplots = []\n[[sources]]\nname = "traps"\n'
                   '[[strategies]]\nname = "greedy"\n[[strategies]]\nname = "quits:f"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    dry = subprocess.run([sys.executable, "-m", "packbench", "run", str(cfg), "--out", str(tmp_path / "o"),
                          "--dry-run"], check=False, capture_output=True, text=True, timeout=300, env=env)
    assert dry.returncode == 0, dry.stderr
    assert "no time estimate: the config runs outside code" in dry.stdout
    assert re.search(r"traps\s+quits:f\s+\d", dry.stdout)  # still counted
