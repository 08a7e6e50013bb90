"""The user gate's speed check: the stage it times, the rule it judges by, its options, history and scope."""

from __future__ import annotations

import json
import sys
import time

import pytest

from packbench.algorithms import Packing
from packbench.experiments.bench.check import scope_note
from packbench.experiments.bench.compare import detectable, judge_speed
from packbench.experiments.bench.stats import paired
from packbench.experiments.cli import main as cli_main
from packbench.experiments.gate import speed_suite
from packbench.experiments.gate.history import HISTORY_FILE, append_record, load_history
from packbench.experiments.gate.status import Speed
from packbench.experiments.gate.tolerances import parse_tolerances
from packbench.experiments.storage import RunStore

CONFIG = """
name = "speedy"
seeds = [0]
repeats = 3
budgets = [0.3, 0.6]
near_dup = [0.8]
reference = "exact_dp"

[[sources]]
name = "pisinger"
cls = ["uncorrelated"]
n = 12

[[strategies]]
name = "userstrat:busy"
"""

STRATEGY = """
import time

CALLS = [0]  # how many times the strategy ran: what a stage's timed call must (not) include


def busy(items, budget):
    CALLS[0] += 1
    end = time.process_time() + 0.01  # 10 ms of CPU per call, whatever the instance
    while time.process_time() < end:
        pass
    return [items[0].id]
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "user.toml").write_text(CONFIG)
    (tmp_path / "userstrat.py").write_text(STRATEGY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(speed_suite.CONFIG_ENV, str(tmp_path / "user.toml"))
    return tmp_path


@pytest.mark.parametrize("stage", ["select", "pack", "dedupe", "order"])
def test_the_speed_suite_times_the_chosen_stage_of_each_cell(project, monkeypatch, stage):
    monkeypatch.setenv(speed_suite.STAGE_ENV, stage)
    cases = speed_suite.build_suite(True)
    assert [c.name for c in cases] == ["pisinger / 0.3 / userstrat:busy", "pisinger / 0.6 / userstrat:busy"]
    state = cases[0].setup()
    calls = sys.modules["userstrat"].CALLS
    before = calls[0]
    start = time.process_time()
    out = cases[0].run(state)
    spent = time.process_time() - start
    if stage == "select":  # the user's function alone: its ids, its 10 ms
        assert isinstance(out, list) and spent >= 0.01 and calls[0] == before + 1
    elif stage == "pack":
        assert isinstance(out, Packing) and spent >= 0.01 and calls[0] == before + 1
    else:  # dedupe and order do not run the strategy (counted, not timed: a busy machine cannot flip it)
        assert calls[0] == before


def test_the_fill_stage_times_the_configs_fill(project, monkeypatch):
    monkeypatch.setenv(speed_suite.STAGE_ENV, "fill")
    [case, _] = speed_suite.build_suite(True)
    with pytest.raises(RuntimeError, match=r"runs no fill stage \(the config sets no `fill`\)"):
        case.setup()
    (project / "user.toml").write_text(CONFIG.replace('reference = "exact_dp"', 'reference = "exact_dp"\nfill = "truncate"'))
    [case, _] = speed_suite.build_suite(True)
    state = case.setup()
    calls = sys.modules["userstrat"].CALLS
    before = calls[0]
    ordered, _truncated = case.run(state)  # the fill's apply alone (what it returns), not the strategy
    assert calls[0] == before and all(hasattr(it, "tokens") for it in ordered)


def test_gate_refuses_stage_fill_once_when_the_config_sets_no_fill(project, capsys):
    (project / "base").mkdir()
    assert cli_main(["gate", "user.toml", "--baseline", "base", "--against", "HEAD", "--stage", "fill"]) == 2
    err = capsys.readouterr().err
    assert err.count("--stage fill") == 1 and "sets no `fill`" in err and "fill = " in err
    assert not (project / "results").exists()  # refused before anything ran


def _p(ratios, ref=0.001):
    return paired([r * ref for r in ratios], [ref] * len(ratios))


def test_the_user_rule_fails_a_real_slowdown_over_the_tolerance_only():
    tight = [1.18, 1.2, 1.22, 1.19, 1.21, 1.2, 1.2, 1.23, 1.17, 1.2, 1.21, 1.19]
    assert judge_speed(_p(tight), 1.1, 0.0, real_at_median=True)[0] == Speed.SLOWER
    assert judge_speed(_p(tight), 1.1, 0.0)[0] == Speed.SLOWER  # the bench's rule: the interval over 1.1
    wide = [0.9, 1.5, 1.3, 1.0, 1.4, 1.25, 0.95, 1.3, 1.2, 1.45, 0.98, 1.35]
    assert judge_speed(_p(wide), 1.1, 0.0, real_at_median=True)[0] == Speed.UNSURE  # interval reaches 1
    assert judge_speed(_p([1.05] * 12), 1.1, 0.0, real_at_median=True)[0] == Speed.OK
    # A floor per call: 0.2 us slower per 1 us call is under a 1 us floor.
    assert judge_speed(_p(tight, ref=1e-6), 1.1, 1e-6, real_at_median=True)[0] == Speed.OK


def test_detectable_slowdown_grows_with_the_noise_and_the_floor():
    quiet, noisy = _p([1.0, 1.01, 0.99] * 8), _p([0.8, 1.0, 1.25] * 8)
    assert detectable(quiet, 1.1, 0.0, real_at_median=True) == pytest.approx(1.1)
    assert detectable(noisy, 1.1, 0.0, real_at_median=True) == pytest.approx(1.25)
    assert detectable(quiet, 1.1, 0.0005, real_at_median=True) == pytest.approx(1.5)  # 0.5 ms on 1 ms calls
    assert detectable(quiet, 1.1, 0.0) == pytest.approx(1.1 * 1.0 / 0.99)  # the bench's rule: tolerance x spread


def test_gate_table_holds_the_speed_settings():
    tol = parse_tolerances({"speed": 1.2, "floor": 0, "pairs": 20, "stage": "order"})
    assert (tol.speed, tol.floor, tol.pairs, tol.stage) == (1.2, 0.0, 20, "order")
    for table, msg in (({"stage": "strategy"}, "stage: must be one of select"), ({"pairs": 0}, "pairs: must be >= 1"),
                       ({"floor": -1e-3}, "floor: must be >= 0"), ({"pairs": 2.5}, "whole number")):
        with pytest.raises(ValueError, match=msg):
            parse_tolerances(table)


def test_rows_carry_cpu_time_per_stage(project):
    assert cli_main(["run", "user.toml", "--out", "res", "--yes"]) == 0
    rows = RunStore(project / "res").load()
    assert rows and all(r["status"] == "ok" for r in rows)
    for r in rows:
        assert r["cpu_select_s"] >= 0.01 and r["cpu_pack_s"] >= r["cpu_select_s"] + r["cpu_dedupe_s"]
        assert r["cpu_fill_s"] is None  # no fill ran


def test_history_store_appends_and_draws_over_commits(tmp_path, capsys):
    for k, ms in enumerate((1.0, 1.6)):
        append_record(tmp_path, {"commit": f"{k:040d}", "dirty": False, "cells": {"s / 0.3 / a": {"ratio_mean": 0.9}},
                                 "speed": {"s / 0.3 / a": {"ms_now": ms, "ratio": 1.0 + k}}})
    with open(tmp_path / HISTORY_FILE, "ab") as fh:
        fh.write(b"\0\0\0\n")
    records, bad = load_history(tmp_path)
    assert [r["speed"]["s / 0.3 / a"]["ms_now"] for r in records] == [1.0, 1.6] and bad == 1
    assert cli_main(["report", "--history", str(tmp_path)]) == 0
    assert "skipped 1 unreadable line" in capsys.readouterr().err
    for name in ("history_speed.png", "history_quality.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(FileNotFoundError, match="no history.jsonl"):
        load_history(tmp_path / "none")


def test_bench_check_says_it_benchmarks_packbench_outside_its_checkout(tmp_path):
    note = scope_note(tmp_path)
    assert note is not None and "benchmarks packbench itself" in note and "packbench gate" in note
    from packbench.experiments.bench.check import source_root
    root = source_root()
    if root is not None:
        assert scope_note(root) is None


def _row(name, speed, ratios=None):
    from packbench.experiments.bench.compare import CheckRow
    from packbench.experiments.gate.status import Quality

    p = _p(ratios) if ratios else None
    return CheckRow(name, speed, Quality.OK, p, (f"{speed}: first sentence",) if speed != Speed.OK else ())


def test_a_slower_cell_fails_only_when_a_second_pass_in_fresh_processes_confirms_it():
    from packbench.experiments.gate.confirm import confirm_slower

    first = [_row("real", Speed.SLOWER, [1.5] * 12), _row("fluke", Speed.SLOWER, [1.14] * 12),
             _row("clean", Speed.OK, [1.0] * 12), _row("noisy", Speed.UNSURE, [1.2, 0.9] * 6)]
    asked = []

    def retime(names):  # a planted fake: the real slowdown holds, the fluke does not
        asked.append(list(names))
        return [_row("real", Speed.SLOWER, [1.48] * 12), _row("fluke", Speed.OK, [1.01] * 12)]

    rows, again = confirm_slower(first, retime)
    by = {r.name: r for r in rows}
    assert asked == [["real", "fluke"]]  # one second pass, over the slower cells only
    assert by["real"].speed == Speed.SLOWER and by["real"].failed
    assert by["real"].notes[0].startswith("slower: first sentence; confirmed by a second pass") and "1.480x" in by["real"].notes[0]
    assert by["fluke"].speed == Speed.UNSURE and not by["fluke"].failed
    assert "not confirmed" in by["fluke"].notes[0] and "1.140x" in by["fluke"].notes[0] and "1.010x" in by["fluke"].notes[0]
    assert by["clean"] is first[2] and by["noisy"] is first[3]  # cells that passed are not timed again
    assert set(again) == {"real", "fluke"}


def test_a_clean_first_pass_costs_no_confirmation_and_a_confirmation_error_fails():
    from packbench.experiments.gate.confirm import confirm_slower

    def never(names):
        raise AssertionError(f"timed again: {names}")

    rows, again = confirm_slower([_row("a", Speed.OK, [1.0] * 12), _row("b", Speed.FASTER, [0.7] * 12)], never)
    assert [r.speed for r in rows] == [Speed.OK, Speed.FASTER] and again == {}
    err = _row("a", Speed.ERROR)
    err = type(err)("a", Speed.ERROR, err.quality, None, ("current tree: boom",))
    rows, _ = confirm_slower([_row("a", Speed.SLOWER, [1.5] * 12)], lambda names: [err])
    assert rows[0].speed == Speed.ERROR and rows[0].failed and "boom" in rows[0].notes[0]
    # A cell the confirmation did not return: nothing refuted the first pass, it still fails.
    rows, _ = confirm_slower([_row("a", Speed.SLOWER, [1.5] * 12)], lambda names: [])
    assert rows[0].speed == Speed.SLOWER and "missing from the confirmation" in rows[0].notes[-1]


def _two_runs(directory):
    for k, ms in enumerate((1.0, 1.6)):
        append_record(directory, {"commit": str(k) * 40, "dirty": False, "date": f"2026-01-0{k + 1}T00:00:00+00:00",
                                  "regressions": ["speed: s / 0.3 / a"] if k else [],
                                  "cells": {"s / 0.3 / a": {"ratio_mean": 0.9 + k / 100}},
                                  "speed": {"s / 0.3 / a": {"ms_now": ms, "ratio": 1.0 + k}}})


def test_history_page_is_self_contained_and_marks_the_failing_run(tmp_path):
    import re

    _two_runs(tmp_path)
    assert cli_main(["report", "--history", str(tmp_path)]) == 0
    page = (tmp_path / "history.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count('data-cell="s / 0.3 / a"') == 2  # speed and quality
    assert not re.search(r"(src|href)=\"(https?:)?//", page) and "<script" not in page  # nothing fetched or run
    # Run 2 failed its speed cell: that one point is red, its quality point is not.
    assert "0000000000" in page and "1111111111" in page and page.count('fill="#d62728"') == 1


def test_report_of_a_results_directory_gets_the_history_section_once(project, tmp_path):
    from packbench.experiments.report.html_history import SECTION_ID

    assert cli_main(["run", "user.toml", "--out", "res", "--yes"]) == 0
    store = tmp_path / "hist"
    _two_runs(store)
    for _ in range(2):  # drawn again: the section is replaced, not repeated
        assert cli_main(["report", "res", "--history", str(store)]) == 0
    page = (project / "res" / "report.html").read_text()
    assert page.count(f'<section id="{SECTION_ID}">') == 1 and page.index(SECTION_ID) < page.rindex("</body>")
    assert "Gate history" in page and "which strategy to ship" in page  # the run report's page is still there
    with pytest.raises(FileNotFoundError, match="no report.html"):
        from packbench.experiments.gate.history import draw_history
        draw_history(store, report_dir=tmp_path / "empty")


def test_the_confirmation_pass_gets_other_hash_seeds_cpus_and_side_order(monkeypatch, tmp_path):
    from packbench.experiments.bench import abtest
    from packbench.experiments.gate.confirm import CONFIRM_FIRST_ROUND

    seen = {"seeds": [], "cpus": [], "first": []}

    class FakeWorker:  # answers the worker protocol without a process
        def __init__(self, side, suite_file, full, log_dir, tag, hash_seed=0):
            self.label, self._last = side.label, None
            self.kernels = {}  # the real worker's hello line: which C kernels its tree loaded
            seen["seeds"].append(hash_seed)

        def send(self, msg):
            self._last = msg
            if msg["op"] == "time":
                seen["first"].append(self.label)

        def recv(self):
            if self._last["op"] == "prepare":
                return {"cases": {"c": {"seconds": 0.01, "quality": {}}}, "all": ["c"]}
            return {"seconds": 0.01}

        def close(self):
            pass

    monkeypatch.setattr(abtest, "_Worker", FakeWorker)
    monkeypatch.setattr(abtest, "_share_one_cpu", lambda wa, wb, rnd: seen["cpus"].append(rnd))
    sides = abtest.Side("A", None), abtest.Side("B", None)
    first = abtest.run_ab(*sides, rounds=2, pairs=2)
    base_seeds, base_cpus, base_order = seen["seeds"][:], seen["cpus"][:], seen["first"][::2]
    for k in seen:
        seen[k].clear()
    again = abtest.run_ab(*sides, rounds=2, pairs=2, first_round=CONFIRM_FIRST_ROUND)
    assert len(first.a["c"]) == len(again.a["c"]) == 4
    assert not set(seen["seeds"]) & set(base_seeds)  # other hash seeds: other set and dict layouts
    assert [r % 2 for r in seen["cpus"]] == [1 - r % 2 for r in base_cpus]  # each round on the other CPU
    assert seen["first"][::2] == ["B" if s == "A" else "A" for s in base_order]  # the other side first in each pair
