"""`packbench claims`: the quick run holds every bound, planted violations fail loudly, instances re-run."""

from __future__ import annotations

import csv
import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.experiments import cli
from packbench.experiments.claims import MEASURES, ClaimViolation, rerun, run_claims
from packbench.experiments.claims import run as run_module
from packbench.experiments.claims.adversarial import SearchSpace, adversarial_search
from packbench.experiments.claims.checks import GroupOutput, Settings, claim_row
from packbench.experiments.claims.core import (TEXT_POOL, Case, brute_force_optimum, case_from_json, case_to_json,
                                               derive_rng, items_of, measure, strategy_value)
from packbench.experiments.claims.groups.knapsack import best_single_then_fill_value, greedy_family, single_fill_family
from packbench.experiments.claims.groups.mmr import mmr_optimum, mmr_sequence_value, relevance_and_similarity
from packbench.experiments.claims.groups.submodular import objective_for, submodular_optimum


# One xdist worker runs the quick claims once for the module (`--dist loadgroup`), not one per worker.
pytestmark = pytest.mark.xdist_group("claims_quick_run")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("claims")
    code = cli.main(["claims", "--quick", "--out", str(out)])
    return code, out


def _rows(out):
    with open(out / "claims.csv", newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_quick_run_holds_every_claim_and_writes_the_report(quick_run):
    code, out = quick_run
    assert code == 0
    rows = _rows(out)
    claims = {r["claim"] for r in rows}
    for expected in ("1", "2a", "2b", "2c", "2d", "3 eps=0.05", "4a", "4b", "5a sqrt, lam=0.5", "5b", "5c",
                     "6 lam=0.7", "7a", "7b", "8 gpt-3.5-turbo-20"):
        assert expected in claims
    assert {r["verdict"] for r in rows} <= {"holds", "not applicable"}
    assert all(r["verdict"] == "holds" for r in rows), [r["claim"] for r in rows if r["verdict"] != "holds"]
    md = (out / "claims.md").read_text(encoding="utf-8")
    assert "| claim | statement | source | bound |" in md and "**holds**" in md
    for r in rows:
        assert (out / "instances" / r["instance"]).is_file(), r
        assert int(r["tried"]) > 0
        assert math.isfinite(float(r["worst"])), r
    assert {p.name for p in (out / "plots").glob("*.png")} >= {"claim1_greedy.png", "adversarial_convergence.png"}


def test_quick_run_reproduces_the_textbook_ratios(quick_run):
    _, out = quick_run
    rows = {r["claim"]: r for r in _rows(out)}
    assert float(rows["1"]["worst"]) == pytest.approx(2 / 100000, rel=1e-12)
    assert float(rows["2a"]["worst"]) == pytest.approx((1000 + 2) / 2000, rel=1e-12)
    assert float(rows["2d"]["worst"]) == pytest.approx(1.5 / 200, rel=1e-12)
    assert float(rows["4b"]["worst"]) == pytest.approx(1001 / 2000, rel=1e-12)
    for eps in (0.5, 0.2, 0.1, 0.05):
        assert float(rows[f"3 eps={eps:g}"]["worst"]) >= 1 - eps


def test_saved_instances_rerun_to_the_same_ratio(quick_run):
    _, out = quick_run
    records = [json.loads(p.read_text(encoding="utf-8")) for p in (out / "instances").glob("*.json")]
    rerunnable = [r for r in records if "measure" in r]
    assert len(rerunnable) >= 20
    for rec in rerunnable:
        assert rerun(rec) == pytest.approx(rec["ratio"], rel=1e-12, abs=1e-15), rec["claim"]


def test_report_has_no_machine_paths(quick_run):
    _, out = quick_run
    for path in [out / "claims.md", out / "claims.csv", *(out / "instances").glob("*.json")]:
        text = path.read_text(encoding="utf-8")
        assert "/work/" not in text and "/tmp/" not in text and "/home/" not in text, path


def _planted_wrong_bound(settings: Settings) -> GroupOutput:
    out = GroupOutput()
    # Plain density greedy claimed >= 1/2: false, and the search alone (no family) must find out.
    claim_row("X", "greedy >= 1/2 (planted, false)", "test", MEASURES["greedy/optimum"], {}, [],
              SearchSpace(n_max=6, budget_max=30), settings, bound=0.5, bound_text=">= 1/2", out=out)
    return out


def test_planted_wrong_bound_raises_after_writing_the_report(tmp_path):
    with pytest.raises(ClaimViolation, match="X"):
        run_claims(tmp_path, quick=True, groups={"planted": _planted_wrong_bound})
    rows = _rows(tmp_path)
    assert rows[0]["verdict"] == "violated" and float(rows[0]["worst"]) < 0.5
    rec = json.loads((tmp_path / "instances" / rows[0]["instance"]).read_text(encoding="utf-8"))
    assert rerun(rec) < 0.5


def test_planted_fake_strategy_makes_the_cli_exit_nonzero(tmp_path, monkeypatch, capsys):
    @measure("fake")
    def first_fit_only(case, params):
        fits = [it.score for it in case.items if it.tokens <= case.budget]
        opt = brute_force_optimum(case)
        return (fits[0], opt) if fits and opt > 0 else None

    def group(settings: Settings) -> GroupOutput:
        out = GroupOutput()
        claim_row("fake", "first fitting item >= 1/2 (planted)", "test", first_fit_only, {},
                  [("two items", Case(items_of([1, 10], [1, 1]), 2), None)], None, settings,
                  bound=0.5, bound_text=">= 1/2", out=out)
        return out

    monkeypatch.setitem(MEASURES, "fake", first_fit_only)
    monkeypatch.setattr(run_module, "GROUPS", {"fake": group})
    assert cli.main(["claims", "--quick", "--out", str(tmp_path)]) == 1
    assert "CLAIM VIOLATED" in capsys.readouterr().err
    assert _rows(tmp_path)[0]["verdict"] == "violated"


def test_family_that_misses_its_formula_is_a_violation(tmp_path):
    def group(settings: Settings) -> GroupOutput:
        out = GroupOutput()
        wrong = [(lbl, case, exp / 2) for lbl, case, exp in greedy_family([10, 100])]
        claim_row("Y", "greedy gives 1/W (planted wrong formula)", "test", MEASURES["greedy/optimum"], {}, wrong, None,
                  settings, bound=None, bound_text="none", out=out)
        return out

    with pytest.raises(ClaimViolation, match="formula"):
        run_claims(tmp_path, quick=True, groups={"g": group})


def test_adversarial_search_is_deterministic_for_a_seed():
    fn = MEASURES["greedy/optimum"]
    space = SearchSpace(n_max=8, budget_max=20)
    a = adversarial_search(lambda c: fn(c, {}), space, derive_rng(3, "t"), restarts=2, steps=40, samples=20)
    b = adversarial_search(lambda c: fn(c, {}), space, derive_rng(3, "t"), restarts=2, steps=40, samples=20)
    assert a.ratio == b.ratio and a.case == b.case and a.trace == b.trace and a.tried == 2 + 2 * 40 + 20
    assert all(x >= y for x, y in zip(a.trace, a.trace[1:]))  # the worst so far never gets better


def test_search_space_rejects_bad_sizes():
    with pytest.raises(ValueError, match="n_max"):
        SearchSpace(n_min=3, n_max=20)
    with pytest.raises(ValueError, match="restarts"):
        adversarial_search(lambda c: None, SearchSpace(), derive_rng(0, "x"), restarts=0, steps=1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 50), st.integers(1, 20)), min_size=1, max_size=10), st.integers(0, 60))
def test_brute_force_optimum_matches_exact_dp(pairs, budget):
    case = Case(items_of([s for s, _ in pairs], [t for _, t in pairs]), budget)
    assert brute_force_optimum(case) == pytest.approx(strategy_value("exact_dp", case), abs=1e-9)


def test_best_single_then_fill_family_is_exact():
    for label, case, expected in single_fill_family([10, 40]):
        assert best_single_then_fill_value(case) / strategy_value("exact_dp", case) == pytest.approx(expected)


def test_case_json_round_trip_and_errors():
    case = Case(items_of([1.5, 2.25], [3, 4], ["a b", "c d"], ["s", None]), 5)
    assert case_from_json(json.loads(json.dumps(case_to_json(case)))) == case
    with pytest.raises(ValueError, match="budget"):
        case_from_json({"items": []})
    with pytest.raises(ValueError, match=r"items\[1\].*tokens"):
        case_from_json({"budget": 3, "items": [{"id": "a", "text": "", "score": 1, "tokens": 1},
                                               {"id": "b", "text": "", "score": 1, "tokens": 0}]})
    with pytest.raises(ValueError, match="unknown measure"):
        rerun({"measure": "nope", "budget": 1, "items": []})


def _random_text_case(seed: int, n: int) -> Case:
    rng = np.random.default_rng(seed)
    texts = [TEXT_POOL[k] for k in rng.integers(len(TEXT_POOL), size=n)]
    return Case(items_of(np.round(rng.uniform(0.1, 5, n), 3), rng.integers(1, 8, n), texts,
                         [["a", "b"][k] for k in rng.integers(2, size=n)]), int(rng.integers(4, 16)))


@pytest.mark.parametrize("seed", range(6))
def test_mmr_optimum_matches_every_sequence(seed):
    case = _random_text_case(seed, 5)
    rel, sim = relevance_and_similarity(case)
    best = 0.0
    for size in range(1, case.n + 1):
        for seq in itertools.permutations(range(case.n), size):
            if sum(case.items[k].tokens for k in seq) <= case.budget:
                best = max(best, mmr_sequence_value(list(seq), rel, sim, 0.6))
    assert mmr_optimum(case, 0.6) == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_submodular_optimum_matches_the_objective_on_every_subset(seed):
    case = _random_text_case(seed, 7)
    params = {"objective": "sqrt", "lam": 0.5}
    f = objective_for(case, params)
    best = max(f.value(list(s)) for size in range(case.n + 1) for s in itertools.combinations(range(case.n), size)
               if sum(case.items[k].tokens for k in s) <= case.budget)
    assert submodular_optimum(case, params) == pytest.approx(best, abs=1e-12)
    assert math.isfinite(best)


def test_negative_seed_is_an_error_naming_the_option(tmp_path, capsys):
    # numpy's "expected non-negative integer" used to reach the user without naming --seed.
    assert cli.main(["claims", "--quick", "--seed", "-1", "--out", str(tmp_path)]) == 2
    assert "packbench claims: error: --seed must be >= 0, got -1" in capsys.readouterr().err
    assert not (tmp_path / "claims.md").exists()


def test_progress_names_each_group_when_it_starts_and_ends(tmp_path):
    lines = []
    run_claims(tmp_path, quick=True, groups={"planted": lambda s: GroupOutput(), "other": lambda s: GroupOutput()},
               progress=lines.append)
    assert lines[0] == "[1/2] planted ..." and lines[1].startswith("[1/2] planted: 0 claims, 0 violated (")
    assert lines[3].startswith("[2/2] other: 0 claims")
