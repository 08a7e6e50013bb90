"""The paired A/B gate end to end on a throwaway copy of the project: planted slowdowns, old trees, no history.

A module fixture copies the source tree into a temporary git repository and
commits it as `base`. The tests plant a change in `greedy.density_order` (the
sort the density greedy runs) and time a tiny case set of the copy against
`base` in fresh processes. Nothing asserts absolute seconds: only which case
the gate calls slower. The tests whose verdict rests on speed are marked
`timing` (deselected by default; CI runs them in a step of their own).
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from packbench.experiments.bench.abtest import Side, run_ab
from packbench.experiments.bench.check import run_check, source_root
from packbench.experiments.gate.status import Speed

ROOT = source_root()
# One xdist worker builds the module's copy of the tree once (`--dist loadgroup`), not one per worker.
pytestmark = [pytest.mark.skipif(ROOT is None or shutil.which("git") is None,
                                 reason="needs a source checkout of packbench and git"),
              pytest.mark.xdist_group("bench_paired_repo")]

TINY_SUITE = '''
import random
from dataclasses import dataclass
from typing import Any, Callable

from packbench.algorithms.bounds import dantzig_bound
from packbench.algorithms.items import Item
from packbench.algorithms.strategies.greedy import density_order


@dataclass(frozen=True)
class TinyCase:
    name: str
    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    quality: Callable[[Any], dict]
    quick: bool = True
    reference: bool = False


def _items(n, seed):
    rng = random.Random(seed)
    return [Item(f"i{k}", "", rng.random(), rng.randint(1, 50)) for k in range(n)]


def _ref_dp(_):
    table = [0.0] * 2001
    for w in range(1, 40):
        for j in range(2000, w - 1, -1):
            table[j] = max(table[j], table[j - w] + w % 7)
    return table[-1]


def build_suite(quick):
    return [
        TinyCase("strategy/density_order_40k", lambda: _items(40_000, 1), density_order,
                 lambda order: {"first": order[:5]}),
        TinyCase("strategy/dantzig_bound_10k", lambda: _items(10_000, 2), lambda items: dantzig_bound(items, 25_000),
                 lambda bound: {"best": round(bound, 6)}),
        TinyCase("dp/sorted_floats_30k", lambda: [random.Random(3).random() for _ in range(30_000)], sorted,
                 lambda xs: {"n": len(xs)}),
        TinyCase("dp/pure_python_50x32768", lambda: None, _ref_dp, lambda v: {"best": v}, reference=True),
    ]
'''

PLANT = {
    # The sort twice: the density greedy's hot path at 2x.
    "2x": "_once = density_order\n\n\ndef density_order(candidates):\n"
          "    _once(candidates)\n    return _once(candidates)\n",
    # A tenth of the candidates sorted once more: about 1.1x.
    "1.1x": "_once = density_order\n\n\ndef density_order(candidates):\n"
            "    _once(candidates[: len(candidates) // 10])\n    return _once(candidates)\n",
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    dest = tmp_path_factory.mktemp("planted") / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".venv", "*.egg-info")
    for part in ("packbench", "algorithms", "experiments"):
        shutil.copytree(ROOT / part, dest / part, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    (dest / "tiny_suite.py").write_text(TINY_SUITE)
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "base")
    _git(dest, "tag", "base")
    return dest


def _plant(repo: Path, kind: str | None) -> None:
    greedy = repo / "algorithms" / "strategies" / "greedy.py"
    _git(repo, "checkout", "-q", "base", "--", str(greedy))
    if kind is not None:
        greedy.write_text(greedy.read_text() + "\n\n" + PLANT[kind])


def _check(repo: Path, **kw):
    return run_check(repo=repo, against="base", suite_file=repo / "tiny_suite.py", **kw)


@pytest.mark.timing  # its verdict rests on timing a planted slowdown: run apart, on a quiet machine
def test_planted_2x_is_a_regression_of_that_case_only(repo):
    _plant(repo, "2x")
    _git(repo, "checkout", "-q", "-b", "planted-2x")
    _git(repo, "commit", "-q", "-am", "planted 2x")
    report = _check(repo, floor=0.002)
    assert report.mode == "paired" and "REF" in report.description
    assert [r.name for r in report.failed] == ["strategy/density_order_40k"]
    row = report.failed[0]
    assert row.speed == Speed.SLOWER and row.paired.low > 1.3 and row.quality == "ok"
    assert "strategy/density_order_40k" in [r.name for r in report.rows if r.paired is not None]
    _git(repo, "checkout", "-q", "main")


@pytest.mark.timing  # its verdict rests on timing a planted slowdown: run apart, on a quiet machine
def test_planted_1_1x_is_not_a_regression(repo):
    _plant(repo, "1.1x")  # uncommitted: the working tree is what is tested
    report = _check(repo, floor=0.002)
    assert report.failed == []
    assert all(r.paired is not None for r in report.rows if r.name != "dp/pure_python_50x32768")
    _plant(repo, None)


@pytest.mark.timing  # its verdict rests on timing a planted slowdown: run apart, on a quiet machine
def test_unchanged_tree_passes_and_quality_is_compared_side_by_side(repo):
    _plant(repo, None)
    report = _check(repo, rounds=1, pairs=3)
    assert report.failed == [] and {r.quality for r in report.rows} == {"ok"}


def test_quality_drop_against_ref_fails(repo):
    _plant(repo, None)
    greedy = repo / "algorithms" / "strategies" / "greedy.py"
    greedy.write_text(greedy.read_text() + "\n\n_once = density_order\n\n\ndef density_order(candidates):\n"
                      "    return _once(candidates)[::-1]\n")
    report = _check(repo, rounds=1, pairs=1, floor=60.0)  # quality only: no speed verdict can fail
    rows = {r.name: r for r in report.rows}
    assert [r.name for r in report.failed] == ["strategy/density_order_40k"]
    assert rows["strategy/density_order_40k"].quality == "changed"
    assert "first:" in rows["strategy/density_order_40k"].notes[-1]
    assert {rows[n].quality for n in rows if n != "strategy/density_order_40k"} == {"ok"}
    _plant(repo, None)


def test_ref_without_a_suite_or_missing_is_a_clear_error(repo, tmp_path):
    from packbench.experiments.bench.abtest import WorkerError
    from packbench.experiments.bench.revisions import RevisionError

    with pytest.raises(RevisionError, match="nope"):
        run_check(repo=repo, against="nope")
    with pytest.raises(WorkerError, match="no packbench benchmark suite"):
        run_ab(Side("current", repo), Side("empty", tmp_path), rounds=1, pairs=1)


def test_a_tree_from_before_the_rename_is_timed_with_its_old_import_names(tmp_path):
    old = tmp_path / "old"
    (old / "experiments" / "bench").mkdir(parents=True)
    (old / "experiments" / "__init__.py").write_text("")
    (old / "experiments" / "bench" / "__init__.py").write_text("")
    (old / "experiments" / "bench" / "suite.py").write_text(textwrap.dedent('''
        from dataclasses import dataclass
        from typing import Any, Callable

        @dataclass(frozen=True)
        class Case:
            name: str
            quick: bool
            repeats: int
            setup: Callable[[], Any]
            run: Callable[[Any], Any]
            quality: Callable[[Any], dict]

        def build_suite(quick):
            return [Case("tokens/count", True, 1, lambda: list(range(20000)), sum, lambda t: {"total": t})]
        '''))
    res = run_ab(Side("old", old), Side("old again", old), rounds=1, pairs=2)
    assert res.quality_a == {"tokens/count": {"total": sum(range(20000))}} and len(res.a["tokens/count"]) == 2


def test_no_history_mode_pairs_cases_with_their_reference(repo):
    _plant(repo, None)
    baseline = {"cases": {"strategy/density_order_40k": {"quality": {}, "ratio_to_reference": 1e-9}}}
    report = run_check(repo=repo, no_history=True, baseline=baseline, suite_file=repo / "tiny_suite.py",
                       cases=["strategy/density_order_40k"], rounds=1, pairs=3, floor=0.0)
    assert report.mode == "reference cases" and "no git history" in report.description
    # A recorded ratio a billion times smaller than today's: the case reads as slower than recorded.
    assert [(r.name, r.speed) for r in report.failed] == [("strategy/density_order_40k", Speed.SLOWER)]
    with pytest.raises(ValueError, match="update-baseline"):
        run_check(repo=repo, no_history=True, baseline=None, suite_file=repo / "tiny_suite.py")
