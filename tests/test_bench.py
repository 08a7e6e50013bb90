"""`packbench bench`: the --check logic on synthetic results, the reference baselines, the CLI."""

from __future__ import annotations

import argparse
import json
import random

import pytest

from packbench.algorithms import Item, pack
from packbench.algorithms.strategies.exact_dp import dp_knapsack
from packbench.experiments.bench import build_suite, compare_runs, format_check, format_results
from packbench.experiments.bench.reference import pure_python_dp, reference_pack
from packbench.experiments.bench.suite import dedupe_agreement
from packbench.experiments.commands import bench as bench_cmd


def _doc(ref: float, cases: dict, mode: str = "quick") -> dict:
    return {"version": 1, "mode": mode, "reference_seconds": ref,
            "cases": {name: {"seconds": sec, "quality": q, "quick": True} for name, (sec, q) in cases.items()}}


BASE = _doc(0.1, {"a": (1.0, {"score": 3.0}), "b": (0.5, {"n": 7}), "gone": (0.2, {})})


def test_same_figures_pass():
    rows = compare_runs(BASE, _doc(0.1, {"a": (1.0, {"score": 3.0}), "b": (0.5, {"n": 7})}))
    assert [r.status for r in rows] == ["ok", "ok", "missing"]
    assert not any(r.failed for r in rows)


def test_uniformly_slower_machine_passes_but_a_relative_slowdown_fails():
    slow_machine = _doc(0.3, {"a": (3.0, {"score": 3.0}), "b": (1.5, {"n": 7})})
    assert not any(r.failed for r in compare_runs(BASE, slow_machine))
    regressed = _doc(0.1, {"a": (2.5, {"score": 3.0}), "b": (0.5, {"n": 7})})
    rows = {r.name: r for r in compare_runs(BASE, regressed, tolerance=2.0)}
    assert rows["a"].status == "slower" and rows["a"].failed
    assert rows["b"].status == "ok"
    assert "2.50x" in rows["a"].detail
    assert not compare_runs(BASE, regressed, tolerance=3.0)[0].failed


def test_any_quality_change_fails_even_when_faster():
    rows = compare_runs(BASE, _doc(0.1, {"a": (0.1, {"score": 2.999999}), "b": (0.5, {"n": 7})}))
    assert rows[0].status == "quality" and rows[0].failed
    assert "score: 3.0 -> 2.999999" in rows[0].detail
    added_key = compare_runs(BASE, _doc(0.1, {"b": (0.5, {"n": 7, "optimal": True})}))
    assert added_key[0].status == "quality"


def test_new_cases_and_millisecond_noise_do_not_fail():
    base = _doc(1.0, {"tiny": (0.001, {})})
    rows = compare_runs(base, _doc(1.0, {"tiny": (0.004, {}), "fresh": (9.0, {})}))
    assert [r.status for r in rows] == ["ok", "new"]


def test_malformed_documents_are_rejected():
    with pytest.raises(ValueError, match="reference_seconds"):
        compare_runs({"cases": {}}, BASE)


def test_check_table_marks_regressions():
    rows = compare_runs(BASE, _doc(0.1, {"a": (5.0, {"score": 3.0}), "b": (0.5, {"n": 8})}))
    table = format_check(rows)
    assert "!! slower" in table and "!! quality" in table and "2 regression(s)" in table


def test_suite_names_are_unique_and_quick_is_a_subset():
    full = [c.name for c in build_suite(quick=False)]
    quick = [c.name for c in build_suite(quick=True)]
    assert len(full) == len(set(full)) and set(quick) < set(full)
    for group in ("pack/", "dedupe/", "dp/", "solver/", "strategy/", "tokens/"):
        assert any(n.startswith(group) for n in quick)
    assert "pack/default_100k" in full and "dedupe/seed000_3000" in full


def test_reference_pack_is_seed_000_semantics():
    rng = random.Random(0)
    vocab = [f"t{k}" for k in range(40)]
    items = [Item("sys", "be brief", 0.0, 3, pinned=True)]
    for k in range(120):
        base = items[rng.randrange(len(items))].text.split() if k and rng.random() < 0.3 else []
        ws = base[:-1] + [rng.choice(vocab)] if base else rng.choices(vocab, k=rng.randint(1, 12))
        items.append(Item(f"c{k}", " ".join(ws), round(rng.random(), 3), rng.randint(1, 20)))
    for budget in (3, 40, 200):
        assert [it.id for it in reference_pack(items, budget)] == pack(items, budget).ids
    with pytest.raises(ValueError):
        reference_pack(items, 2)


def test_pure_python_dp_matches_the_numpy_dp():
    rng = random.Random(1)
    for _ in range(20):
        w = [rng.randint(1, 30) for _ in range(rng.randint(0, 15))]
        s = [float(rng.randint(1, 50)) for _ in w]
        assert pure_python_dp(w, s, 60) == dp_knapsack(w, s, 60)[1]


def test_dedupe_agreement():
    assert dedupe_agreement({"a": "x", "b": "y"}, {"a": "x", "c": "z"}) == {"recall": 0.5, "precision": 0.5}
    assert dedupe_agreement({}, {}) == {"recall": 1.0, "precision": 1.0}


def _args(tmp_path, **kw):
    ns = argparse.Namespace(quick=True, check=True, baseline=tmp_path / "baseline.json",
                            out=tmp_path / "latest.json", tolerance=2.0, portfolio=False)
    for k, v in kw.items():
        setattr(ns, k, v)
    return ns


def test_cli_check_exit_codes(tmp_path, monkeypatch, capsys):
    (tmp_path / "baseline.json").write_text(json.dumps(BASE))
    good = _doc(0.1, {"a": (1.0, {"score": 3.0}), "b": (0.5, {"n": 7})})
    bad = _doc(0.1, {"a": (1.0, {"score": 4.0}), "b": (0.5, {"n": 7})})
    for doc, code in ((good, 0), (bad, 1)):
        monkeypatch.setattr(bench_cmd, "run_suite", lambda cases, mode, progress=None, doc=doc: doc)
        assert bench_cmd.main(_args(tmp_path)) == code
        assert json.loads((tmp_path / "latest.json").read_text()) == doc
    out = capsys.readouterr().out
    assert "no regressions" in out and "1 regression(s)" in out


def test_cli_check_without_baseline_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="baseline"):
        bench_cmd.main(_args(tmp_path))
    with pytest.raises(ValueError, match="tolerance"):
        bench_cmd.main(_args(tmp_path, tolerance=0.5))


def test_results_table_shows_speedups_over_paired_cases():
    doc = _doc(0.01, {"ref": (2.0, {"n": 1}), "fast": (0.01, {"n": 1})})
    doc["cases"]["fast"]["pair"] = "ref"
    table = format_results(doc)
    assert "200x" in table and "fast" in table
