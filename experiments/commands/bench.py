"""`packbench bench [--quick] [--check [--against REF]] [--update-baseline]`: packbench's own suite and its gate.

``--check`` always benchmarks packbench itself (its checkout, or the installed
package); run from another project it says so. A user's code is gated by
`packbench gate` (docs/ci-gate.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packbench.experiments.bench import build_suite, format_results, run_suite
from packbench.experiments.bench.baseline import baseline_diff, load_baseline, merge_baseline, save_baseline
from packbench.experiments.bench.ci_output import (EXIT_OK, EXIT_REGRESSION, Outcome, markdown_table,
                                                   write_junit)
from packbench.experiments.bench.compare import format_check
from packbench.experiments.storage import write_atomic

if TYPE_CHECKING:
    from packbench.experiments.bench.check import CheckReport

__all__ = ["add_arguments", "main", "default_baseline", "check_document"]


def default_baseline() -> Path:
    """The committed baseline: results/bench/baseline.json of the checkout packbench runs from, else the
    baseline shipped in the package (a wheel install), else results/bench/baseline.json under the cwd."""
    from packbench.experiments.bench.check import source_root
    from packbench.experiments.packaged import packaged_baseline

    root = source_root()
    if root is not None:
        return root / "results" / "bench" / "baseline.json"
    return packaged_baseline() or Path.cwd() / "results" / "bench" / "baseline.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="only the quick cases")
    parser.add_argument("--check", action="store_true",
                        help="paired A/B speed check and quality check; exit 1 on a regression, 2 if it cannot run")
    parser.add_argument("--against", metavar="REF",
                        help="git revision to time against (default: merge-base with main, HEAD~1 on main)")
    parser.add_argument("--no-history", action="store_true",
                        help="pair each case with its fixed reference case instead of a git revision")
    parser.add_argument("--update-baseline", action="store_true",
                        help="record this tree's quality figures and reference ratios in the baseline, print the diff")
    parser.add_argument("--baseline", type=Path, default=None, help="baseline file (default results/bench/baseline.json)")
    parser.add_argument("--out", type=Path, default=None, help="write this run's results (JSON)")
    parser.add_argument("--cases", default=None, help="comma-separated case names to run (default: the suite)")
    parser.add_argument("--tolerance", type=float, default=1.3, help="slowdown factor that fails (default 1.3)")
    parser.add_argument("--floor", type=float, default=0.001,
                        help="CPU seconds of slowdown below which nothing fails (default 0.001)")
    parser.add_argument("--rounds", type=int, default=2, help="fresh process pairs (default 2)")
    parser.add_argument("--pairs", type=int, default=3, help="timing pairs per case and round (default 3)")
    parser.add_argument("--markdown", type=Path, default=None, help="write the verdicts as a markdown table")
    parser.add_argument("--junit", type=Path, default=None, help="write the verdicts as JUnit XML")
    parser.add_argument("--portfolio", action="store_true",
                        help="instead of the suite: the exact solvers' table on Pisinger classes 1-6")


def _say(msg: str) -> None:
    print(f"  {msg}", file=sys.stderr, flush=True)


def main(args: argparse.Namespace) -> int:
    if args.tolerance < 1.0:
        raise ValueError(f"--tolerance must be >= 1, got {args.tolerance}")
    if args.portfolio:
        from packbench.experiments.bench.portfolio import format_portfolio, run_portfolio
        doc = run_portfolio(quick=args.quick, progress=_say)
        print(format_portfolio(doc))
        out = args.out or Path("results") / "bench" / "portfolio.json"
        write_atomic(out, json.dumps(doc, indent=1) + "\n")
        return EXIT_OK
    baseline_path = args.baseline or default_baseline()
    cases = [c for c in args.cases.split(",") if c] if args.cases else None
    if args.update_baseline:
        return _update(args, baseline_path, cases)
    if args.check:
        return _check(args, baseline_path, cases)
    suite = build_suite(args.quick)
    if cases is not None:
        suite = [c for c in suite if c.name in cases]
    doc = run_suite(suite, "quick" if args.quick else "full", progress=_say)
    print(format_results(doc))
    if args.out:
        write_atomic(args.out, json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.out}")
    return EXIT_OK


def _check(args: argparse.Namespace, baseline_path: Path, cases: list[str] | None) -> int:
    from packbench.experiments.bench.check import run_check, scope_note

    note = scope_note(Path.cwd())
    if note:
        print(note, flush=True)
    baseline = load_baseline(baseline_path) if baseline_path.is_file() or args.no_history else None
    report = run_check(against=args.against, baseline=baseline, no_history=args.no_history, cases=cases,
                       full=not args.quick, rounds=args.rounds, pairs=args.pairs, tolerance=args.tolerance,
                       floor=args.floor, progress=_say)
    if baseline is None:
        report.description += f"; no baseline at {baseline_path}: quality compared with REF only"
    print(format_check(report.rows, header=f"mode: {report.description}"))
    outcomes = [Outcome(r.name, r.failed,
                        (r.speed, f"{r.paired.ratio:.2f} [{r.paired.low:.2f}, {r.paired.high:.2f}]" if r.paired else "-",
                         f"{r.paired.current * 1e3:.2f} / {r.paired.reference * 1e3:.2f}" if r.paired else "-",
                         r.quality), "; ".join(r.notes)) for r in report.rows]
    if args.markdown:
        write_atomic(args.markdown, markdown_table("packbench bench --check", (
            "speed", "CPU time ratio now/REF [95% interval]", "CPU ms per call now / REF", "quality"), outcomes,
            intro=f"Mode: {report.description}." + (f" {note}" if note else "")))
    if args.junit:
        write_junit(args.junit, "packbench.bench", outcomes)
    if args.out:
        write_atomic(args.out, json.dumps(check_document(report), indent=1) + "\n")
    return EXIT_REGRESSION if report.failed else EXIT_OK


def check_document(report: CheckReport) -> dict[str, Any]:
    """The JSON record `bench --check --out` writes: raw timings, quality figures and each side's kernels.

    A ratio between a compiled tree and one that ran its numpy fallback measures the build, not the
    change, so the record keeps which kernels each side ran beside the timings.

    Args:
        report: What `run_check` returned.

    Returns:
        A JSON-serialisable dict: mode, description, a and b (case -> seconds per pair), quality (the
        current tree's figures) and kernels ({"now": ..., "ref": ...}, kernel -> "C", "fallback" or "absent").
    """
    res = report.result
    return {"mode": report.mode, "description": report.description, "a": res.a, "b": res.b,
            "quality": res.quality_a, "kernels": {"now": dict(res.kernels_a), "ref": dict(res.kernels_b)}}


def _update(args: argparse.Namespace, baseline_path: Path, cases: list[str] | None) -> int:
    from packbench.experiments.bench.check import measure_reference_ratios, source_root
    from packbench.experiments.bench.revisions import head_commit, repo_root

    old = load_baseline(baseline_path) if baseline_path.is_file() else None
    root = source_root()
    res, ratios = measure_reference_ratios(root, full=not args.quick, cases=cases, progress=_say)
    if res.errors_a:
        raise ValueError("cases failed, baseline not written: " +
                         "; ".join(f"{k}: {v}" for k, v in res.errors_a.items()))
    quality = {k: v for k, v in res.quality_a.items() if cases is None or k in cases}
    quick = {c.name: c.quick for c in build_suite(False)}
    git = repo_root(root) if root is not None else None
    new = merge_baseline(old, quality, {k: v for k, v in ratios.items() if k in quality}, quick,
                         head_commit(git) if git is not None else None)
    diff = baseline_diff(old, new)
    save_baseline(baseline_path, new)
    print("\n".join(diff) if diff else "quality figures unchanged")
    print(f"wrote {baseline_path} ({len(quality)} cases updated)")
    return EXIT_OK
