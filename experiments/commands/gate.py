"""`packbench gate CONFIG --baseline DIR`: fail CI when a config's results regress against committed ones.

Exit codes: 0 no regression, 1 regression, 2 could not run (bad config or
tolerance, no baseline, REF not found, the run failed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from packbench.experiments.bench.ci_output import (EXIT_CANNOT_RUN, EXIT_OK, EXIT_REGRESSION, Outcome,
                                                   markdown_table, write_junit)
from packbench.experiments.gate.cells import cell_name, cell_stats, load_rows
from packbench.experiments.gate.tolerances import TOLERANCE_HELP, parse_tolerances
from packbench.experiments.gate.verdict import FIGURES, compare_cells
from packbench.experiments.storage import RUNS_FILE, write_atomic

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=Path, help="TOML experiment config (its [gate] table sets tolerances)")
    parser.add_argument("--baseline", type=Path, required=True,
                        help="committed results directory of the same config (with runs.jsonl)")
    parser.add_argument("--results", type=Path, default=None,
                        help="results directory of this tree: reused when it has runs.jsonl (resumed otherwise); "
                             "default: a temporary directory")
    parser.add_argument("--workers", type=int, default=None, help="passed to 'packbench run'")
    parser.add_argument("--against", metavar="REF", default=None,
                        help="also time every cell paired against git revision REF of your project (the "
                             "working directory's repository; inside a packbench checkout, of packbench), "
                             "speed tolerance 'speed'")
    for name, text in TOLERANCE_HELP.items():
        parser.add_argument(f"--tol-{name.replace('_', '-')}", dest=f"tol_{name}", type=float, default=None,
                            help=f"{text}; overrides [gate].{name}")
    parser.add_argument("--markdown", type=Path, default=None, help="write the verdicts as a markdown table")
    parser.add_argument("--junit", type=Path, default=None, help="write the verdicts as JUnit XML")


def _gate_table(config: Path) -> dict:
    from packbench.experiments.config import load_config

    return dict(load_config(config).gate)  # the whole config is validated; errors name the key


def _run_config(config: Path, out: Path, workers: int | None) -> None:
    if (out / RUNS_FILE).is_file():
        print(f"reusing and completing {out}", file=sys.stderr)
    cmd = [sys.executable, "-m", "packbench", "run", str(config), "--out", str(out)]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    done = subprocess.run(cmd, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"'packbench run {config}' failed (exit {done.returncode})")


def main(args: argparse.Namespace) -> int:
    tol = parse_tolerances(_gate_table(args.config), origin=f"{args.config} [gate]")
    tol = parse_tolerances({k: getattr(args, f"tol_{k}") for k in TOLERANCE_HELP}, tol, origin="--tol")
    base = cell_stats(load_rows(args.baseline))
    if args.against is not None:
        _speed_sides(args.against)  # a REF that is not there fails before the config runs
    with tempfile.TemporaryDirectory(prefix="packbench-gate-") as tmp:
        out = args.results or Path(tmp) / "results"
        try:
            _run_config(args.config, out, args.workers)
        except RuntimeError as exc:
            print(f"packbench gate: error: {exc}", file=sys.stderr)
            return EXIT_CANNOT_RUN
        new = cell_stats(load_rows(out))
    verdicts = compare_cells(base, new, tol)
    outcomes = []
    for v in verdicts:
        s = v.new or v.base
        cells = (v.status, *(("-" if getattr(s, f) is None else f"{getattr(s, f):.4g}") for f in FIGURES))
        outcomes.append(Outcome(cell_name(v.key), v.failed, cells, "; ".join(v.regressions + v.improvements)))
    if args.against is not None:
        outcomes += _speed(args.config, args.against, tol.speed)
    failed = [o for o in outcomes if o.failed]
    for o in outcomes:
        mark = "!! " if o.failed else "   "
        print(f"{mark}{o.name:50} {o.cells[0]:10} {o.message}")
    print(f"{len(failed)} regression(s)" if failed else "no regressions",
          f"({len(outcomes)} checked, baseline {args.baseline})")
    intro = f"Config `{args.config}` against `{args.baseline}`; figures are this run's (the baseline's when missing)."
    if args.markdown:
        write_atomic(args.markdown, markdown_table("packbench gate", ("status", *FIGURES), outcomes, intro=intro))
    if args.junit:
        write_junit(args.junit, "packbench.gate", outcomes)
    return EXIT_REGRESSION if failed else EXIT_OK


def _speed_sides(against: str) -> str:
    """"packbench" when the working directory is the imported packbench's checkout, else "project".

    Raises:
        RevisionError: REF names no commit of that repository, or there is no repository.
    """
    from packbench.experiments.bench.check import project_ref, source_root

    top, _ = project_ref(Path.cwd().resolve(), against)
    packbench_tree = source_root()
    return "packbench" if packbench_tree is not None and top == packbench_tree.resolve() else "project"


def _speed(config: Path, against: str, tolerance: float) -> list[Outcome]:
    """Every cell timed paired against REF's tree (`bench --check`'s machinery).

    Run from inside a packbench checkout, REF is a revision of packbench;
    anywhere else it is a revision of the user's project (the git repository
    of the working directory), with the installed packbench on both sides.
    """
    from packbench.experiments.bench.check import run_check, run_project_check
    from packbench.experiments.bench.compare import ERROR, OK, SLOWER
    from packbench.experiments.gate import speed_suite

    os.environ[speed_suite.CONFIG_ENV] = str(config.resolve())
    say = lambda m: print(f"  {m}", file=sys.stderr, flush=True)  # noqa: E731
    suite = Path(speed_suite.__file__)
    if _speed_sides(against) == "packbench":
        report = run_check(against=against, suite_file=suite, tolerance=tolerance, progress=say)
    else:
        report = run_project_check(Path.cwd(), against, suite, tolerance=tolerance, progress=say)
    print(report.description)
    out = []
    for r in report.rows:
        p = r.paired
        ratio = f"{p.ratio:.2f} [{p.low:.2f}, {p.high:.2f}]" if p else "-"
        # Quality is judged on the cells above; only the speed sentence (or an error) belongs here.
        note = "; ".join(r.notes) if r.speed == ERROR else (r.notes[0] if r.speed != OK and r.notes else "")
        out.append(Outcome(f"speed: {r.name}", r.speed in (SLOWER, ERROR),
                           (r.speed, ratio) + ("",) * (len(FIGURES) - 1), note))
    return out
