"""Claims 1-4: density greedy, the best-single fixes, the FPTAS and the Dantzig bound.

Two heuristics checked here are not registered strategies, so they are
written out below: the textbook "better of greedy and the best single item"
(Vazirani's modified greedy) and "best single item first, then greedy fill"
on its own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from packbench.algorithms.bounds import dantzig_bound
from packbench.algorithms.strategies.greedy import density_order, greedy_fill

from ..adversarial import SearchSpace
from ..checks import GroupOutput, PlotSpec, Settings, claim_row
from ..core import Case, brute_force_optimum, derive_rng, items_of, measure, measure_table, strategy_value

__all__ = ["exact_optimum", "best_single_value", "best_single_then_fill_value", "knapsack_claims",
           "KNAPSACK_MEASURES", "fptas_timing"]

VAZIRANI = "Vazirani, Approximation Algorithms (2001), Ex. 8.2; Ibarra & Kim (1975)"
SPACE = SearchSpace(n_min=2, n_max=12, budget_max=48)
FPTAS_EPS = (0.5, 0.2, 0.1, 0.05)


def exact_optimum(case: Case) -> float:
    """Exact knapsack optimum: brute force up to 14 items, the exact DP beyond."""
    if case.n <= 14:
        return brute_force_optimum(case)
    return strategy_value("exact_dp", case)


def _fitting(case: Case) -> list[int]:
    return [k for k, it in enumerate(case.items) if it.tokens <= case.budget]


def best_single_value(case: Case) -> float:
    """Score of the best item that fits alone (0 when none fits)."""
    return max((case.items[k].score for k in _fitting(case)), default=0.0)


def best_single_then_fill_value(case: Case) -> float:
    """"Best single item first, then greedy fill" alone, without comparing to greedy."""
    fits = _fitting(case)
    if not fits:
        return 0.0
    single = min(fits, key=lambda k: (-case.items[k].score, case.items[k].tokens, case.items[k].id))
    chosen = greedy_fill(case.items, case.budget, start=[single], order=density_order(case.items))
    return math.fsum(case.items[k].score for k in chosen)


def _ratio_or_none(value: float, ref: float) -> tuple[float, float] | None:
    return (value, ref) if ref > 0 else None


@measure("greedy/optimum")
def _greedy(case: Case, params: Mapping[str, Any]):
    return _ratio_or_none(strategy_value("greedy", case), exact_optimum(case))


@measure("max(greedy, best single)/optimum")
def _textbook(case: Case, params: Mapping[str, Any]):
    return _ratio_or_none(max(strategy_value("greedy", case), best_single_value(case)), exact_optimum(case))


@measure("greedy_best_single/optimum")
def _greedy_best_single(case: Case, params: Mapping[str, Any]):
    return _ratio_or_none(strategy_value("greedy_best_single", case), exact_optimum(case))


@measure("greedy_best_single/max(greedy, best single)")
def _dominance(case: Case, params: Mapping[str, Any]):
    textbook = max(strategy_value("greedy", case), best_single_value(case))
    return _ratio_or_none(strategy_value("greedy_best_single", case), textbook)


@measure("best_single_then_fill/optimum")
def _single_then_fill(case: Case, params: Mapping[str, Any]):
    return _ratio_or_none(best_single_then_fill_value(case), exact_optimum(case))


@measure("fptas/optimum")
def _fptas(case: Case, params: Mapping[str, Any]):
    return _ratio_or_none(strategy_value("fptas", case, eps=params["eps"]), exact_optimum(case))


@measure("(4n/eps+1)/fptas levels")
def _fptas_levels(case: Case, params: Mapping[str, Any]):
    from packbench.algorithms.bounds import fitting_positive
    from packbench.algorithms.items import Problem
    from packbench.algorithms.strategies.fptas import FPTAS

    n = len(fitting_positive(case.items, case.budget))
    if n == 0:
        return None
    sel = FPTAS(eps=params["eps"]).select(Problem(case.items, case.budget, ()))
    return 4 * n / params["eps"] + 1, float(sel.info["levels"])


@measure("dantzig_bound/optimum")
def _dantzig_sound(case: Case, params: Mapping[str, Any]):
    return _ratio_or_none(dantzig_bound(case.items, case.budget), exact_optimum(case))


@measure("optimum/dantzig_bound")
def _dantzig_within_2(case: Case, params: Mapping[str, Any]):
    return _ratio_or_none(exact_optimum(case), dantzig_bound(case.items, case.budget))


KNAPSACK_MEASURES = measure_table(_greedy, _textbook, _greedy_best_single, _dominance, _single_then_fill, _fptas,
                                  _fptas_levels, _dantzig_sound, _dantzig_within_2)


def _observed(fn, family) -> list[float]:
    out = []
    for _, case, _ in family:
        value, ref = fn(case, {})
        out.append(value / ref)
    return out


def _case(pairs: list[tuple[float, int]], budget: int) -> Case:
    return Case(items_of([s for s, _ in pairs], [t for _, t in pairs]), budget)


def greedy_family(ws: list[int]) -> list[tuple[str, Case, float]]:
    """Budget W, items (score 2, 1 token) and (W, W): greedy gets 2 of W."""
    return [(f"W={w}", _case([(2, 1), (w, w)], w), 2 / w) for w in ws]


def tight_family(ms: list[int]) -> list[tuple[str, Case, float]]:
    """Budget 2M, items (2, 1), (M, M), (M, M): greedy and best single get M + 2 of 2M."""
    return [(f"M={m}", _case([(2, 1), (m, m), (m, m)], 2 * m), (m + 2) / (2 * m)) for m in ms]


def single_fill_family(ws: list[int], d: float = 0.5) -> list[tuple[str, Case, float]]:
    """Budget W, one item (1 + d, W) and W unit items (1, 1): best-single-then-fill gets 1 + d of W."""
    return [(f"W={w}, d={d:g}", _case([(1 + d, w)] + [(1, 1)] * w, w), (1 + d) / w) for w in ws]


def dantzig_family(ms: list[int]) -> list[tuple[str, Case, float]]:
    """Budget 2M, two items (1, M + 1): optimum 1, bound 2M / (M + 1), so optimum/bound = (M+1)/(2M)."""
    return [(f"M={m}", _case([(1, m + 1), (1, m + 1)], 2 * m), (m + 1) / (2 * m)) for m in ms]


def fptas_timing(settings: Settings) -> tuple[list[tuple[float, float, int]], float, float]:
    """FPTAS cost per eps on the same random instances.

    Returns:
        ([(eps, median seconds, median DP levels)], log-log slope of seconds
        against 1/eps, the same slope for DP cells). The profit-scaling DP
        does one pass over its profit levels per item, and the levels grow as
        n/eps, so both slopes should be about 1 (Vazirani Thm. 8.4 states
        O(n^3/eps) time for the textbook table of n^2/eps levels).
    """
    from packbench.algorithms.items import Problem
    from packbench.algorithms.strategies.fptas import FPTAS

    rng = derive_rng(settings.seed, "fptas-timing")
    n, budget = (200, 2000) if settings.quick else (1000, 10000)
    cases = [Case(items_of(np.round(rng.uniform(1, 100, n), 3), rng.integers(1, budget // 10, n)), budget)
             for _ in range(3)]
    points = []
    for eps in FPTAS_EPS:
        times, levels = [], []
        for case in cases:
            start = time.perf_counter()
            sel = FPTAS(eps=eps).select(Problem(case.items, case.budget, ()))
            times.append(time.perf_counter() - start)
            levels.append(int(sel.info["levels"]))
        points.append((eps, float(np.median(times)), int(np.median(levels))))
    xs = np.log([1 / e for e, _, _ in points])
    slope_t = float(np.polyfit(xs, np.log([max(t, 1e-9) for _, t, _ in points]), 1)[0])
    slope_c = float(np.polyfit(xs, np.log([c for _, _, c in points]), 1)[0])
    return points, slope_t, slope_c


def knapsack_claims(settings: Settings) -> GroupOutput:
    """Claims 1, 2a-2d, 3 and 4a-4b."""
    out = GroupOutput()
    ws = sorted({int(round(w)) for w in np.logspace(1, 5, 13)})
    fam1 = greedy_family(ws)
    claim_row("1", "Density greedy has no constant guarantee: budget W, items (2,1), (W,W) give exactly 2/W.",
              "folklore; Vazirani (2001) Ch. 8", _greedy, {}, fam1, SPACE, settings,
              bound=None, bound_text="none (2/W -> 0)", out=out)
    ms = [2, 3, 5, 10, 30, 100, 300, 1000] if settings.quick else [2, 3, 5, 10, 30, 100, 300, 1000, 10000]
    fam2 = tight_family(ms)
    claim_row("2a", "max(greedy, best single item) >= 1/2 * optimum; tight family gives (M+2)/(2M) -> 1/2.",
              VAZIRANI, _textbook, {}, fam2 + [(lbl, c, None) for lbl, c, _ in fam1],
              SPACE, settings, bound=0.5, bound_text=">= 1/2", out=out)
    claim_row("2b", "Seed 000's greedy_best_single (better of greedy and best-single-then-fill) >= 1/2 * optimum.",
              VAZIRANI + "; seed 000", _greedy_best_single, {}, fam2, SPACE, settings,
              bound=0.5, bound_text=">= 1/2", out=out)
    claim_row("2c", "greedy_best_single dominates max(greedy, best single) on every instance.",
              "follows from the definitions (seed 000)", _dominance, {},
              [], SPACE, settings, bound=1.0, bound_text=">= 1", out=out)
    wsf = [10, 20, 50, 100, 200] if settings.quick else [10, 20, 50, 100, 200, 500]
    famd = single_fill_family(wsf)
    claim_row("2d", "Best single item first, then greedy fill, alone has no constant bound: (1+d)/W.",
              "folklore (why seed 000 also keeps greedy)", _single_then_fill, {},
              famd, SPACE, settings, bound=None, bound_text="none ((1+d)/W -> 0)", out=out)
    for eps in FPTAS_EPS:
        claim_row(f"3 eps={eps:g}", f"FPTAS value >= (1 - eps) * optimum for eps = {eps:g}.",
                  "Ibarra & Kim (1975); Vazirani (2001) Alg. 8.2, Thm. 8.4", _fptas, {"eps": eps},
                  [(lbl, c, None) for lbl, c, _ in fam2 + fam1], SPACE, settings, bound=1 - eps,
                  bound_text=f">= {1 - eps:g}", out=out)
    claim_row("3 size", "FPTAS DP uses at most 4n/eps + 1 profit levels (n fitting items), so time is "
              "O(n^2/eps), within Vazirani's O(n^3/eps).", "fptas module docstring; Vazirani (2001) Thm. 8.4",
              _fptas_levels, {"eps": 0.05}, [], SPACE, settings, bound=1.0,
              bound_text="(4n/eps+1) / levels >= 1", out=out)
    points, slope_t, slope_c = fptas_timing(settings)
    n = 200 if settings.quick else 1000
    table = "\n".join(f"| {e:g} | {1 / e:g} | {c} | {t:.4f} |" for e, t, c in points)
    out.sections.append(
        "## Claim 3: FPTAS running time\n\n"
        f"`fptas` on the same 3 random instances of n = {n} items for each eps: median DP profit levels "
        "(deterministic) and median seconds (reported, not asserted: the machine is shared, so seconds "
        "vary run to run). The DP does one numpy pass over its levels per item, so both should grow "
        "about linearly in 1/eps.\n\n"
        f"| eps | 1/eps | DP levels | median seconds |\n|---|---|---|---|\n{table}\n\n"
        f"Log-log slope against 1/eps: DP levels **{slope_c:.2f}**, seconds **{slope_t:.2f}** "
        "(linear growth: 1; seconds flatten where per-item overhead dominates).\n")
    out.plots.append(PlotSpec("claim3_fptas_time", f"FPTAS cost vs 1/eps (n={n})", "1/eps",
                              "median seconds / DP levels (scaled)",
                              [("seconds", [1 / e for e, _, _ in points], [t for _, t, _ in points], "o-"),
                               ("DP levels / 1e6", [1 / e for e, _, _ in points],
                                [c / 1e6 for _, _, c in points], "s--")], logx=True, logy=True))
    allfit = [(f"all fit, n={n}", _case([(n - k, k + 1) for k in range(n)], n * (n + 1) // 2), 1.0)
              for n in (2, 5, 10)]
    claim_row("4a", "Dantzig (LP relaxation) bound >= optimum.", "Dantzig (1957)", _dantzig_sound, {},
              allfit, SPACE, settings, bound=1.0, bound_text="bound/optimum >= 1", out=out)
    claim_row("4b", "Dantzig bound <= 2 * optimum when every item fits alone (items that do not are ignored).",
              "Dantzig (1957); Kellerer, Pferschy & Pisinger (2004) Sec. 2.2", _dantzig_within_2, {},
              dantzig_family(ms), SPACE, settings, bound=0.5, bound_text="optimum/bound >= 1/2", out=out)
    out.plots.append(PlotSpec("claim1_greedy", "Claim 1: density greedy on budget W, items (2,1), (W,W)",
                              "W", "greedy / optimum",
                              [("observed", ws, _observed(_greedy, fam1), "o"),
                               ("2/W", ws, [2 / w for w in ws], "-")], logx=True, logy=True))
    out.plots.append(PlotSpec("claim2_families", "Claim 2: textbook families", "M or W", "ratio to optimum",
                              [("max(greedy, best single), tight family", ms, _observed(_textbook, fam2), "o"),
                               ("(M+2)/(2M)", ms, [e for _, _, e in fam2], "-"),
                               ("best single then fill", wsf, _observed(_single_then_fill, famd), "s"),
                               ("(1+d)/W, d=0.5", wsf, [e for _, _, e in famd], "--")],
                              logx=True, hline=0.5))
    return out
