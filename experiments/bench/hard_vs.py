"""`exact` now against an older tree's `exact` on the hard families, interleaved, in CPU seconds.

Run through ``python -m packbench.experiments.bench.hard --before TREE`` (see `hard.main`).
Per instance the two run in turn, each in a worker process of its own (`BeforeWorker`: this
checkout's, then the older tree's; in this process only where packbench is not run from a
checkout), each with the same time limit; where both take under 0.2 s they repeat 5 times,
still in turn, and keep the median; where both prove it in under 5 s a second pair runs in the other
order and each side keeps its faster run. A combo anchor file (``--combo-csv``: class, n, seed,
combo_cpu_seconds, combo_solved, as measured outside the project) adds combo's figure and
exact's ratio to it; it is orientation, not an oracle.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import statistics
import time
from collections.abc import Sequence
from typing import Any

from packbench.algorithms import STRATEGIES, Problem

from .before import BeforeWorker, this_tree

__all__ = ["classic_cases", "combo_figures", "format_vs", "run_vs"]

_FAST_SEC = 0.2
_REPEATS = 5
_PAIR_SEC = 5.0
CLASSIC = ("uncorrelated", "weakly_correlated", "strongly_correlated")


def classic_cases(sizes: Sequence[int], R: int = 10**4) -> list[tuple[str, int, int, Problem]]:
    """Pisinger's classes 1-3 (seed 0, capacity half the total weight), as `hard.hard_cases` gives its classes."""
    from packbench.experiments.families import FAMILIES

    cases = []
    for n in sizes:
        for cls in CLASSIC:
            inst = next(FAMILIES["pisinger"](cls=cls, n=n, R=R).instances(0))
            cands = tuple(i for i in inst.items if not i.pinned)
            cases.append((f"{cls}(R={R})", n, 0, Problem(cands, inst.meta["budget"])))
    return cases


def combo_figures(path: str | None) -> dict[tuple[str, int, int], dict[str, str]]:
    """(class, n, seed) -> the anchor row, from a combo csv (empty without one)."""
    if not path:
        return {}
    with open(path, newline="", encoding="utf-8") as fh:
        return {(r["class"], int(r["n"]), int(r["seed"])): r for r in csv.DictReader(fh)}


def _now(problem: Problem, limit: float) -> dict[str, Any]:
    gc.collect()
    start = time.process_time()
    sel = STRATEGIES["exact"](time_limit=limit).select(problem)
    cpu = time.process_time() - start
    return {"cpu": cpu, "optimal": bool(sel.optimal), "score": sum(problem.candidates[k].score for k in sel.indices),
            "solver": sel.info.get("solver", ""), "tie_break": sel.info.get("tie_break", "")}


def run_vs(cases: list[tuple[str, int, int, Problem]], tree: str, limit: float = 10.0,
           combo: dict | None = None, progress=None) -> list[dict[str, Any]]:
    """One row per case: {cls, n, seed, now, before, combo_cpu, combo_solved, agree}."""
    combo = combo or {}
    rows = []
    here = this_tree()
    if here is None:  # the in-process side: its compiled search loads here, not inside a timed call
        STRATEGIES["exact"].warm_up()
    with BeforeWorker(tree) as before, (BeforeWorker(here) if here else contextlib.nullcontext()) as worker:
        solve_now = worker.solve if worker else _now  # the same worker code on both sides (`before`)
        for label, n, seed, problem in cases:
            now, old = solve_now(problem, limit), before.solve(problem, limit)
            if now["cpu"] < _FAST_SEC and old["cpu"] < _FAST_SEC:
                a, b = [now["cpu"]], [old["cpu"]]
                for _ in range(_REPEATS - 1):
                    a.append(solve_now(problem, limit)["cpu"])
                    b.append(before.solve(problem, limit)["cpu"])
                now["cpu"], old["cpu"] = statistics.median(a), statistics.median(b)
            elif max(now["cpu"], old["cpu"]) < _PAIR_SEC and now["optimal"] and old["optimal"]:
                # The first call on an instance pays for its fresh memory (jooken(c=1e6, g=6), n = 1,000:
                # 0.70 s, then 0.51 s in the same worker), and `now` runs first: a second pair, in the
                # other order, and each side's faster run.
                old["cpu"] = min(old["cpu"], before.solve(problem, limit)["cpu"])
                now["cpu"] = min(now["cpu"], solve_now(problem, limit)["cpu"])
            anchor = combo.get((label, n, seed), {})
            proven = [r["score"] for r in (now, old) if r["optimal"]]
            rows.append({"cls": label, "n": n, "seed": seed, "now": now, "before": old,
                         "combo_cpu": float(anchor["combo_cpu_seconds"]) if anchor.get("combo_cpu_seconds") else None,
                         "combo_solved": anchor.get("combo_solved", "-"),
                         "agree": len({round(s, 6) for s in proven}) <= 1})
            if progress:
                progress(format_vs(rows[-1:], header=False))
    return rows


def _cell(r: dict[str, Any]) -> str:
    return f"{r['cpu']:.4f}{'' if r['optimal'] else '*'}"


def format_vs(rows: list[dict[str, Any]], header: bool = True) -> str:
    """The table as text (CPU seconds; * = not proven within the limit)."""
    lines = []
    if header:
        lines += [f"{'n':>6} {'class':<30} {'now s':>9} {'before s':>9} {'combo s':>9} {'now/combo':>9} "
                  f"{'now/before':>10} {'proven now/before/combo':>24} agree tie_break", "-" * 128]
    for r in rows:
        c = r["combo_cpu"]
        ratio = f"{r['now']['cpu'] / c:.1f}" if c and r["now"]["optimal"] else "-"
        speed = f"{r['now']['cpu'] / r['before']['cpu']:.3f}" if r["before"]["cpu"] > 0 else "-"
        proven = (f"{'yes' if r['now']['optimal'] else 'NO'}/{'yes' if r['before']['optimal'] else 'no'}/"
                  f"{r['combo_solved'].split(' ')[0]}")
        lines.append(f"{r['n']:>6} {r['cls']:<30} {_cell(r['now']):>9} {_cell(r['before']):>9} "
                     f"{(f'{c:.4f}' if c is not None else '-'):>9} {ratio:>9} {speed:>10} {proven:>24} "
                     f"{'yes' if r['agree'] else 'NO':>5} {r['now']['tie_break']}")
    if header:
        lines += _summary(rows)
        lines.append("CPU seconds (process time), interleaved per instance; * = not proven within the limit; "
                     "combo = the anchor csv's combo_cpu_seconds (measured outside, idle machine).")
    return "\n".join(lines)


def _summary(rows: list[dict[str, Any]]) -> list[str]:
    """The issue's target figures: ratios to combo (over 1 ms), exact's time where combo is under 1 ms, proofs."""
    timed = [r for r in rows if r["combo_cpu"] and r["now"]["optimal"]]
    over = sorted((r["now"]["cpu"] / r["combo_cpu"], r["cls"], r["n"]) for r in timed if r["combo_cpu"] > 1e-3)
    under = sorted((r["now"]["cpu"], r["cls"], r["n"]) for r in timed if r["combo_cpu"] <= 1e-3)
    ratios = sorted(r["now"]["cpu"] / r["combo_cpu"] for r in timed)
    solved = [r for r in rows if r["combo_solved"] == "yes"]
    out = []
    if ratios:
        out.append(f"now/combo over {len(ratios)} proven rows: median {statistics.median(ratios):.1f}x")
    if over:
        out.append(f"  where combo > 1 ms ({len(over)}): median {statistics.median(x for x, _, _ in over):.1f}x, "
                   f"worst {over[-1][0]:.1f}x ({over[-1][1]}, n = {over[-1][2]}) (target <= 20x)")
    if under:
        out.append(f"  where combo <= 1 ms ({len(under)}): exact's worst {under[-1][0] * 1e3:.2f} ms "
                   f"({under[-1][1]}, n = {under[-1][2]}) (target <= 2 ms)")
    if solved:
        out.append(f"combo_solved instances proven now: {sum(r['now']['optimal'] for r in solved)} / {len(solved)}")
    before = sorted(r["now"]["cpu"] / r["before"]["cpu"] for r in rows if r["before"]["cpu"] > 0)
    if before:
        out.append(f"now/before: median {statistics.median(before):.3f}, worst {before[-1]:.3f}")
    return out
