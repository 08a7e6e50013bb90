"""`packbench bench [--quick] [--check]`: the benchmark suite and its regression gate."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from packbench.experiments.bench import build_suite, compare_runs, format_check, format_results, run_suite

__all__ = ["add_arguments", "main"]

_DIR = Path("results") / "bench"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true", help="only the quick cases (under a minute)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the baseline; exit 1 on a quality change or a slowdown")
    parser.add_argument("--baseline", type=Path, default=_DIR / "baseline.json", help="baseline results file")
    parser.add_argument("--out", type=Path, default=_DIR / "latest.json", help="where to write this run")
    parser.add_argument("--tolerance", type=float, default=2.5,
                        help="allowed slowdown factor, relative to the same-run reference computation")
    parser.add_argument("--portfolio", action="store_true",
                        help="instead of the suite: the exact solvers' table on Pisinger classes 1-6")


def main(args: argparse.Namespace) -> int:
    if args.tolerance < 1.0:
        raise ValueError(f"--tolerance must be >= 1, got {args.tolerance}")
    if args.portfolio:
        from packbench.experiments.bench.portfolio import format_portfolio, run_portfolio
        doc = run_portfolio(quick=args.quick, progress=lambda s: print(f"  {s}", file=sys.stderr, flush=True))
        print(format_portfolio(doc))
        out = args.out.with_name("portfolio.json") if args.out == _DIR / "latest.json" else args.out
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=1) + "\n")
        return 0
    baseline = None
    if args.check:
        if not args.baseline.is_file() and args.baseline == _DIR / "baseline.json":
            from ..packaged import packaged_baseline
            args.baseline = packaged_baseline() or args.baseline  # outside the repository: the shipped one
        if not args.baseline.is_file():
            raise FileNotFoundError(f"no baseline at {args.baseline}; run 'packbench bench' and commit it")
        baseline = json.loads(args.baseline.read_text())
    mode = "quick" if args.quick else "full"
    doc = run_suite(build_suite(args.quick), mode,
                    progress=lambda name: print(f"  running {name}", file=sys.stderr, flush=True))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(format_results(doc))
    print(f"wrote {args.out}")
    if baseline is None:
        return 0
    rows = compare_runs(baseline, doc, tolerance=args.tolerance)
    print()
    print(format_check(rows))
    return 1 if any(r.failed for r in rows) else 0
