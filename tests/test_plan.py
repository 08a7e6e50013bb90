"""Plan once: run objects computed once, ids equal to run_id(run_params), keys without building, statuses."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from packbench.algorithms import STRATEGIES, Selection
from packbench.algorithms.strategies.base import Strategy
from packbench.experiments.config import load_config, parse_config, source_registry
from packbench.experiments.families import FAMILIES
from packbench.experiments.metrics import ALL_METRICS
from packbench.experiments.planning import UNAVAILABLE, plan, run_id, run_params
from packbench.experiments.provenance import REPO_ROOT
from packbench.experiments.runner import run_experiment
from packbench.experiments.schema import RESULT_COLUMNS, Status
from packbench.experiments.storage import RunStore

SMOKE = REPO_ROOT / "configs" / "smoke.toml"


def test_planned_ids_are_the_ids_of_run_params():
    cfg = load_config(SMOKE)
    planned = plan(cfg)
    runs = [run for pu in planned for run in pu.runs()]
    assert len(runs) == len({r.run_id for r in runs}) > 100
    assert all(r.run_id == run_id(run_params(cfg, r.unit, r.instance, r.cell)) for r in runs)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_lists_the_keys_it_builds(name):
    for params in ({}, {"instances": 3}) if "instances" in FAMILIES[name].PARAMS else ({},):
        source = FAMILIES[name](**params)
        keys = source.instance_keys(4)
        assert keys is None or list(keys) == [inst.key for inst in source.instances(4)]


def test_planning_builds_no_family_instance(monkeypatch):
    cfg = load_config(SMOKE)
    built = []
    for name in {s.name for s in cfg.sources}:
        cls = source_registry()[name]
        real = cls.instances
        monkeypatch.setattr(cls, "instances", lambda self, seed, _real=real: built.append(seed) or _real(self, seed))
    plan(cfg)
    assert built == []


def test_a_source_that_cannot_build_plans_the_placeholder(monkeypatch):
    from packbench.experiments.families.traps import Traps

    class Missing(Traps):
        name = "missing"

        def instance_keys(self, seed):
            return None

        def instances(self, seed):
            raise FileNotFoundError("no data file")

    monkeypatch.setitem(FAMILIES._table, "missing", Missing)
    cfg = parse_config({"name": "m", "budgets": [10], "sources": ["missing"], "strategies": ["greedy"]})
    (pu,) = plan(cfg)
    assert pu.instances == (UNAVAILABLE,) and "no data file" in pu.unavailable


def test_pending_keeps_exactly_the_runs_not_done():
    (pu, *_) = plan(load_config(SMOKE))
    done = set(pu.run_ids[::2])
    left = pu.pending(done)
    assert [r.run_id for r in left.runs()] == list(pu.run_ids[1::2]) and len(left) == len(pu.run_ids[1::2])
    assert pu.pending(set(pu.run_ids)) is None and pu.pending(set()) is pu


class _Picky(Strategy):
    name = "picky"
    PARAMS = MappingProxyType({})

    def skip(self, problem):
        return "declared: picky refuses every problem" if problem.candidates else None

    def select(self, problem):
        return Selection(())


class _Invalid(Strategy):
    name = "invalid"
    PARAMS = MappingProxyType({})

    def select(self, problem):
        raise ValueError("a validation bug inside the strategy")


def test_only_declared_refusals_are_skipped(tmp_path, monkeypatch):
    monkeypatch.setitem(STRATEGIES._table, "picky", _Picky)
    monkeypatch.setitem(STRATEGIES._table, "invalid", _Invalid)
    cfg = parse_config({"name": "st", "repeats": 1, "near_dup": "off", "reference": "exact_dp", "budgets": [0.5],
                        "sources": [{"name": "pisinger", "n": 8}], "strategies": ["picky", "invalid", "greedy"]})
    run_experiment(cfg, tmp_path / "st", progress=False)
    rows = {r["strategy"]: r for r in RunStore(tmp_path / "st").load()}
    assert (rows["picky"]["status"], rows["picky"]["reason"]) == ("skipped", "declared: picky refuses every problem")
    assert rows["invalid"]["status"] == "error"
    assert rows["invalid"]["reason"] == "ValueError: a validation bug inside the strategy"
    assert rows["greedy"]["status"] == Status.OK
    # one schema: every row has the same columns, whatever its status
    assert len({tuple(r) for r in rows.values()}) == 1
    assert set(ALL_METRICS) | set(RESULT_COLUMNS) <= set(rows["picky"])
    assert all(rows["picky"][c] is None for c in ALL_METRICS)
    assert all(rows["greedy"][c] is not None for c in ("score_ratio", "utilisation", "leak_tokens"))


def test_metric_table_declares_what_the_report_needs():
    for name, metric in ALL_METRICS.items():
        assert metric.name == name and metric.description and metric.unit
        assert metric.range is None or len(metric.range) == 2
    columns = [a.column for m in ALL_METRICS.values() for a in m.aggregation]
    assert len(columns) == len(set(columns))
    assert {"ratio_mean", "ratio_worst", "runtime_p95_ms", "answer_recall_mean"} <= set(columns)


def test_status_values_are_plain_strings():
    import json
    assert json.dumps([Status.OK, Status.ERROR]) == '["ok", "error"]' and Status("timeout") is Status.TIMEOUT


# ---- sizes: counted before planning, seed ranges never listed ----

HUGE = {"name": "huge", "seeds": {"start": 0, "stop": 10**9}, "budgets": [0.5], "sources": [{"name": "traps"}],
        "strategies": ["greedy"]}


@pytest.mark.parametrize("path", [SMOKE, REPO_ROOT / "configs" / "budget_sweep.toml"], ids=lambda p: p.stem)
def test_the_counted_size_is_the_planned_size(path):
    from packbench.experiments.planning import counts, plan_size

    cfg = load_config(path)
    size, planned = plan_size(cfg), plan(cfg)
    assert size.runs == sum(len(pu) for pu in planned) and size.pairs == dict(counts(planned))
    assert size.units == len(planned)


def test_the_counted_size_follows_a_sources_overrides_and_skipped_strategies():
    from packbench.experiments.planning import counts, plan_size

    cfg = parse_config({
        "name": "over", "seeds": [0, 1], "budgets": [0.3, 0.6], "near_dup": [0.8, "off"],
        "orders": ["original", {"name": "lost_in_middle"}],
        "sources": [{"name": "pisinger", "n": [6, 8], "budgets": [0.5], "orders": ["original"]},
                    {"name": "traps", "skip_strategies": ["cpsat"], "near_dup": "off"}],
        "strategies": ["greedy", {"name": "cpsat", "time_limit": [0.1, 0.2]}]})
    size, planned = plan_size(cfg), plan(cfg)
    assert size.pairs == dict(counts(planned)) and size.runs == sum(len(pu) for pu in planned)
    assert ("traps", "cpsat") not in size.pairs
    # pisinger: 2 n x 2 seeds x instances, each x (1 budget x 1 order x 2 near_dup); cpsat twice greedy's
    assert size.pairs["pisinger", "cpsat"] == 2 * size.pairs["pisinger", "greedy"]


def test_a_seed_range_stays_a_range_and_is_counted_without_listing_it():
    from packbench.experiments.planning import plan_size

    cfg = parse_config(HUGE)
    assert isinstance(cfg.seeds, range) and len(cfg.seeds) == 10**9
    assert cfg.model_dump(mode="json")["seeds"] == {"start": 0, "stop": 10**9, "step": 1}
    size = plan_size(cfg)
    assert size.runs == 10**9 and size.pairs == {("traps", "greedy"): 10**9} and size.units == 10**9
    small = parse_config({**HUGE, "seeds": {"start": 3, "stop": 9, "step": 2}})
    assert list(small.seeds) == [3, 5, 7] and plan_size(small).runs == len([r for pu in plan(small) for r in pu.runs()])


def test_a_plan_above_the_bound_is_refused_with_its_count_before_anything_is_built(monkeypatch):
    from packbench.experiments.planning import cells

    def no_units(config):
        raise AssertionError("planned units above the bound")

    monkeypatch.setattr("packbench.experiments.planning.runs.expand", no_units)
    with pytest.raises(ValueError, match=r"1,000,000,000 runs planned .* above the bound of 10,000,000 runs"):
        plan(parse_config(HUGE))
    small = parse_config({**HUGE, "seeds": [0, 1, 2]})
    with pytest.raises(ValueError, match="3 runs planned .* above the bound of 2 runs"):
        plan(small, bound=2)
    monkeypatch.setattr("packbench.experiments.planning.runs.expand", cells.expand)
    assert len(plan(small, bound=3)) == 3


def test_dry_run_of_a_billion_runs_prints_the_counts_and_refuses(tmp_path, capsys):
    from packbench.experiments.cli import main

    path = tmp_path / "huge.toml"
    path.write_text('name = "huge"\nseeds = { start = 0, stop = 1000000000 }\nbudgets = [0.5]\n'
                    '[[sources]]\nname = "traps"\n[[strategies]]\nname = "greedy"\n')
    assert main(["run", str(path), "--dry-run", "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    out = capsys.readouterr()
    assert "1,000,000,000" in out.out and "above the bound of 10,000,000 runs" in out.err
    assert not (tmp_path / "out").exists()
