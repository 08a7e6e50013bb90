"""The certified coverage chain for greedy + best singleton: stored instance, certificate, brute-force oracle."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from packbench.experiments.claims.groups.tight import BOUND, FILE, TIGHT_MEASURE, rebuild_ratio
from packbench.experiments.claims.measures import rerun
from packbench.experiments.claims.tight.coverage import (ChainParams, build_chain, certify, predicted_ratio,
                                                         ratio_through_pack)
from packbench.experiments.claims.tight.search import search_chain

STORED = Path(__file__).resolve().parent.parent / "results" / "claims" / "instances" / FILE
SMALL = ChainParams((0.45, 0.45, 0.1), (0.44, 0.44, 0.12), budget=40, step=4, tilt=(1.0, 1.0, 1000.0))


def test_stored_worst_instance_rebuilds_to_its_ratio_and_certificate():
    record = json.loads(STORED.read_text(encoding="utf-8"))
    assert record["measure"] == TIGHT_MEASURE
    ratio, cert = rebuild_ratio(record)
    assert ratio == pytest.approx(record["ratio"], rel=1e-12)
    assert cert["optimum"] == pytest.approx(record["certificate"]["optimum"], rel=1e-12)
    assert cert["optimal_tokens"] <= cert["room"]
    # The target of issue 29: far below the unstructured search's ~0.5, above the proven 0.405.
    assert BOUND <= ratio <= 0.44
    assert rerun(record) == pytest.approx(ratio, rel=1e-12)


def test_chain_is_optimal_by_brute_force_on_a_small_instance():
    from packbench.algorithms.strategies.submodular import SubmodularObjective

    inst = build_chain(SMALL)
    cert = certify(inst)
    cands = [it for it in inst.items if not it.pinned]
    f = SubmodularObjective(cands, [it for it in inst.items if it.pinned], lam=1.0,
                            similarity=inst.similarity(), objective="linear")
    room = inst.budget - 1
    fitting = [k for k, it in enumerate(cands) if it.tokens <= room]
    assert len(fitting) <= 14
    empty = f.value([])
    best = max(f.value(list(s)) - empty for r in range(len(fitting) + 1) for s in combinations(fitting, r)
               if sum(cands[k].tokens for k in s) <= room)
    assert best == pytest.approx(cert["optimum"], rel=1e-12)


def test_measured_ratio_through_pack_is_the_designed_one():
    inst = build_chain(SMALL)
    ratio, got, opt = ratio_through_pack(inst)
    assert ratio == pytest.approx(predicted_ratio(SMALL), rel=1e-9)
    assert got >= sum(inst.decoy_gains) * (1 - 1e-12)  # the whole chain is taken


def test_certificate_refuses_blocks_over_the_budget():
    inst = build_chain(SMALL)
    broken = type(inst)(inst.params, inst.items, inst.budget - 5, inst.sim, inst.weights, inst.optimal_ids,
                        inst.decoy_gains)
    with pytest.raises(RuntimeError, match="blocks need"):
        certify(broken)


def test_certificate_refuses_an_element_worth_more_than_its_weight():
    inst = build_chain(SMALL)
    sim = inst.sim.copy()
    e = len(inst.items) - 1
    sim[1, e] = sim[e, 1] = min(1.0, inst.weights[-1] * 1.5 + 0.01)
    broken = type(inst)(inst.params, inst.items, inst.budget, sim, inst.weights, inst.optimal_ids,
                        inst.decoy_gains)
    with pytest.raises(RuntimeError, match="worth more"):
        certify(broken)


def test_search_is_seeded_and_below_the_unstructured_search():
    a = search_chain(3, maxiter=3, popsize=5, polish=30)
    b = search_chain(3, maxiter=3, popsize=5, polish=30)
    assert a.params == b.params and a.ratio == b.ratio
    assert a.ratio < 0.47


@pytest.mark.parametrize("kwargs, field", [
    ({"costs": (0.6, 0.6), "values": (1, 1)}, "costs"),
    ({"costs": (0.5,), "values": (1, 2)}, "same non-zero length"),
    ({"costs": (0.5, 0.5), "values": (1, -1)}, "values"),
    ({"costs": (0.5, 0.5), "values": (1, 1), "tilt": (1.0,)}, "tilt"),
    ({"costs": (0.5, 0.5), "values": (1, 1), "step": 0}, "step"),
])
def test_bad_parameters_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        ChainParams(**kwargs)


def test_params_round_trip_through_json():
    assert ChainParams.from_json(json.loads(json.dumps(SMALL.to_json()))) == SMALL
    assert np.isclose(sum(SMALL.to_json()["costs"]), 1.0)
