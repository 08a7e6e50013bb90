"""`packbench report DIR`: re-derive summary.csv, summary.md and plots from DIR/runs.jsonl.

``--history H`` draws the gate history store H (PNGs and ``history.html`` in H);
with DIR too, DIR's ``report.html`` also gets the history section.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", type=Path, nargs="?", help="result directory holding runs.jsonl")
    parser.add_argument("--history", type=Path, default=None,
                        help="draw the gate history store in this directory (packbench gate --history): PNGs and "
                             "history.html there; with DIR too, DIR's report.html also gets a gate history section")


def main(args: argparse.Namespace) -> int:
    from ..report import PLOTS, write_report
    from ..columnar import read_runs
    from ..storage import REPORT_EXCLUDED, RunStore

    if args.history is not None and args.dir is None:
        from ..gate.history import draw_history
        return draw_history(args.history)
    if args.dir is None:
        raise ValueError("give a result directory (or --history DIR)")
    store = RunStore(args.dir)
    if not store.path.is_file():
        raise FileNotFoundError(f"{store.path.as_posix()}: no runs.jsonl in {args.dir.as_posix()!r}")
    # Via runs.parquet, in column subsets: a million rows fit; runs.jsonl itself is never rewritten.
    rows = read_runs(args.dir, exclude=REPORT_EXCLUDED)
    dropped = rows.attrs.get("dropped_lines", 0)
    if dropped:
        print(f"packbench report: warning: skipped {dropped} unreadable line(s) of "
              f"{store.path.as_posix()} (not a JSON row with a run_id, or a repeated run_id)", file=sys.stderr)
    plots = list(PLOTS)
    manifest_path = args.dir / "manifest.json"
    if manifest_path.is_file():
        configured = json.loads(manifest_path.read_text(encoding="utf-8")).get("config", {}).get("plots")
        plots = [p for p in configured if p in PLOTS] if configured else plots
    written = write_report(args.dir, rows, plots=plots)
    print(f"packbench report: {len(rows):,} rows -> {len(written)} files in {args.dir.as_posix()}", file=sys.stderr)
    if args.history is not None:
        from ..gate.history import draw_history
        return draw_history(args.history, report_dir=args.dir)
    return 0
