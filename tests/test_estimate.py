"""The sweep estimate: each unit built once in calibration, units dealt to workers longest first."""

from __future__ import annotations

from dataclasses import replace

from packbench.experiments import measure
from packbench.experiments.config import parse_config
from packbench.experiments.estimate import Estimate, calibrate
from packbench.experiments.planning import counts, plan

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
    assert [(pu.unit.source, len(pu)) for pu in planned] == [("pisinger", 4), ("pisinger", 4),
                                                              ("retrieval", 4), ("retrieval", 4)]
    per_run = dict.fromkeys(counts(planned), 1.0)
    est = Estimate(per_run, {"pisinger": 10.0, "retrieval": 1.0}, 4, 0.0)
    # Units of 10 + 4 = 14 s (pisinger) and 1 + 4 = 5 s (retrieval).
    assert est.seconds(planned, 1) == 38.0
    assert est.seconds(planned, 2) == 19.0  # 14 + 5 on each worker, not 14 + 14 on one
    assert est.seconds(planned, 3) == 14.0  # the two short units share the third worker
    assert est.seconds(planned, 8) == 14.0  # never below the longest unit
    # A source that was not timed gets the mean build and run time of those that were.
    assert Estimate({("pisinger", "greedy"): 2.0}, {"pisinger": 3.0}, 1, 0.0).seconds(planned[2:3], 1) == 11.0
    # Units with nothing left to do cost nothing, their build included.
    assert est.seconds([replace(pu, todo=()) for pu in planned], 1) == 0.0
    assert Estimate({}, {}, 0, 0.0).seconds(planned, 1) is None


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
