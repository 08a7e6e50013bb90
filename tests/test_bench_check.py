"""`bench --check`'s verdict logic: the interval, speed and quality semantics, the baseline, CI output."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.experiments.bench import check
from packbench.experiments.bench.abtest import ABResult
from packbench.experiments.bench.baseline import baseline_diff, load_baseline, merge_baseline
from packbench.experiments.bench.ci_output import Outcome, markdown_table, write_junit
from packbench.experiments.bench.compare import CheckRow, format_check, judge_quality, judge_speed
from packbench.experiments.gate.status import Quality, Speed
from packbench.experiments.bench.stats import median_interval, paired
from packbench.experiments.cli import main as cli_main


def test_sign_interval_order_statistics():
    xs = list(range(1, 11))  # n = 10: P(X <= 1) = 11/1024 <= 0.025 < P(X <= 2), so ranks 2 and 9
    assert median_interval(xs, 0.95) == (2, 9)
    assert median_interval(xs[:5], 0.95) == (1, 5)  # too few for 95%: the extremes
    assert median_interval([3.0]) == (3.0, 3.0)
    with pytest.raises(ValueError, match="at least one"):
        median_interval([])
    with pytest.raises(ValueError, match="confidence"):
        median_interval([1.0], 1.5)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.01, 100), min_size=1, max_size=40), st.floats(0.5, 0.99))
def test_interval_brackets_the_median_and_covers_at_least_the_level(xs, conf):
    low, high = median_interval(xs, conf)
    xs_sorted = sorted(xs)
    med = (xs_sorted[(len(xs) - 1) // 2] + xs_sorted[len(xs) // 2]) / 2
    assert low <= med <= high
    k = xs_sorted.index(low) + 1
    n = len(xs)
    coverage = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n
    assert coverage >= conf or k == 1


def test_paired_summary_and_errors():
    p = paired([2.0, 2.2, 1.8], [1.0, 1.0, 1.0])
    assert p.n == 3 and p.ratio == 2.0 and p.diff == pytest.approx(1.0)
    with pytest.raises(ValueError, match="equally many"):
        paired([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive"):
        paired([1.0], [0.0])


def _p(ratios, ref=0.1):
    return paired([r * ref for r in ratios], [ref] * len(ratios))


def test_speed_fails_only_when_the_interval_clears_the_tolerance_and_the_floor():
    assert judge_speed(_p([2.0] * 10), 1.3, 0.005)[0] == Speed.SLOWER
    assert judge_speed(_p([2.0] * 10, ref=0.001), 1.3, 0.005)[0] == Speed.OK  # 1 ms slower: under the floor
    noisy = [2.0] * 6 + [1.0] * 4  # median 2, interval down to 1
    assert judge_speed(_p(noisy), 1.3, 0.005)[0] == Speed.UNSURE
    assert judge_speed(_p([1.1] * 10), 1.3, 0.005)[0] == Speed.OK
    assert judge_speed(_p([0.5] * 10), 1.3, 0.005)[0] == Speed.FASTER
    status, sentence = judge_speed(_p([2.0] * 10), 1.3, 0.005)
    assert "2.00x" in sentence and "tolerance 1.3x" in sentence


def test_quality_semantics():
    base = {"score": 3.0, "ids": "aa", "optimal": True}
    assert judge_quality(base, base, base)[0] == Quality.OK
    better = {"score": 3.5, "ids": "bb", "optimal": True}
    assert judge_quality(better, base, base)[0] == Quality.IMPROVED
    assert judge_quality(better, better, base)[0] == Quality.STALE  # changed before REF: passes, asks for an update
    assert judge_quality(better, base, better)[0] == Quality.OK  # accepted with --update-baseline
    status, notes = judge_quality({"score": 2.9, "ids": "aa", "optimal": True}, base, base)
    assert status == Quality.WORSE and "score: 3.0 -> 2.9" in notes[0]
    assert judge_quality({"score": 3.0, "ids": "aa", "optimal": None}, base, base)[0] == Quality.WORSE
    assert judge_quality({"error": "ValueError"}, base, base)[0] == Quality.WORSE
    assert judge_quality({"score": 3.0, "ids": "cc", "optimal": True}, base, base)[0] == Quality.EQUIVALENT
    assert judge_quality({"ids": "cc", "n": 4}, {"ids": "aa", "n": 4}, None)[0] == Quality.CHANGED
    assert judge_quality({"n": 1}, None, None)[0] == Quality.NEW
    assert judge_quality(better, None, base)[0] == Quality.IMPROVED  # no REF: judged against the baseline


def test_rows_fail_on_speed_or_quality_and_the_table_names_them():
    rows = [CheckRow("a", Speed.SLOWER, Quality.OK, _p([2.0] * 10), ("slower: 2.00x",)),
            CheckRow("b", Speed.OK, Quality.WORSE, _p([1.0] * 10), ("score: 3 -> 2",)),
            CheckRow("c", Speed.OK, Quality.IMPROVED), CheckRow("d", Speed.FASTER, Quality.STALE)]
    assert [r.failed for r in rows] == [True, True, False, False]
    table = format_check(rows)
    assert "2 regression(s): a, b" in table and "!! a" in table and "score: 3 -> 2" in table


def test_baseline_merge_diff_and_errors(tmp_path):
    old = {"version": 1, "reference_seconds": 0.03,
           "cases": {"a": {"seconds": 1.0, "quality": {"score": 1}}, "b": {"quality": {"n": 2}}}}
    new = merge_baseline(old, {"a": {"score": 2}, "c": {"n": 1}}, {"a": ("ref", 1.23456789)},
                         {"a": True, "c": False}, "abc")
    assert new["commit"] == "abc" and new["cases"]["b"] == {"quality": {"n": 2}}
    assert new["cases"]["a"] == {"quality": {"score": 2}, "quick": True, "reference": "ref",
                                 "ratio_to_reference": 1.234568}
    assert baseline_diff(old, new) == ["~ a: score 1 -> 2", "+ c: {'n': 1}"]
    with pytest.raises(FileNotFoundError, match="--update-baseline"):
        load_baseline(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("[1]")
    with pytest.raises(ValueError, match="bad.json"):
        load_baseline(tmp_path / "bad.json")


def test_markdown_and_junit(tmp_path):
    outcomes = [Outcome("solver/x", True, ("slower", "2.0"), "slower: 2.00x [1.9, 2.1]"),
                Outcome("a|b", False, ("ok", "1.0"))]
    md = markdown_table("gate", ("speed", "ratio"), outcomes, intro="Mode: paired.")
    assert "**1 regression(s)**: `solver/x`" in md and "a\\|b" in md
    assert md.index("solver/x |") < md.index("a\\|b")  # failures first
    write_junit(tmp_path / "j.xml", "packbench.bench", outcomes)
    suite = ET.parse(tmp_path / "j.xml").getroot().find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = suite.find("testcase[@name='solver/x']/failure")
    assert "2.00x" in failure.get("message")


def test_cli_exit_2_when_ref_cannot_be_found(capsys):
    assert cli_main(["bench", "--check", "--quick", "--against", "no-such-revision-xyz"]) == 2
    assert "no-such-revision-xyz" in capsys.readouterr().err
    assert cli_main(["bench", "--check", "--tolerance", "0.5"]) == 2


def test_committed_baseline_covers_the_suite_with_reference_ratios():
    from packbench.experiments.bench import build_suite
    from packbench.experiments.commands.bench import default_baseline

    doc = load_baseline(default_baseline())
    assert doc["version"] == 2 and json.dumps(doc)
    for case in build_suite(quick=True):
        entry = doc["cases"][case.name]
        assert entry["quality"] and (case.reference or entry["ratio_to_reference"] > 0), case.name



def test_unsure_cases_are_timed_again_until_decided_within_the_follow_up_limit(monkeypatch):
    # Six pairs at 2x with one disturbed pair at 1.0x: with 6 pairs the interval is min..max, so unsure.
    first = {"slow": ([2.0] * 5 + [1.0], [1.0] * 6), "same": ([1.0] * 6, [1.0] * 6)}
    later = ([2.0] * 6, [1.0] * 6)
    calls: list[list[str] | None] = []

    def fake_run_ab(a, b, cases=None, **kw):
        calls.append(cases)
        timings = first if cases is None else {n: later for n in cases}
        return ABResult(a={n: list(x) for n, (x, _) in timings.items()}, b={n: list(y) for n, (_, y) in timings.items()})

    monkeypatch.setattr(check, "run_ab", fake_run_ab)
    res, extra = check._timed(("A", "B"), {}, {}, (1.3, 0.001, 0.95, False, 6))
    assert calls == [None, ["slow"]] and extra == 1  # only the unsure case, once
    assert len(res.a["slow"]) == len(res.b["slow"]) == 12 and len(res.a["same"]) == 6
    assert check._speed(res, "slow", {}, (1.3, 0.001, 0.95, False, 6))[0] == Speed.SLOWER

    # A case that stays unsure is timed again at most FOLLOW_UPS times, then reported unsure (not failed).
    first, later = {"slow": ([2.0, 2.0, 1.0], [1.0] * 3)}, ([2.0, 2.0, 1.0], [1.0] * 3)
    calls.clear()
    res, extra = check._timed(("A", "B"), {}, {}, (1.3, 0.001, 0.95, False, 6))
    assert extra == check.FOLLOW_UPS and len(calls) == 1 + check.FOLLOW_UPS
    assert check._speed(res, "slow", {}, (1.3, 0.001, 0.95, False, 6))[0] == Speed.UNSURE


def test_out_record_keeps_each_sides_kernels_beside_the_timings():
    # A 0.2x "speed-up" against a REF that ran its numpy fallback is a build difference: the record must say so.
    from packbench.experiments.commands.bench import check_document
    res = ABResult(a={"pack": [0.001]}, b={"pack": [0.005]}, quality_a={"pack": {"score": 1.0}},
                   kernels_a={"columns": "C", "jaccard": "C"}, kernels_b={"columns": "fallback", "jaccard": "C"})
    doc = check_document(check.CheckReport(check.PAIRED, "paired against HEAD~1", [], res))
    assert json.loads(json.dumps(doc)) == doc
    assert doc["kernels"] == {"now": {"columns": "C", "jaccard": "C"}, "ref": {"columns": "fallback", "jaccard": "C"}}
    assert doc["a"] == {"pack": [0.001]} and doc["b"] == {"pack": [0.005]} and doc["quality"] == {"pack": {"score": 1.0}}
    assert doc["mode"] == check.PAIRED
