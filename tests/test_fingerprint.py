"""Resume knows the code: rows record a fingerprint of their strategy's code; a change redoes exactly its runs."""

from __future__ import annotations

import importlib
import io
import sys

from packbench.algorithms import ORDERS, STRATEGIES
from packbench.experiments.config import parse_config
from packbench.experiments.console import Console
from packbench.experiments.provenance import (
    _run_code,
    code_changes,
    code_fingerprint,
    run_code,
)
from packbench.experiments.runner import run_experiment
from packbench.experiments.storage import RunStore

MODULE = '''
from types import MappingProxyType
from packbench.algorithms import Selection
from packbench.algorithms.strategies.base import Strategy


class TopOne(Strategy):
    name = "top_one"
    PARAMS = MappingProxyType({})

    def select(self, problem):
        fits = [k for k, it in enumerate(problem.candidates) if it.tokens <= problem.room]
        return Selection(tuple(fits[:1]))
'''


def test_editing_a_strategy_redoes_exactly_its_runs(tmp_path, monkeypatch):
    (tmp_path / "user_strategies.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("user_strategies")
    monkeypatch.setitem(STRATEGIES._table, "top_one", mod.TopOne)
    cfg = parse_config({"name": "fp", "repeats": 1, "near_dup": "off", "reference": "exact_dp", "budgets": [0.3, 0.6],
                        "seeds": [0, 1], "sources": [{"name": "pisinger", "n": 8}],
                        "strategies": ["greedy", "top_one"]})
    out = tmp_path / "out"
    first = run_experiment(cfg, out, progress=False)
    rows = RunStore(out).load()
    codes = {r["strategy"]: r["code"] for r in rows}
    assert codes["top_one"] != codes["greedy"] and codes["greedy"].startswith("packbench==")
    assert run_experiment(cfg, out, progress=False)["runs_resumed"] == first["runs_total"]

    (tmp_path / "user_strategies.py").write_text(MODULE.replace("fits[:1]", "fits[:2]"))
    code_fingerprint.cache_clear()
    _run_code.cache_clear()
    importlib.reload(mod)
    monkeypatch.setitem(STRATEGIES._table, "top_one", mod.TopOne)
    err = io.StringIO()
    again = run_experiment(cfg, out, console=Console(err, progress=False))
    n_top = sum(r["strategy"] == "top_one" for r in rows)
    assert again["runs_redone_code_changed"] == n_top == 4
    assert again["runs_resumed"] == first["runs_total"] - n_top
    assert (f"resume redid {n_top} stored runs because their code changed: strategy 'top_one' ({n_top})"
            in err.getvalue())
    new = {r["run_id"]: r for r in RunStore(out).load()}
    assert len(new) == first["runs_total"]
    assert all(r["n_chosen"] == 2 for r in new.values() if r["strategy"] == "top_one" and r["n_chosen"] is not None
               and r["budget_spec"] == 0.6)
    sys.modules.pop("user_strategies", None)


def test_fingerprint_covers_the_helpers_a_strategy_imports_and_not_unrelated_files():
    exact = code_fingerprint(STRATEGIES["exact"], ORDERS["original"])
    assert exact == code_fingerprint(STRATEGIES["exact"], ORDERS["original"])
    assert exact != code_fingerprint(STRATEGIES["greedy"], ORDERS["original"])
    from packbench.experiments.provenance import _module_files
    exact_files = _module_files(sys.modules[STRATEGIES["exact"].__module__])
    assert any(name.endswith("solvers.dp") for name in exact_files)           # a helper it calls
    assert not any(name.endswith("strategies.mmr") for name in exact_files)  # not another strategy


def test_plain_progress_lines_when_not_on_a_terminal():
    err = io.StringIO()
    console = Console(err, progress=True, interval=0.0)
    with console.bar(10, "demo") as bar:
        bar.update(4)
        bar.update(6)
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("packbench run: demo: 4/10 runs (40.0%),") and "runs/s" in lines[0]
    assert lines[1].startswith("packbench run: demo: 10/10 runs (100.0%)")
    quiet = io.StringIO()
    with Console(quiet, progress=False, interval=0.0).bar(3, "demo") as bar:
        bar.update(3)
    assert quiet.getvalue() == ""


FAMILY = '''
from packbench.experiments.families.traps import Traps
from packbench.experiments.instances import Instance
from packbench.algorithms import Item


class Shifted(Traps):
    """The traps family with every candidate's score raised by SHIFT."""

    name = "shifted_traps"

    def instances(self, seed):
        for inst in super().instances(seed):
            items = tuple(it if it.pinned else Item(it.id, it.text, it.score + SHIFT, it.tokens) for it in inst.items)
            yield Instance(inst.key, items, inst.groups, inst.answers, inst.meta)


SHIFT = 0
'''


def test_editing_a_source_redoes_its_runs_and_says_why(tmp_path, monkeypatch):
    (tmp_path / "user_family.py").write_text(FAMILY)
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg = parse_config({"name": "src", "repeats": 1, "reference": "exact_dp", "budgets": ["natural"],
                        "seeds": [0, 1], "sources": [{"name": "user_family:Shifted", "trap": "value"}, "traps"],
                        "strategies": ["greedy", "exact_dp"]})
    out = tmp_path / "out"
    first = run_experiment(cfg, out, progress=False)
    before = {r["run_id"]: r for r in RunStore(out).load()}
    (tmp_path / "user_family.py").write_text(FAMILY.replace("SHIFT = 0", "SHIFT = 1"))
    code_fingerprint.cache_clear()
    _run_code.cache_clear()
    importlib.reload(sys.modules["user_family"])
    err = io.StringIO()
    again = run_experiment(cfg, out, console=Console(err, progress=False))
    shifted = {rid for rid, r in before.items() if r["source"] == "user_family:Shifted"}
    assert again["runs_redone_code_changed"] == len(shifted) == 4
    assert again["runs_resumed"] == first["runs_total"] - 4
    assert "resume redid 4 stored runs because their code changed: source 'user_family:Shifted' (4)" in err.getvalue()
    after = {r["run_id"]: r for r in RunStore(out).load()}
    assert all(after[rid]["score"] > before[rid]["score"] for rid in shifted)
    sys.modules.pop("user_family", None)


def test_the_run_code_names_each_part_and_code_changes_finds_the_changed_one():
    from packbench.algorithms.dedupe import DEDUPE_METHODS
    from packbench.algorithms.fill import Fill
    from packbench.experiments.config import source_registry
    from packbench.experiments.metrics import Measured

    parts = {"strategy": STRATEGIES["greedy"], "order": ORDERS["original"], "source": source_registry()["traps"],
             "metrics": Measured, "dedupe": DEDUPE_METHODS["exact"], "fill": Fill, "reference": STRATEGIES["exact_dp"]}
    code = run_code(parts)
    assert code.startswith("packbench==") and [p.split("=")[0] for p in code.split(":")[1].split(",")] == list(parts)
    for name, other in [("source", source_registry()["pisinger"]), ("dedupe", DEDUPE_METHODS["minhash"]),
                        ("reference", STRATEGIES["cpsat"])]:
        assert code_changes(code, run_code({**parts, name: other})) == [name]
    assert code_changes(code, code) == []
    assert code_changes("packbench==0.1.0:0123456789abcdef", code) == ["fingerprint format"]
    assert code_changes(None, code) == ["fingerprint format"]
