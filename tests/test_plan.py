"""Plan once: run objects computed once, ids equal to run_id(run_params), keys without building, statuses."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from packbench.algorithms import STRATEGIES, Selection
from packbench.algorithms.strategies.base import Strategy
from packbench.experiments.config import load_config, parse_config, source_registry
from packbench.experiments.families import FAMILIES
from packbench.experiments.grid import run_id, run_params
from packbench.experiments.metrics import ALL_METRICS
from packbench.experiments.plan import UNAVAILABLE, plan
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
