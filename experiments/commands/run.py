"""`packbench run [CONFIG] [--out DIR] [--workers N] [--executor E] [--dry-run] [--yes]`: run or resume an experiment.

Results go to ``results/<name>`` under the working directory unless ``--out``
is given; when that directory holds results committed to git (the shipped
``results/default`` in a checkout), the run writes ``results/local/<name>``
instead, so a run leaves the checkout clean; ``--out results/default``
refreshes the committed results.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["add_arguments", "main", "resolve_config_path", "available_cpus", "default_out_dir", "DEFAULT_CONFIG",
           "CONFIRM_ABOVE"]

DEFAULT_CONFIG = Path("configs") / "default.toml"
# Sweeps above this many runs to do need --yes (or an answer on a terminal).
CONFIRM_ABOVE = 100_000
# Sweeps above this many runs to do get a calibrated time estimate first.
ESTIMATE_ABOVE = 5_000


def resolve_config_path(config: str | Path | None) -> Path:
    """The config file: as given relative to the working directory, else relative to the repository,
    else a shipped config of that name (``smoke``, ``smoke.toml`` or ``configs/smoke.toml``).

    Raises:
        FileNotFoundError: Neither location has the file.
    """
    from ..packaged import config_names, packaged_config
    from ..provenance import REPO_ROOT

    given = Path(config) if config is not None else DEFAULT_CONFIG
    for candidate in (given, REPO_ROOT / given):
        if candidate.is_file():
            return candidate
    shipped = packaged_config(given)  # a wheel install: the configs ship as package data
    if shipped is not None:
        return shipped
    raise FileNotFoundError(f"config {given.as_posix()!r} not found in the working directory, the repository "
                            f"or the shipped configs ({', '.join(config_names()) or 'none installed'})")


def available_cpus() -> int:
    """CPUs this process may run on (the affinity mask where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def _tracked(path: Path) -> bool:
    """Whether git tracks files under `path` (False outside a git work tree or without git)."""
    if not path.is_dir():
        return False
    try:
        out = subprocess.run(["git", "ls-files", "--", "."], cwd=path, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and bool(out.stdout.strip())


def default_out_dir(name: str, cwd: Path | None = None) -> Path:
    """``results/<name>`` under `cwd`, or ``results/local/<name>`` when the former holds committed results."""
    base = (cwd or Path.cwd()) / "results"
    out = base / name
    return base / "local" / name if _tracked(out) else out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", default=None,
                        help=f"TOML experiment config (default: {DEFAULT_CONFIG.as_posix()})")
    parser.add_argument("--out", type=Path, default=None,
                        help="result directory (default: results/<experiment> under the working directory, or "
                             "results/local/<experiment> when that one is committed)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default: the CPUs available to this process)")
    parser.add_argument("--executor", choices=("serial", "processes", "dask"), default=None,
                        help="where runs execute (default: processes, or serial with --workers 1); dask needs "
                             "pip install 'packbench[dask]'")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="Dask scheduler to connect to, e.g. tcp://HOST:8786 (default: a LocalCluster of "
                             "--workers processes)")
    parser.add_argument("--force", action="store_true", help="discard existing rows and start over")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the runs per source and strategy and a time estimate, then exit")
    parser.add_argument("--yes", action="store_true",
                        help=f"run a sweep of more than {CONFIRM_ABOVE:,} runs without asking")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar / progress lines")
    parser.add_argument("--no-plugins", action="store_true",
                        help="refuse a config that names components from outside packbench (import paths, entry "
                             "points), before importing any: configs are code (docs/plugins-security.md)")
    parser.add_argument("--run-timeout", type=float, default=None, metavar="SECONDS",
                        help="wall time one run may take in a worker process before the worker is killed and the "
                             "run recorded as an error row (default: "
                             f"{_default_timeout():g})")


def _default_timeout() -> float:
    from ..executors import RUN_TIMEOUT

    return RUN_TIMEOUT


def _check_outside(path: Path, no_plugins: bool, console) -> bool:
    """Say which outside components the config at `path` imports (before importing them); refuse them with
    `no_plugins`. Returns whether there are any."""
    from ..outside import PluginsRefused, config_outside_components

    outside = config_outside_components(path)
    if not outside:
        return False
    listed = ", ".join(c.describe() for c in outside)
    if no_plugins:
        raise PluginsRefused(f"{path.name}: --no-plugins, and the config names outside components, which run "
                             f"as code when imported: {listed}")
    console.note(f"{path.name} imports code from outside packbench (configs are code: run only configs you "
                 f"trust; --no-plugins refuses them): {listed}")
    return True


def _skip_reasons(out: Path, console) -> None:
    """Put on the console why runs were skipped because their source was unavailable or broken."""
    from collections import Counter

    from ..planning import is_unavailable
    from ..storage import RunStore

    reasons: Counter[str] = Counter()
    for status, reason, instance, source in RunStore(out).index(("status", "reason", "instance", "source"),
                                                               repair=False).values():
        if is_unavailable({"status": status, "reason": reason, "instance": instance, "source": source}):
            reasons[str(reason)] += 1
    for reason, n in reasons.most_common(3):
        console.note(f"skipped {n:,} run{'s' if n != 1 else ''}: {reason}")
    if len(reasons) > 3:
        console.note(f"... and {len(reasons) - 3} other reasons (see summary.md)")


def _peek(out: Path, planned, config):
    """The resume state of `out` without taking its lock or writing anything."""
    from ..planning import ResumeState
    from ..storage import RunStore

    store = RunStore(out)
    stored = {} if not store.path.exists() else store.index(("code", "status", "reason", "instance", "source"),
                                                             repair=False)
    return ResumeState(planned, stored, config)


def _print_counts(rows, total: int, todo: int) -> None:
    """The --dry-run table: runs planned and to do per (source, strategy), then the totals."""
    width = max([len("source")] + [len(r[0]) for r in rows]), max([len("strategy")] + [len(r[1]) for r in rows])
    print(f"{'source':<{width[0]}}  {'strategy':<{width[1]}}  {'runs':>14}  {'to do':>14}")
    for src, strat, n, pending in rows:
        print(f"{src:<{width[0]}}  {strat:<{width[1]}}  {n:>14,}  {pending:>14,}")
    print(f"{'total':<{width[0]}}  {'':<{width[1]}}  {total:>14,}  {todo:>14,}", flush=True)


# Calibrating runs sample runs in this process, where nothing could stop outside code that hangs or
# exits: a config that imports outside components gets no estimate (its runs go to watched workers).
NO_ESTIMATE = "no time estimate: the config runs outside code, which runs only in watched worker processes"


def _dry_run(config, planned, state, workers: int, console, outside) -> None:
    from ..estimate import calibrate, count_table

    todo = sum(len(pu) for pu in state.pending)
    _print_counts(count_table(planned, state.pending), state.total, todo)
    if todo and outside:
        print(NO_ESTIMATE)
    elif todo:
        est = calibrate(config, state.pending)
        secs = est.seconds(state.pending, workers)
        if secs is not None:
            print(f"estimate: {_about(secs, workers)} (calibrated on {est.sampled} runs in "
                  f"{est.calibration_seconds:.1f} s)")


def _about(seconds: float, workers: int) -> str:
    from ..console import duration

    return f"about {duration(seconds)} on {workers} worker{'s' if workers != 1 else ''}"


def _confirm(todo: int, estimate: str, yes: bool, console) -> bool:
    if todo <= CONFIRM_ABOVE or yes:
        return True
    if sys.stdin.isatty() and sys.stderr.isatty():
        answer = input(f"packbench run: {todo:,} runs to do{estimate}; run them? [y/N] ")
        return answer.strip().lower() in ("y", "yes")
    raise ValueError(f"{todo:,} runs to do{estimate}, above {CONFIRM_ABOVE:,}; pass --yes to run them "
                     f"(or --dry-run to see them per source and strategy)")


def main(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..console import Console, display_path, duration
    from ..corpora import data_notes
    from ..executors import make_executor
    from ..planning import MAX_RUNS, check_size, plan, plan_size
    from ..sections import check_sections
    from ..runner import run_experiment

    workers = args.workers if args.workers is not None else available_cpus()
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    path = resolve_config_path(args.config)
    console = Console(progress=not args.no_progress)
    outside = _check_outside(path, getattr(args, "no_plugins", False), console)
    config = load_config(path)
    check_sections(config, str(path))
    out = args.out if args.out is not None else default_out_dir(config.name)
    if args.out is None and out.parent.name == "local":
        console.note(f"{display_path(out.parent.parent / config.name)} holds committed results; writing to "
                     f"{display_path(out)} (pass --out {display_path(out.parent.parent / config.name)} to "
                     f"refresh them)")
    for source, note in data_notes(config).items():  # say which data a corpus reads before the long part
        console.note(f"{source}: {note}")
    started = time.monotonic()
    # Counted before anything is planned (seed ranges stay ranges): a config above the bound is refused
    # with its count at once, and --dry-run shows that count per source and strategy first.
    size = plan_size(config)
    if args.dry_run and size.runs > MAX_RUNS:
        _print_counts([(src, strat, n, n) for (src, strat), n in size.pairs.items()], size.runs, size.runs)
    check_size(size)
    planned = plan(config)
    if args.force:
        from ..planning import ResumeState
        state = ResumeState(planned, {}, config)
    else:
        state = _peek(out, planned, config)
    if args.dry_run:
        _dry_run(config, planned, state, workers, console, outside)
        return 0
    todo = sum(len(pu) for pu in state.pending)
    estimate = ""
    if todo > ESTIMATE_ABOVE and outside:
        console.note(f"{config.name}: {state.total:,} runs planned, {todo:,} to do; {NO_ESTIMATE}")
    elif todo > ESTIMATE_ABOVE:
        from ..estimate import calibrate
        est = calibrate(config, state.pending)
        secs = est.seconds(state.pending, workers)
        estimate = "" if secs is None else f" ({_about(secs, workers)})"
        console.note(f"{config.name}: {state.total:,} runs planned in {time.monotonic() - started:.1f} s, "
                     f"{todo:,} to do{estimate}")
    if not _confirm(todo, estimate, args.yes, console):
        console.note("not confirmed; nothing run")
        return 1
    run_timeout = getattr(args, "run_timeout", None) or _default_timeout()
    # Outside code runs in watched worker processes even with one worker: in the driver's own process
    # nothing could stop it hanging or ending the run.
    name = args.executor or ("serial" if workers == 1 and not outside else "processes")
    executor = make_executor(name, workers, args.scheduler, run_timeout=run_timeout)
    try:
        manifest = run_experiment(config, out, executor=executor, force=args.force, config_path=path,
                                  console=console, planned=planned)
    except KeyboardInterrupt:
        console.note("interrupted; rerun the same command to resume")
        return 130
    counts_ = manifest["status_counts"]
    statuses = ", ".join(f"{k} {counts_.get(k, 0):,}" for k in ("ok", "skipped", "timeout", "error"))
    redone = manifest.get("runs_redone_code_changed", 0)
    console.note(f"{config.name}: {manifest['runs_total']:,} runs ({statuses}; {manifest['runs_resumed']:,} resumed"
                 f"{f', {redone:,} redone after a code change' if redone else ''}) in "
                 f"{duration(time.monotonic() - started)} -> {display_path(out)}/ "
                 f"(report: {display_path(out / 'summary.md')})")
    if counts_.get("skipped", 0):
        _skip_reasons(out, console)
    return 0
