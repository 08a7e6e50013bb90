"""Resume knows the code: rows record a fingerprint of their strategy's code; a change redoes exactly its runs."""

from __future__ import annotations

import importlib
import io
import sys

from packbench.algorithms import ORDERS, STRATEGIES
from packbench.experiments.config import parse_config
from packbench.experiments.console import Console
from packbench.experiments.provenance import code_fingerprint
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
    importlib.reload(mod)
    monkeypatch.setitem(STRATEGIES._table, "top_one", mod.TopOne)
    err = io.StringIO()
    again = run_experiment(cfg, out, console=Console(err, progress=False))
    n_top = sum(r["strategy"] == "top_one" for r in rows)
    assert again["runs_redone_code_changed"] == n_top == 4
    assert again["runs_resumed"] == first["runs_total"] - n_top
    assert f"{n_top} stored runs redone because their code changed (top_one: {n_top})" in err.getvalue()
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
