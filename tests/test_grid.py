"""Grid expansion (cartesian product, overrides) and stable run ids."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from packbench.experiments.config import parse_config
from packbench.experiments.planning import expand, label, run_id, run_params

CONFIG = {
    "name": "g",
    "seeds": [0, 1],
    "budgets": [100, 0.5],
    "near_dup": [0.8, "off"],
    "orders": ["original", "lost_in_middle"],
    "sources": [{"name": "pisinger", "cls": ["uncorrelated", "subset_sum"], "n": 10},
                {"name": "traps", "budgets": "natural", "orders": "original"}],
    "strategies": [{"name": "greedy"}, {"name": "cpsat", "time_limit": [0.1, 0.5]}],
}


def test_expansion_is_the_cartesian_product_with_overrides():
    units = expand(parse_config(CONFIG))
    pis = [u for u in units if u.source == "pisinger"]
    traps = [u for u in units if u.source == "traps"]
    assert len(pis) == 2 * 2 and len(traps) == 2          # source grid x seeds
    assert {(u.source_params["cls"], u.seed) for u in pis} == {
        ("uncorrelated", 0), ("uncorrelated", 1), ("subset_sum", 0), ("subset_sum", 1)}
    # strategies (1 + 2 grid points) x orders x budgets x near_dup
    assert len(pis[0].cells) == 3 * 2 * 2 * 2
    assert len(traps[0].cells) == 3 * 1 * 1 * 2
    assert {c.budget for c in traps[0].cells} == {"natural"}
    assert {c.near_dup for c in pis[0].cells} == {0.8, None}
    assert {tuple(c.strategy_params.items()) for c in pis[0].cells if c.strategy == "cpsat"} == {
        (("time_limit", 0.1),), (("time_limit", 0.5),)}


def test_a_source_skips_strategies_and_keeps_the_other_run_ids():
    skipping = dict(CONFIG, sources=[dict(CONFIG["sources"][0], skip_strategies="cpsat"), CONFIG["sources"][1]])
    full, cut = parse_config(CONFIG), parse_config(skipping)
    pis = [u for u in expand(cut) if u.source == "pisinger"]
    assert {c.strategy for c in pis[0].cells} == {"greedy"}
    assert {c.strategy for u in expand(cut) if u.source == "traps" for c in u.cells} == {"greedy", "cpsat"}
    ids = {run_id(run_params(full, u, "k", c)) for u in expand(full) for c in u.cells}
    kept = {run_id(run_params(cut, u, "k", c)) for u in expand(cut) for c in u.cells}
    assert kept < ids  # a skip removes runs; the others keep their ids (and so resume)


def test_run_ids_unique_and_stable_across_expansions_and_entry_order():
    cfg = parse_config(CONFIG)
    ids = [run_id(run_params(cfg, u, "seed=0", c)) for u in expand(cfg) for c in u.cells]
    assert len(ids) == len(set(ids))
    again = [run_id(run_params(cfg, u, "seed=0", c)) for u in expand(parse_config(CONFIG)) for c in u.cells]
    assert ids == again
    shuffled = dict(CONFIG, name="renamed", strategies=CONFIG["strategies"][::-1], sources=CONFIG["sources"][::-1],
                    budgets=CONFIG["budgets"][::-1])
    cfg2 = parse_config(shuffled)
    ids2 = {run_id(run_params(cfg2, u, "seed=0", c)) for u in expand(cfg2) for c in u.cells}
    assert ids2 == set(ids)  # the experiment name and the order of entries do not matter


def test_run_id_is_a_known_hash_of_sorted_parameters():
    params = {"b": 1, "a": [1, 2], "c": None}
    assert run_id(params) == run_id({"c": None, "a": [1, 2], "b": 1})
    # pinned value: ids must not change between releases, or resumes would redo everything
    expected = hashlib.sha256(b'{"a":[1,2],"b":1,"c":null}').hexdigest()[:16]
    assert run_id(params) == expected


def test_run_id_changes_with_anything_that_changes_the_result():
    cfg = parse_config(CONFIG)
    unit = expand(cfg)[0]
    cell = unit.cells[0]
    base = run_params(cfg, unit, "seed=0", cell)
    for key, value in [("seed", 99), ("instance", "seed=1"), ("budget", 101), ("near_dup", 0.9),
                       ("reference", "cpsat"), ("curve", [1.0])]:
        assert run_id({**base, key: value}) != run_id(base), key


def test_run_params_hold_resolved_defaults():
    cfg = parse_config(CONFIG)
    unit = expand(cfg)[0]
    cell = next(c for c in unit.cells if c.strategy == "cpsat")
    params = run_params(cfg, unit, "seed=0", cell)
    assert params["source_params"] == {"R": 1000, "capacity_fraction": 0.5, "cls": "uncorrelated", "n": 10,
                                       "question_tokens": 0, "system_tokens": 0}
    assert params["strategy_params"]["workers"] == 1  # the default is part of the id
    assert run_params(cfg, unit, "seed=0", cell) == params


@given(st.dictionaries(st.text(min_size=1, max_size=5), st.integers() | st.text(max_size=5), max_size=6))
def test_run_id_ignores_key_order(params):
    reordered = dict(reversed(list(params.items())))
    assert run_id(params) == run_id(reordered)
    assert len(run_id(params)) == 16


def test_label():
    assert label("greedy", {}) == "greedy"
    assert label("cpsat", {"workers": 1, "time_limit": 0.5}) == "cpsat(time_limit=0.5,workers=1)"
    assert label("curve", {"curve": [1.0, 0.5]}) == "curve(curve=[1.0, 0.5])"
