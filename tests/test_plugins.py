"""Strategies (and orders, sources) from outside: import paths, entry points, objects, plain functions."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from packbench.algorithms import ORDERS, STRATEGIES, Item, StrategyContractError, component_origin, pack
from packbench.algorithms.plugins import component_ref
from packbench.experiments.commands import list as list_command
from tests import plugins
from tests.plugins import install_entry_points

REPO = Path(__file__).resolve().parents[1]
SYS = Item("sys", "you are terse", 0.0, 3, pinned=True)
ITEMS = [SYS, Item("a", "alpha beta", 5.0, 4), Item("b", "gamma delta", 4.0, 4), Item("c", "eps zeta", 1.0, 2),
         Item("n", "eta theta", -1.0, 1)]


def test_import_path_class_and_class_object_pack_the_same():
    by_path = pack(ITEMS, 11, strategy="tests.plugins:TopFracGreedy")
    by_class = pack(ITEMS, 11, strategy=plugins.TopFracGreedy)
    assert by_path.ids == by_class.ids == ["sys", "a", "b"]
    # The name recorded is the one given; an object is recorded by its import path.
    assert by_path.strategy == by_class.strategy == "tests.plugins:TopFracGreedy"
    # Declared params are routed and checked like a built-in's.
    assert pack(ITEMS, 11, strategy=plugins.TopFracGreedy, frac=0.5).ids == ["sys", "a"]
    with pytest.raises(ValueError, match=r"strategy 'top_frac_greedy': parameter 'frac' must be <= 1.0"):
        pack(ITEMS, 11, strategy="tests.plugins:TopFracGreedy", frac=2.0)


def test_a_class_without_a_name_is_named_by_its_import_path_in_messages():
    with pytest.raises(ValueError, match=r"unknown parameter 'frac'; valid \(strategy 'tests.plugins:Unnamed': none"):
        pack(ITEMS, 11, strategy="tests.plugins:Unnamed", frac=0.5)
    with pytest.raises(ValueError, match=r"strategy 'tests.plugins:Unnamed': unknown parameter\(s\) 'frac'"):
        plugins.Unnamed(frac=0.5)
    assert plugins.Unnamed.describe().startswith("tests.plugins:Unnamed: A strategy class from outside")


def test_plain_function_by_path_and_by_object():
    assert pack(ITEMS, 11, strategy="tests.plugins:by_score").ids == ["sys", "a", "b"]
    res = pack(ITEMS, 11, strategy=plugins.by_score, min_score=4.5)
    assert res.ids == ["sys", "a"] and res.strategy == "tests.plugins:by_score"
    # A keyword parameter with a default is declared, typed like its default.
    with pytest.raises(TypeError, match=r"parameter 'min_score' must be a float"):
        pack(ITEMS, 11, strategy=plugins.by_score, min_score="high")
    with pytest.raises(ValueError, match=r"unknown parameter 'top'"):
        pack(ITEMS, 11, strategy=plugins.by_score, top=1)
    # A function taking **params accepts any keyword.
    assert pack(ITEMS, 100, strategy=plugins.everything, anything=1).ids == ["sys", "a", "b", "c"]


@pytest.mark.parametrize("func, budget, broke", [
    ("twice", 11, r"returned 'a' twice"),
    ("stranger", 11, r"returned 'not-an-item', which is not among the items"),
    ("half_pinned", 11, r"left out pinned item\(s\) 'sys2'"),
    ("not_a_list", 11, r"returned int; expected a list of item ids or Items"),
    ("everything", 8, r"chose 11 tokens \(pinned included\) for a budget of 8"),
])
def test_function_output_is_checked_and_a_violation_names_the_strategy(func, budget, broke):
    items = ITEMS + [Item("sys2", "and brief", 0.0, 1, pinned=True)] if func == "half_pinned" else ITEMS
    if func == "everything":
        items = ITEMS[:3]
    with pytest.raises(StrategyContractError, match=rf"strategy 'tests.plugins:{func}' broke .*{broke}"):
        pack(items, budget, strategy=f"tests.plugins:{func}")


def test_negative_scores_and_dropped_duplicates_are_not_given_to_a_function():
    dup = Item("a2", "alpha beta", 4.9, 4)
    res = pack(ITEMS + [dup], 100, strategy=plugins.everything)
    assert res.ids == ["sys", "a", "b", "c"] and res.dropped == {"a2": "a"}


def test_contract_violation_is_a_runtime_error_not_a_value_error():
    with pytest.raises(StrategyContractError, match=r"strategy 'tests.plugins:Overflowing' chose 10 tokens "
                                                    r"for a room of 5") as info:
        pack(ITEMS, 8, strategy="tests.plugins:Overflowing")
    assert isinstance(info.value, RuntimeError) and not isinstance(info.value, ValueError)


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_xyz:Thing", r"strategy 'no_such_module_xyz:Thing': cannot import module 'no_such_module_xyz'"),
    ("tests.plugins:Missing", r"module 'tests.plugins' has no attribute 'Missing'"),
    ("tests.plugins:Reversed", r"class Reversed is not a Strategy subclass"),
    ("math:pi", r"strategy 'math:pi': names a float, not a Strategy subclass or a function"),
    ("fastest", r"unknown strategy 'fastest'; valid: .*greedy_best_single.*; or an import path"),
])
def test_bad_names_are_value_errors_that_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        pack(ITEMS, 11, strategy=spec)


def test_wrong_type_and_unwrappable_function():
    with pytest.raises(TypeError, match=r"strategy must be a name, an import path"):
        pack(ITEMS, 11, strategy=3)
    with pytest.raises(ValueError, match=r"does not take two positional arguments"):
        pack(ITEMS, 11, strategy=lambda items: [])
    with pytest.raises(ValueError, match=r"parameter 'k' of .* has no default"):
        pack(ITEMS, 11, strategy=lambda items, budget, k: [])


def test_orders_from_outside():
    assert pack(ITEMS, 11, order="tests.plugins:Reversed").ids == ["sys", "b", "a"]
    assert pack(ITEMS, 11, order=plugins.Reversed).ids == ["sys", "b", "a"]
    with pytest.raises(ValueError, match=r"order 'tests.plugins:by_score': names a function, not a Order subclass"):
        pack(ITEMS, 11, order="tests.plugins:by_score")


def test_entry_point_plugins_are_found_listed_and_checked(tmp_path, monkeypatch, capsys):
    with pytest.raises(ValueError, match="unknown strategy 'frac'"):
        pack(ITEMS, 11, strategy="frac")
    install_entry_points(tmp_path, monkeypatch, "packbench.strategies",
                         {"frac": "tests.plugins:TopFracGreedy", "fn_by_score": "tests.plugins:by_score"})
    res = pack(ITEMS, 11, strategy="frac", frac=0.5)
    assert res.ids == ["sys", "a"] and res.strategy == "frac"
    assert pack(ITEMS, 11, strategy="fn_by_score").ids == ["sys", "a", "b"]
    available = STRATEGIES.available()
    assert available["frac"] is plugins.TopFracGreedy and set(STRATEGIES) < set(available)
    assert "frac" not in STRATEGIES  # the mapping itself stays the built-ins
    list_command.main(list_command.build_parser().parse_args(["strategies"]))
    out = capsys.readouterr().out
    assert "  frac: Take candidates by score" in out and "  fn_by_score: Best score first" in out


def test_entry_point_colliding_with_a_built_in_is_an_error(tmp_path, monkeypatch):
    install_entry_points(tmp_path, monkeypatch, "packbench.strategies", {"greedy": "tests.plugins:TopFracGreedy"},
                         dist="shadowing-plugin")
    with pytest.raises(ValueError, match=r"plug-in 'greedy' .*shadowing-plugin==1.0.*collides with the built-in"):
        STRATEGIES.available()


def test_entry_point_that_fails_to_load_names_its_distribution(tmp_path, monkeypatch):
    install_entry_points(tmp_path, monkeypatch, "packbench.orders", {"gone": "no_such_module_xyz:Order"},
                         dist="broken-plugin")
    with pytest.raises(ValueError, match=r"order plug-in 'gone' .*broken-plugin==1.0\) failed to load"):
        pack(ITEMS, 11, order="gone")


def test_component_ref_and_origin():
    assert component_ref(plugins.TopFracGreedy) == "tests.plugins:TopFracGreedy"

    class Local(plugins.TopFracGreedy):
        pass

    with pytest.raises(TypeError, match="defined inside a function"):
        component_ref(Local)
    origin = component_origin(STRATEGIES.lookup("tests.plugins:by_score"))
    assert origin.ref == "tests.plugins:by_score" and origin.file == str(REPO / "tests" / "plugins.py")
    assert origin.distribution is None or not origin.distribution.startswith("packbench")
    builtin = component_origin(STRATEGIES["greedy"])
    assert builtin.ref == "packbench.algorithms.strategies.greedy:Greedy"
    assert builtin.file.endswith(os.path.join("strategies", "greedy.py"))
    assert builtin.distribution.startswith("packbench==")


def _pack_ids(strategy):
    return pack(ITEMS, 11, strategy=strategy).ids


def test_import_paths_resolve_in_spawned_workers():
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        got = list(pool.map(_pack_ids, ["tests.plugins:TopFracGreedy", "tests.plugins:by_score",
                                        component_ref(plugins.by_score)]))
    assert got == [_pack_ids(plugins.TopFracGreedy)] * 3


USER_MODULE = '''
from packbench import Selection, Strategy


def top_k(items, budget, k=2):
    """The k best candidates that fit."""
    room = budget - sum(it.tokens for it in items if it.pinned)
    out = []
    for it in sorted((it for it in items if not it.pinned), key=lambda it: -it.score)[:k]:
        if it.tokens <= room:
            out.append(it.id)
            room -= it.tokens
    return out


class Lightest(Strategy):
    """Lightest candidates first."""

    def select(self, problem):
        used, chosen = 0, []
        for k in sorted(range(len(problem.candidates)), key=lambda k: problem.candidates[k].tokens):
            if used + problem.candidates[k].tokens <= problem.room:
                chosen.append(k)
                used += problem.candidates[k].tokens
        return Selection(tuple(chosen))
'''

CONFIG = '''
name = "outside"
repeats = 1
budgets = ["natural", 0.5]
reference = "exact_dp"
[[sources]]
name = "traps"
[[strategies]]
name = "mystrat:top_k"
k = [1, 3]
[[strategies]]
name = "mystrat:Lightest"
[[strategies]]
name = "greedy_best_single"
'''

DRIVER = '''
import multiprocessing, os, sys
multiprocessing.set_start_method("spawn", force=True)
# As under the `packbench` console script: the working directory is not on sys.path.
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
from packbench.cli import main
sys.exit(main(["run", "outside.toml", "--workers", "2", "--out", "out"]))
'''


def test_user_module_outside_the_repository_runs_with_spawned_workers(tmp_path):
    (tmp_path / "mystrat.py").write_text(USER_MODULE)
    (tmp_path / "outside.toml").write_text(CONFIG)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", DRIVER], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").read_text().splitlines()]
    assert {r["strategy"] for r in rows} == {"mystrat:top_k", "mystrat:Lightest", "greedy_best_single"}
    assert rows and all(r["status"] == "ok" for r in rows), [(r["strategy"], r["reason"]) for r in rows]
    assert all(r["score_ratio"] is not None for r in rows)
    assert {r["strategy_label"] for r in rows if r["strategy"] == "mystrat:top_k"} == \
        {"mystrat:top_k(k=1)", "mystrat:top_k(k=3)"}


def test_contract_violation_in_an_experiment_is_an_error_row(tmp_path):
    from packbench.experiments.config import parse_config
    from packbench.experiments.runner import run_experiment

    cfg = parse_config({"name": "contract", "repeats": 1, "budgets": ["natural"], "reference": "exact_dp",
                        "sources": [{"name": "traps", "trap": "value"}],
                        "strategies": [{"name": "tests.plugins:twice"}]})
    run_experiment(cfg, tmp_path / "contract", progress=False)
    rows = [json.loads(line) for line in (tmp_path / "contract" / "runs.jsonl").read_text().splitlines()]
    assert rows and all(r["status"] == "error" for r in rows)
    assert rows[0]["reason"].startswith("StrategyContractError: strategy 'tests.plugins:twice' broke the function "
                                        "contract: returned")


def test_a_config_names_outside_components_by_import_path_everywhere():
    from packbench.experiments.config import parse_config

    cfg = parse_config({"name": "paths", "budgets": ["natural"], "reference": "tests.plugins:TopFracGreedy",
                        "sources": [{"name": "tests.plugins:Late"}], "orders": ["tests.plugins:Reversed"],
                        "strategies": [{"name": "tests.plugins:by_score", "min_score": [0.0, 2.5]}]})
    assert cfg.reference_name == "tests.plugins:TopFracGreedy"
    assert [g for s in cfg.strategies for g in s.grid()] == [{"min_score": 0.0}, {"min_score": 2.5}]
    with pytest.raises(ValueError, match=r"reference: strategy 'tests.plugins:Nope': module 'tests.plugins' has no"):
        parse_config({"name": "paths", "budgets": ["natural"], "reference": "tests.plugins:Nope",
                      "sources": ["traps"], "strategies": ["greedy"]})
