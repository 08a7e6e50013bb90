"""`packbench claims [--quick] [--out DIR] [--seed N]`: check every approximation claim, write the report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true",
                        help="CI mode: smaller families and searches (well under a minute)")
    parser.add_argument("--out", type=Path, default=Path("results/claims"),
                        help="output directory (default: results/claims)")
    parser.add_argument("--seed", type=int, default=0, help="run seed (default 0)")


def main(args: argparse.Namespace) -> int:
    # Imported here so `packbench --help` stays fast.
    from packbench.experiments.claims import ClaimViolation, run_claims
    from packbench.experiments.claims.core import HOLDS, NOT_APPLICABLE

    if args.seed < 0:  # numpy's own message ("expected non-negative integer") names no option
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    try:
        rows = run_claims(args.out, quick=args.quick, seed=args.seed,
                          progress=lambda line: print(f"  {line}", file=sys.stderr, flush=True))
    except ClaimViolation as exc:
        print(f"packbench claims: CLAIM VIOLATED: {exc}", file=sys.stderr)
        return 1
    counts = {v: sum(r.verdict == v for r in rows) for v in (HOLDS, NOT_APPLICABLE)}
    print(f"{len(rows)} claims: {counts[HOLDS]} hold, {counts[NOT_APPLICABLE]} not applicable; "
          f"report: {args.out / 'claims.md'}")
    return 0
