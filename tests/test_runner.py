"""The runner end to end: outputs, statuses, resume after a crash, parallel == serial."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.experiments import measure
from packbench.experiments.config import load_config, parse_config
from packbench.experiments.provenance import REPO_ROOT
from packbench.experiments.runner import TIMING_COLUMNS, run_experiment
from packbench.experiments.storage import RunStore

SMOKE = REPO_ROOT / "configs" / "smoke.toml"
# Provenance of the checkout can change between two runs (another commit); it is not a result.
NOT_RESULTS = set(TIMING_COLUMNS) | {"git_commit", "git_dirty"}

TINY = {
    "name": "tiny", "seeds": [0, 1], "repeats": 2, "budgets": [0.3, 0.6], "near_dup": [0.8, "off"],
    "orders": ["original", "lost_in_middle"], "reference": "exact_dp",
    "sources": [{"name": "pisinger", "n": 8, "R": 100}, {"name": "retrieval", "n": 10, "len_median": 30}],
    "strategies": [{"name": "greedy"}, {"name": "exact_dp"}],
}


def rows_of(out):
    return [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]


def results(rows):
    return {r["run_id"]: {k: v for k, v in r.items() if k not in NOT_RESULTS} for r in rows}


def test_smoke_config_end_to_end(tmp_path):
    out = tmp_path / "smoke"
    manifest = run_experiment(load_config(SMOKE), out, progress=False, config_path=SMOKE)
    for name in ("runs.jsonl", "summary.csv", "summary.md", "manifest.json"):
        assert (out / name).is_file(), name
    plots = sorted(p.name for p in (out / "plots").iterdir())
    assert plots == ["leakage_vs_near_dup.png", "pareto.png", "ratio_vs_budget.png", "runtime_vs_n.png",
                     "utility_per_order.png"]
    assert all((out / "plots" / p).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in plots)
    rows = rows_of(out)
    assert len(rows) == manifest["runs_total"] == len({r["run_id"] for r in rows})
    assert manifest["status"] == "complete" and manifest["config_path"] == "configs/smoke.toml"
    measured = [r for r in rows if r["status"] == "ok"]
    assert measured and all(r["score_ratio"] == pytest.approx(1.0) and r["ratio_kind"] == "exact"
                            for r in measured if r["strategy"] == "exact_dp")
    assert all(0 <= r["score_ratio"] <= 1 + 1e-9 and r["tokens"] <= r["budget"] for r in measured)
    density = [r for r in measured if r.get("p_trap") == "density" and r["budget_spec"] == "natural"]
    assert {r["strategy"]: r["score_ratio"] for r in density}["greedy"] == pytest.approx(2 / 200)
    # no machine paths in what gets committed
    for name in ("summary.csv", "summary.md", "manifest.json"):
        text = (out / name).read_text()
        assert str(REPO_ROOT) not in text and str(tmp_path) not in text
    summary = (out / "summary.csv").read_text().splitlines()
    assert summary[0].startswith("source,p_") and ",budget,near_dup,dedupe,order,strategy,runs,ok," in summary[0]


def test_resume_after_a_half_written_line_loses_and_duplicates_nothing(tmp_path):
    cfg = parse_config(TINY)
    full = run_experiment(cfg, tmp_path / "a", progress=False)
    reference = results(rows_of(tmp_path / "a"))
    path = tmp_path / "a" / "runs.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:10]) + lines[10][: len(lines[10]) // 2])  # killed mid-write
    again = run_experiment(cfg, tmp_path / "a", progress=False)
    assert again["runs_resumed"] == 10 and again["runs_dropped_partial_lines"] == 1
    rows = rows_of(tmp_path / "a")
    assert len(rows) == full["runs_total"] == len({r["run_id"] for r in rows})
    assert results(rows) == reference
    assert run_experiment(cfg, tmp_path / "a", progress=False)["runs_resumed"] == full["runs_total"]


def test_resume_after_an_interrupted_run(tmp_path, monkeypatch):
    cfg = parse_config(TINY)
    real_pack, calls = measure.pack, {"n": 0}

    def dying_pack(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 60:
            raise KeyboardInterrupt  # the process is stopped mid-experiment
        return real_pack(*args, **kwargs)

    monkeypatch.setattr(measure, "pack", dying_pack)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(cfg, tmp_path / "b", progress=False)
    partial = rows_of(tmp_path / "b")
    assert 0 < len(partial)
    monkeypatch.setattr(measure, "pack", real_pack)
    done = run_experiment(cfg, tmp_path / "b", progress=False)
    rows = rows_of(tmp_path / "b")
    assert done["runs_resumed"] == len(partial) and len(rows) == done["runs_total"]
    assert len({r["run_id"] for r in rows}) == len(rows)
    run_experiment(cfg, tmp_path / "c", progress=False)
    assert results(rows) == results(rows_of(tmp_path / "c"))


def test_parallel_rows_equal_serial_rows(tmp_path):
    cfg = load_config(SMOKE)
    run_experiment(cfg, tmp_path / "serial", workers=1, progress=False)
    run_experiment(cfg, tmp_path / "parallel", workers=2, progress=False)
    serial, parallel = results(rows_of(tmp_path / "serial")), results(rows_of(tmp_path / "parallel"))
    assert serial == parallel and len(serial) > 100
    assert (tmp_path / "serial" / "summary.md").is_file() and (tmp_path / "parallel" / "plots").is_dir()


def test_statuses_skipped_error_timeout(tmp_path):
    # Strategies from outside, named by import path (tests/plugins.py).
    cfg = parse_config({
        "name": "status", "repeats": 1, "reference": "exact_dp", "near_dup": "off",
        "sources": [{"name": "traps", "trap": "value", "system_tokens": 50, "budgets": ["natural", 40]},
                    {"name": "retrieval", "n": 6, "budgets": ["natural"]}],
        "strategies": [{"name": "exact_dp", "max_memory_mb": [1e-9, 64.0]}, {"name": "tests.plugins:Stopped"},
                       {"name": "tests.plugins:Broken"}],
    })
    rows = {(r["source"], r["budget_spec"], r["strategy_label"]): r
            for r in run_unit_rows(cfg, tmp_path)}
    capped = rows[("traps", "natural", "exact_dp(max_memory_mb=1e-09)")]
    assert capped["status"] == "skipped" and "max_memory_mb" in capped["reason"]
    assert rows[("traps", "natural", "exact_dp(max_memory_mb=64.0)")]["status"] == "ok"
    assert rows[("traps", 40, "exact_dp(max_memory_mb=64.0)")]["status"] == "skipped"   # pinned 50 > 40
    assert "pinned items need 50 tokens" in rows[("traps", 40, "exact_dp(max_memory_mb=64.0)")]["reason"]
    timeout = rows[("traps", "natural", "tests.plugins:Stopped")]
    assert timeout["status"] == "timeout" and timeout["score_ratio"] == 0.0 and timeout["ratio_kind"] == "exact"
    broken = rows[("traps", "natural", "tests.plugins:Broken")]
    assert broken["status"] == "error" and broken["reason"] == "ZeroDivisionError: bug in strategy"
    assert rows[("retrieval", "natural", "tests.plugins:Broken")]["status"] == "skipped"
    assert "no natural budget" in rows[("retrieval", "natural", "tests.plugins:Broken")]["reason"]


def run_unit_rows(cfg, tmp_path):
    run_experiment(cfg, tmp_path / cfg.name, progress=False)
    return rows_of(tmp_path / cfg.name)


def test_reference_without_optimum_gives_certified_lower_bound(tmp_path):
    cfg = parse_config({"name": "cert", "repeats": 1, "near_dup": "off", "reference": "exact_dp",
                        "reference_params": {"max_memory_mb": 1e-9}, "budgets": [0.3],
                        "sources": [{"name": "pisinger", "cls": "strongly_correlated", "n": 20, "R": 100}],
                        "strategies": [{"name": "greedy"}, {"name": "bnb", "time_limit": 5.0}]})
    rows = {r["strategy"]: r for r in run_unit_rows(cfg, tmp_path)}
    greedy, bnb = rows["greedy"], rows["bnb"]
    assert greedy["ratio_kind"] == "certified_lower_bound" and greedy["reference"] >= bnb["score"]
    assert greedy["score_ratio"] <= greedy["score"] / bnb["score"] + 1e-12  # a lower bound on the true ratio
    assert bnb["ratio_kind"] == "exact" and bnb["score_ratio"] == 1.0     # proven optimal by itself


def test_stale_rows_need_force(tmp_path):
    run_experiment(parse_config(TINY), tmp_path / "x", progress=False)
    smaller = parse_config({**TINY, "seeds": [0]})
    with pytest.raises(ValueError, match="--force"):
        run_experiment(smaller, tmp_path / "x", progress=False)
    manifest = run_experiment(smaller, tmp_path / "x", progress=False, force=True)
    assert manifest["runs_resumed"] == 0 and len(rows_of(tmp_path / "x")) == manifest["runs_total"]


def test_unavailable_source_gives_skipped_rows_then_recovers(tmp_path, monkeypatch):
    from tests.plugins import Flaky

    monkeypatch.setattr(Flaky, "available", False)
    cfg = parse_config({"name": "flaky", "repeats": 1, "budgets": "natural", "reference": "exact_dp",
                        "sources": [{"name": "tests.plugins:Flaky"}], "strategies": [{"name": "greedy"}]})
    rows = run_unit_rows(cfg, tmp_path)
    # The family names its instance without building it, so the row carries the key; a source that
    # cannot list keys plans the placeholder instance "unavailable".
    assert [(r["status"], r["instance"]) for r in rows] == [("skipped", "seed=0")]
    assert "data file missing" in rows[0]["reason"]
    monkeypatch.setattr(Flaky, "available", True)
    rows = run_unit_rows(cfg, tmp_path)
    assert [(r["status"], r["instance"], r["reason"]) for r in rows] == [("ok", "seed=0", None)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=10_000), junk=st.binary(max_size=20))
def test_store_keeps_exactly_the_complete_rows_after_any_crash_point(tmp_path, cut, junk):
    store = RunStore(tmp_path / f"s{cut}-{junk.hex()}")
    rows = [{"run_id": f"r{k}", "value": "x" * k} for k in range(40)]
    store.append(rows[:20])
    store.append(rows[20:])
    data = store.path.read_bytes()
    cut = min(cut, len(data))
    store.path.write_bytes(data[:cut] + (junk if b"\n" not in junk else b""))
    loaded = store.load()
    complete = data[:cut].count(b"\n")
    assert loaded == rows[:complete]
    assert store.load() == rows[:complete]      # the repair is idempotent
    store.append(rows[complete:])                # resuming appends after the last complete row
    assert store.load() == rows


def test_rows_say_how_the_time_limit_is_measured_and_how_exact_broke_ties(tmp_path):
    cfg = parse_config({"name": "kinds", "repeats": 1, "near_dup": "off", "reference": "exact_dp", "budgets": [0.5],
                        "sources": [{"name": "pisinger", "cls": "subset_sum", "n": 12, "R": 100}],
                        "strategies": [{"name": "exact"}, {"name": "bnb", "time_limit": 5.0},
                                       {"name": "cpsat", "deterministic_time": 5.0}, {"name": "greedy"}]})
    rows = {r["strategy"]: r for r in run_unit_rows(cfg, tmp_path)}
    assert all(r["status"] == "ok" for r in rows.values())
    assert rows["exact"]["tie_break"] == "lex" and rows["exact"]["limit_kind"] == "wall"
    assert rows["bnb"]["limit_kind"] == "wall" and rows["cpsat"]["limit_kind"] == "deterministic"
    assert rows["greedy"]["tie_break"] is None and rows["greedy"]["limit_kind"] is None


def test_a_configured_fill_runs_in_every_run_and_has_its_own_run_ids(tmp_path):
    base = {"name": "fill", "repeats": 1, "near_dup": "off", "reference": "exact_dp", "budgets": [0.5],
            "sources": [{"name": "retrieval", "n": 10, "len_median": 30}], "strategies": ["prefix"]}
    plain = {r["instance"]: r for r in run_unit_rows(parse_config(base), tmp_path / "plain")}
    filled = {r["instance"]: r for r in run_unit_rows(parse_config({**base, "fill": "truncate"}), tmp_path / "filled")}
    assert set(plain) == set(filled) and not {r["run_id"] for r in plain.values()} & {r["run_id"] for r in filled.values()}
    # The fill only adds: at least the tokens of the plain run, within the budget, somewhere more.
    assert all(plain[k]["tokens"] <= filled[k]["tokens"] <= filled[k]["budget"] for k in plain)
    assert any(plain[k]["tokens"] < filled[k]["tokens"] for k in plain)


def test_the_manifest_keeps_a_seed_range_as_a_range(tmp_path):
    cfg = parse_config({"name": "rng", "repeats": 1, "near_dup": "off", "reference": "exact_dp", "budgets": [0.5],
                        "seeds": {"start": 2, "stop": 8, "step": 3}, "sources": [{"name": "traps"}],
                        "strategies": ["greedy"]})
    manifest = run_experiment(cfg, tmp_path / "rng", progress=False)
    assert manifest["seeds"] == {"start": 2, "stop": 8, "step": 3}
    assert sorted({r["seed"] for r in rows_of(tmp_path / "rng")}) == [2, 5]
