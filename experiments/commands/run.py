"""`packbench run [CONFIG] [--out DIR] [--workers N] [--force]`: run or resume an experiment."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

__all__ = ["add_arguments", "main", "resolve_config_path", "available_cpus", "DEFAULT_CONFIG"]

DEFAULT_CONFIG = Path("configs") / "default.toml"


def resolve_config_path(config: str | Path | None) -> Path:
    """The config file: as given relative to the working directory, else relative to the repository,
    else a shipped config of that name (``smoke``, ``smoke.toml`` or ``configs/smoke.toml``).

    Raises:
        FileNotFoundError: Neither location has the file.
    """
    from ..provenance import REPO_ROOT

    from ..packaged import config_names, packaged_config

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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", default=None,
                        help=f"TOML experiment config (default: {DEFAULT_CONFIG.as_posix()})")
    parser.add_argument("--out", type=Path, default=None, help="result directory (default: results/<experiment>)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default: the CPUs available to this process)")
    parser.add_argument("--force", action="store_true", help="discard existing rows and start over")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def main(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..provenance import relative_to_repo
    from ..runner import run_experiment

    workers = args.workers if args.workers is not None else available_cpus()
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    path = resolve_config_path(args.config)
    config = load_config(path)
    out = args.out if args.out is not None else Path("results") / config.name
    from ..corpora import data_notes
    for source, note in data_notes(config).items():  # say which data a corpus reads before the long part
        print(f"packbench run: {source}: {note}", file=sys.stderr)
    manifest = run_experiment(config, out, workers=workers, force=args.force,
                              progress=not args.no_progress, config_path=path)
    counts = ", ".join(f"{k} {v}" for k, v in manifest["status_counts"].items())
    print(f"packbench run: {config.name}: {manifest['runs_total']} runs ({counts}; "
          f"{manifest['runs_resumed']} resumed) -> {relative_to_repo(out)}/", file=sys.stderr)
    return 0
