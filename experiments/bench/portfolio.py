"""The exact solvers side by side on Pisinger classes 1-6 (the `exact` portfolio's target table)."""

from __future__ import annotations

import gc
import statistics
from collections.abc import Callable
from typing import Any

from packbench.algorithms import STRATEGIES

from .timing import median_seconds
from .workloads import pisinger_problem

__all__ = ["run_portfolio", "format_portfolio", "SOLVER_LIMITS"]

# Time limits (s) that keep the whole table to a few minutes; CP-SAT only up to n = 1,000.
SOLVER_LIMITS = {"bnb": 2.0, "cpsat": 2.0, "exact": 60.0}
CPSAT_MAX_N = 1000
_SOLVERS = ("exact", "bnb", "exact_dp", "cpsat")


def run_portfolio(quick: bool = False, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Time exact, bnb, exact_dp and cpsat on class x n x budget.

    Each solver runs once; those under 0.5 s (except CP-SAT) then run 2 more rounds,
    round-robin (4 when all are under 0.05 s), and the median is kept. Garbage is
    collected before every timed run.

    Args:
        quick: Only n in {100, 1000} and budgets {4096, 32768}.
        progress: Called with each cell's label.

    Returns:
        ``{"limits", "cells": [{cls, n, budget, solvers: {name: {seconds, optimal, score, solver}}}]}``.
    """
    sizes = (100, 1000) if quick else (100, 1000, 10_000)
    budgets = (4096, 32_768) if quick else (4096, 32_768, 131_072)
    cells = []
    for cls in range(1, 7):
        for n in sizes:
            for budget in budgets:
                if progress:
                    progress(f"class {cls} n={n} budget={budget}")
                prob = pisinger_problem(cls, n, budget, seed=cls * 7 + n + budget)
                cells.append({"cls": cls, "n": n, "budget": budget, "solvers": _time_cell(prob, n)})
    return {"limits": SOLVER_LIMITS, "cpsat_max_n": CPSAT_MAX_N, "cells": cells}


def _time_cell(prob, n: int) -> dict[str, Any]:
    """Each solver once, then round-robin repeats of the fast ones (fair under changing load)."""
    strategies = {}
    for name in _SOLVERS:
        if name == "cpsat" and n > CPSAT_MAX_N:
            continue
        params = {"time_limit": SOLVER_LIMITS[name]} if name in SOLVER_LIMITS else {}
        strategies[name] = STRATEGIES[name](**params)
    row: dict[str, Any] = {}
    times: dict[str, list[float]] = {}
    for name, strategy in strategies.items():
        gc.collect()
        try:
            once, sel, _ = median_seconds(lambda: strategy.select(prob), 1)
        except RuntimeError as exc:  # e.g. CP-SAT ending with UNKNOWN at its limit
            row[name] = {"seconds": SOLVER_LIMITS.get(name, 0.0), "optimal": False, "score": None,
                         "solver": None, "error": str(exc)}
            continue
        times[name] = [once]
        row[name] = {"optimal": sel.optimal, "score": sum(prob.candidates[k].score for k in sel.indices),
                     "solver": sel.info.get("solver")}
    # CP-SAT is left out of the rounds: the garbage of its model slows whatever runs next.
    fast = [name for name, t in times.items() if t[0] < 0.5 and name != "cpsat"]
    rounds = 4 if all(times[name][0] < 0.05 for name in fast) else 2
    for _ in range(rounds):
        for name in fast:
            gc.collect()
            times[name].append(median_seconds(lambda: strategies[name].select(prob), 1)[0])
    for name, t in times.items():
        row[name]["seconds"] = statistics.median(t)
    return row


def portfolio_verdict(cell: dict[str, Any]) -> tuple[float | None, bool]:
    """(exact's time / the faster proven time of bnb and exact_dp, exact proved whenever either did)."""
    s = cell["solvers"]
    proven = [s[k]["seconds"] for k in ("bnb", "exact_dp") if k in s and s[k]["optimal"]]
    ratio = s["exact"]["seconds"] / min(proven) if proven else None
    return ratio, bool(s["exact"]["optimal"]) or not proven


def format_portfolio(doc: dict[str, Any]) -> str:
    """Markdown table: medians in ms ('*' = not proven optimal within the limit)."""
    out = ["| class | n | budget | exact | bnb | exact_dp | cpsat | exact / best | finished by |",
           "|---|---|---|---|---|---|---|---|---|"]
    worst = 0.0
    for cell in doc["cells"]:
        s = cell["solvers"]

        def fmt(name):
            if name not in s:
                return "-"
            star = "" if s[name]["optimal"] else "*"
            return f"{s[name]['seconds'] * 1e3:.1f}{star}"

        ratio, ok = portfolio_verdict(cell)
        worst = max(worst, ratio or 0.0)
        ratio_txt = "-" if ratio is None else f"{ratio:.2f}"
        if not ok:
            ratio_txt += " NOT PROVEN"
        out.append(f"| {cell['cls']} | {cell['n']} | {cell['budget']} | {fmt('exact')} | {fmt('bnb')} | "
                   f"{fmt('exact_dp')} | {fmt('cpsat')} | {ratio_txt} | {s['exact']['solver']} |")
    out.append(f"\nworst exact / min(bnb, exact_dp) ratio: {worst:.2f}; times in ms, '*' = limit hit "
               f"(limits: {doc['limits']}, cpsat only for n <= {doc['cpsat_max_n']})")
    return "\n".join(out)
