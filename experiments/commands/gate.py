"""`packbench gate CONFIG --baseline DIR [--against REF]`: fail CI when a config's results regress.

Quality: the config is run, and each (source, budget, strategy) cell's
figures are compared with the committed baseline's. Speed (``--against
REF``): the stage the user owns (``--stage``, default the strategy's select)
is timed on every cell, paired and interleaved against REF's tree of the
user's project. The report (``gate.md``, ``gate.xml``, ``gate.json``) and this
run's rows stay in ``--out`` (default ``results/gate/<config>``);
``--history DIR`` appends the figures to a store that ``packbench report
--history DIR`` draws.

Exit codes: 0 no regression, 1 regression, 2 could not run (bad config or
tolerance, a baseline that cannot be compared with, REF not found, the run
failed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from packbench.experiments.bench.ci_output import (EXIT_CANNOT_RUN, EXIT_OK, EXIT_REGRESSION, Outcome,
                                                   markdown_table, write_junit)
from packbench.experiments.gate.baseline import check_coverage, load_baseline_cells
from packbench.experiments.gate.cells import cell_name, cell_stats, load_rows
from packbench.experiments.gate.status import Speed
from packbench.experiments.gate.tolerances import STAGE_CHOICES, TOLERANCE_HELP, Tolerances, parse_tolerances
from packbench.experiments.gate.verdict import FIGURES, CellVerdict, compare_cells
from packbench.experiments.storage import RUNS_FILE, write_atomic

__all__ = ["add_arguments", "main", "QUALITY_COLUMNS", "SPEED_COLUMNS"]

# Column headers of the two tables, for what each column holds.
QUALITY_COLUMNS = ("status", "mean score ratio", "worst score ratio", "answer recall", "duplicate leakage",
                   "runs over budget", "errors", "timeouts")
SPEED_COLUMNS = ("stage", "status", "CPU time ratio now/REF [95% interval]", "CPU ms per call now / REF",
                 "calls per sample", "pairs", "smallest detectable slowdown")
# Fresh process pairs of the speed check: each round has its own memory layout and hash seed.
SPEED_ROUNDS = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="TOML experiment config, a path or a shipped name such as 'smoke' "
                                       "(its [gate] table sets tolerances)")
    parser.add_argument("--baseline", type=Path, required=True,
                        help="committed results directory of the same config (with runs.jsonl)")
    parser.add_argument("--out", type=Path, default=None,
                        help="directory for this run's rows and the report (gate.md, gate.xml, gate.json); "
                             "default results/gate/<config name>; its rows are redone each time")
    parser.add_argument("--results", type=Path, default=None,
                        help="results directory of this tree to reuse when it has runs.jsonl (resumed otherwise) "
                             "instead of running the config into --out")
    parser.add_argument("--workers", type=int, default=None, help="passed to 'packbench run'")
    parser.add_argument("--allow-new", action="store_true",
                        help="accept cells the baseline has no measured row for (reported as new); without it "
                             "they stop the gate with exit 2")
    parser.add_argument("--against", metavar="REF", default=None,
                        help="also time the --stage of every cell paired against git revision REF of your "
                             "project (the working directory's repository; inside a packbench checkout, of "
                             "packbench)")
    parser.add_argument("--stage", choices=STAGE_CHOICES, default=None,
                        help="what --against times: select (your strategy; a plain function alone), order, fill, "
                             "dedupe or pack (the whole call); overrides [gate].stage (default select)")
    parser.add_argument("--tolerance", dest="tol_speed", metavar="X", type=float, default=None,
                        help="slowdown factor of the stage that fails (default 1.1); overrides [gate].speed")
    parser.add_argument("--floor", dest="tol_floor", metavar="SECONDS", type=float, default=None,
                        help="seconds per call of slowdown below which nothing fails (default 0); "
                             "overrides [gate].floor")
    parser.add_argument("--pairs", dest="tol_pairs", metavar="N", type=int, default=None,
                        help=f"timing pairs per round ({SPEED_ROUNDS} rounds; default 12): more pairs detect "
                             f"smaller slowdowns and take longer; overrides [gate].pairs")
    for name, text in TOLERANCE_HELP.items():
        if name not in ("speed", "floor", "pairs", "stage"):
            parser.add_argument(f"--tol-{name.replace('_', '-')}", dest=f"tol_{name}", type=float, default=None,
                                help=f"{text}; overrides [gate].{name}")
    parser.add_argument("--tol-speed", dest="tol_speed", type=float, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--markdown", type=Path, default=None,
                        help="also write the markdown report here (e.g. $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--junit", type=Path, default=None, help="also write the JUnit XML here")
    parser.add_argument("--history", type=Path, default=None,
                        help="append this gate's figures (commit, date, machine) to the store in this directory")


def _settings(args: argparse.Namespace, config_path: Path) -> Tolerances:
    from packbench.experiments.config import load_config

    config = load_config(config_path)  # the whole config is validated; errors name the key
    tol = parse_tolerances(dict(config.gate), origin=f"{config_path} [gate]")
    given = {k: getattr(args, f"tol_{k}", None) for k in TOLERANCE_HELP if k != "stage"}
    tol = parse_tolerances({**given, "stage": args.stage}, tol, origin="command line")
    if tol.stage == "fill" and config.fill is None and args.against is not None:
        # Refused once, before anything runs: timing a fill the config never uses would gate code it does not ship.
        raise ValueError(f"--stage fill: config {config_path} sets no `fill`, so no cell runs a fill stage to time; "
                         f"set `fill = \"NAME\"` in the config (see 'packbench list'), or choose another --stage "
                         f"(select, order, dedupe, pack)")
    return tol


def _run_config(config: Path, out: Path, workers: int | None, fresh: bool) -> None:
    if (out / RUNS_FILE).is_file() and not fresh:
        print(f"reusing and completing {out}", file=sys.stderr)
    cmd = [sys.executable, "-m", "packbench", "run", str(config), "--out", str(out), "--yes"]
    if fresh:
        cmd.append("--force")
    if workers is not None:
        cmd += ["--workers", str(workers)]
    done = subprocess.run(cmd, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"'packbench run {config}' failed (exit {done.returncode})")


def main(args: argparse.Namespace) -> int:
    from packbench.experiments.commands.run import resolve_config_path

    config = resolve_config_path(args.config)
    tol = _settings(args, config)
    if args.against is not None:
        _speed_sides(args.against)  # a REF that is not there fails before anything runs
    base = load_baseline_cells(args.baseline)
    out = args.out or Path("results") / "gate" / config.stem
    rows_dir = args.results or out
    try:
        _run_config(config, rows_dir, args.workers, fresh=args.results is None)
    except RuntimeError as exc:
        print(f"packbench gate: error: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    new = cell_stats(load_rows(rows_dir))
    check_coverage(base, new, args.allow_new, args.baseline)
    verdicts = compare_cells(base, new, tol)
    quality = [_quality_outcome(v) for v in verdicts]
    speed, speed_doc, mode = ([], {}, "") if args.against is None else _speed(config, args.against, tol)
    _print(quality, speed, args.baseline, mode)
    failed = [o for o in quality + speed if o.failed]
    report = _markdown(config, args.baseline, quality, speed, mode)
    out.mkdir(parents=True, exist_ok=True)
    doc = _document(config, args, verdicts, speed_doc, mode, failed)
    for path, text in ((out / "gate.md", report), (args.markdown, report)):
        if path is not None:
            write_atomic(path, text)
    for path in (out / "gate.xml", args.junit):
        if path is not None:
            write_junit(path, "packbench.gate", quality + speed)
    write_atomic(out / "gate.json", json.dumps(doc, indent=1, default=str) + "\n")
    if args.history is not None:
        from packbench.experiments.gate.history import append_record
        print(f"history: {append_record(args.history, doc)}")
    print(f"report: {out / 'gate.md'} (and gate.xml, gate.json)")
    return EXIT_REGRESSION if failed else EXIT_OK


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)


def _quality_outcome(v: CellVerdict) -> Outcome:
    s = v.new or v.base
    cells = (str(v.status), *(_fmt(getattr(s, f)) for f in FIGURES))
    return Outcome(cell_name(v.key), v.failed, cells, "; ".join(v.regressions + v.improvements))


def _print(quality: list[Outcome], speed: list[Outcome], baseline: Path, mode: str) -> None:
    print(f"quality: this run's cells against {baseline}")
    print(f"   {'cell':48} {'status':9} " + " ".join(f"{h:>10}" for h in ("ratio_mean", "ratio_worst", "recall",
                                                                          "leakage", "over", "errors", "timeouts")))
    for o in quality:
        print(f"{'!! ' if o.failed else '   '}{o.name:48} {o.cells[0]:9} " + " ".join(f"{c:>10}" for c in o.cells[1:]))
        if o.message:
            print(f"      {o.message}")
    if speed:
        print(f"speed: {mode}")
        print(f"   {'cell':48} {'stage':7} {'status':9} {'now/REF [95%]':>22} {'ms/call now / REF':>22} "
              f"{'calls':>7} {'pairs':>5} {'detects':>8}")
        for o in speed:
            stage, status, ratio, ms, calls, pairs, detects = o.cells
            print(f"{'!! ' if o.failed else '   '}{o.name:48} {stage:7} {status:9} {ratio:>22} {ms:>22} "
                  f"{calls:>7} {pairs:>5} {detects:>8}")
            if o.message and (o.failed or o.cells[1] == Speed.UNSURE):
                print(f"      {o.message}")
    failed = [o for o in quality + speed if o.failed]
    print(f"{len(failed)} regression(s)" if failed else "no regressions",
          f"({len(quality)} cells, {len(speed)} timed)")


def _markdown(config: Path, baseline: Path, quality: list[Outcome], speed: list[Outcome], mode: str) -> str:
    text = markdown_table("packbench gate: quality", QUALITY_COLUMNS, quality,
                          intro=f"Config `{config}` against `{baseline}`; figures are this run's "
                                f"(the baseline's for a missing cell).", name_header="cell")
    if speed:
        text += "\n" + markdown_table("packbench gate: speed", SPEED_COLUMNS, speed, intro=mode + ".",
                                       name_header="cell")
    return text


def _document(config: Path, args: argparse.Namespace, verdicts: list[CellVerdict], speed: dict[str, Any],
              mode: str, failed: list[Outcome]) -> dict[str, Any]:
    """The gate's result as data (``gate.json``, and one record of the history store)."""
    from packbench.experiments.gate.history import provenance

    cells = {cell_name(v.key): {"status": str(v.status), **{f: getattr(v.new or v.base, f) for f in FIGURES},
                                "notes": list(v.regressions + v.improvements)} for v in verdicts}
    return {**provenance(Path.cwd()), "config": str(config), "baseline": str(args.baseline),
            "against": args.against, "speed_mode": mode, "regressions": [o.name for o in failed],
            "cells": cells, "speed": speed}


def _speed_sides(against: str) -> str:
    """"packbench" when the working directory is the imported packbench's checkout, else "project".

    Raises:
        RevisionError: REF names no commit of that repository, or there is no repository.
    """
    from packbench.experiments.bench.check import project_ref, source_root

    top, _ = project_ref(Path.cwd().resolve(), against)
    packbench_tree = source_root()
    return "packbench" if packbench_tree is not None and top == packbench_tree.resolve() else "project"


def _speed(config: Path, against: str, tol: Tolerances) -> tuple[list[Outcome], dict[str, Any], str]:
    """Every cell's stage timed paired against REF's tree (`bench --check`'s machinery).

    Run from inside a packbench checkout, REF is a revision of packbench;
    anywhere else it is a revision of the user's project (the git repository
    of the working directory), with the installed packbench on both sides.

    Returns:
        (one outcome per cell, cell -> figures for gate.json, the line naming what was paired).
    """
    from packbench.experiments.bench.check import run_check, run_project_check
    from packbench.experiments.bench.compare import detectable
    from packbench.experiments.gate import speed_suite
    from packbench.experiments.gate.confirm import CONFIRM_FIRST_ROUND, confirm_slower
    from packbench.experiments.gate.status import FAILING

    os.environ[speed_suite.CONFIG_ENV] = str(config.resolve())
    os.environ[speed_suite.STAGE_ENV] = tol.stage
    say = lambda m: print(f"  {m}", file=sys.stderr, flush=True)  # noqa: E731
    kw = dict(tolerance=tol.speed, floor=tol.floor, rounds=SPEED_ROUNDS, pairs=tol.pairs, progress=say,
              real_at_median=True)
    suite = Path(speed_suite.__file__)

    def check(**more: Any) -> Any:
        if _speed_sides(against) == "packbench":
            return run_check(against=against, suite_file=suite, **kw, **more)
        return run_project_check(Path.cwd(), against, suite, **kw, **more)

    report = check()
    # A slower cell fails only when a second, independent pass over it says so too (gate/confirm.py).
    rows, again = confirm_slower(report.rows, lambda names: check(cases=names, first_round=CONFIRM_FIRST_ROUND).rows)
    mode = f"stage `{tol.stage}`: {speed_suite.STAGES[tol.stage]}; {report.description}"
    if again:
        mode += f"; {len(again)} slower cell(s) timed again in fresh processes (a cell fails only if both passes say so)"
    outcomes, doc = [], {}
    for r in rows:
        p = r.paired
        loops, repeats = report.result.loops.get(r.name, ((0, 0), (0, 0)))[0]
        if p is not None:
            power = detectable(p, tol.speed, tol.floor, real_at_median=True)
            figures = (f"{p.ratio:.3f} [{p.low:.3f}, {p.high:.3f}]",
                       f"{p.current * 1e3:.4g} / {p.reference * 1e3:.4g}", str(loops), str(p.n), f">= {power:.2f}x")
            doc[r.name] = {"status": str(r.speed), "ratio": p.ratio, "low": p.low, "high": p.high,
                           "ms_now": p.current * 1e3, "ms_ref": p.reference * 1e3, "calls_per_sample": loops,
                           "samples_per_timing": repeats, "pairs": p.n, "detectable": power, "stage": tol.stage}
        else:
            figures = ("-", "-", "-", "0", "-")
            doc[r.name] = {"status": str(r.speed), "stage": tol.stage}
        if (c := again.get(r.name)) is not None and c.paired is not None:
            doc[r.name]["confirmation"] = {"status": str(c.speed), "ratio": c.paired.ratio, "low": c.paired.low,
                                           "high": c.paired.high, "pairs": c.paired.n}
        note = "; ".join(r.notes) if r.speed == Speed.ERROR else (r.notes[0] if r.speed != Speed.OK and r.notes else "")
        outcomes.append(Outcome(f"speed: {r.name}", r.speed in FAILING, (tol.stage, str(r.speed), *figures), note))
    return outcomes, doc, mode
