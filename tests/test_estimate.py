"""The sweep estimate: each unit built once in calibration, units dealt to workers longest first."""

from __future__ import annotations

from dataclasses import replace

from packbench.experiments import measure
from packbench.experiments.config import parse_config
from packbench.experiments.estimate import Estimate, calibrate
from packbench.experiments.plan import counts, plan

CONFIG = {
    "name": "est", "seeds": [0, 1], "repeats": 1, "budgets": [0.3, 0.6], "near_dup": [0.8],
    "orders": ["original"], "reference": "exact_dp",
    "sources": [{"name": "pisinger", "n": 8, "R": 100}, {"name": "retrieval", "n": 10, "len_median": 30}],
    "strategies": [{"name": "greedy"}, {"name": "exact_dp"}],
}


def test_calibration_builds_each_sampled_unit_once_and_times_every_pair(monkeypatch):
    config = parse_config(CONFIG)
    planned = plan(config)
    built = []
    real = measure.unit_instances

    def counting(pu):
        built.append(pu)
        return real(pu)

    monkeypatch.setattr(measure, "unit_instances", counting)
    est = calibrate(config, planned, seconds=30.0, per_pair=3)
    assert set(est.per_run) == set(counts(planned))  # every (source, strategy) pair was timed
    assert set(est.per_build) == {"pisinger", "retrieval"}
    # One untimed warm-up build, then one build per sampled unit, never one per sampled run.
    timed = built[1:]
    assert len({id(pu) for pu in timed}) == len(timed)
    assert est.sampled > len(timed)


def test_seconds_deals_units_longest_first_and_adds_each_units_build():
    planned = plan(parse_config(CONFIG))
    pisinger = [pu for pu in planned if pu.unit.source == "pisinger"]
    runs_per_unit = [sum(counts([pu]).values()) for pu in pisinger]
    est = Estimate({("pisinger", "greedy"): 1.0, ("pisinger", "exact_dp"): 1.0}, {"pisinger": 10.0}, 2, 0.0)
    unit_seconds = sorted((10.0 + n for n in runs_per_unit), reverse=True)
    assert est.seconds(pisinger, 1) == sum(unit_seconds)
    two = est.seconds(pisinger, 2)
    # Never below the longest unit or an even split, never above the even split plus one unit.
    assert max(unit_seconds[0], sum(unit_seconds) / 2) <= two <= sum(unit_seconds) / 2 + unit_seconds[0]
    assert est.seconds(pisinger, len(pisinger) + 3) == unit_seconds[0]
    # Units with nothing left to do cost nothing, their build included.
    done = [replace(pu, todo=()) for pu in pisinger]
    assert est.seconds(done, 1) == 0.0
    assert Estimate({}, {}, 0, 0.0).seconds(pisinger, 1) is None


def test_samples_are_spread_over_each_pairs_runs_not_taken_from_the_start():
    from packbench.experiments.estimate import _samples, _spread

    assert [_spread(k) for k in range(7)] == [0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875]
    planned = plan(parse_config(CONFIG))
    samples = _samples(planned, 3)
    assert set(samples) == set(counts(planned))
    for (source, strategy), picked in samples.items():
        # Every pending run of the pair, in plan order, and where the picks fall in that list.
        runs = [(id(pu), pos) for pu in planned if pu.unit.source == source
                for pos in range(len(pu.run_ids)) if pu.unit.cells[pos % len(pu.unit.cells)].strategy == strategy]
        at = [runs.index((id(pu), pos)) for pu, pos in picked]
        assert at == [int(f * len(runs)) for f in (0.5, 0.25, 0.75)]
        assert len({pu.unit.seed for pu, _ in picked}) > 1  # both seeds' units, not the first alone
