"""The `packbench` console script: dispatches to one module per subcommand."""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["main", "COMMANDS"]

# name -> (module with add_arguments/main, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "pack": ("packbench.experiments.commands.pack", "pack a JSONL file of items and print the packing as JSON"),
    "run": ("packbench.experiments.commands.run", "run or resume an experiment config (default configs/default.toml)"),
    "report": ("packbench.experiments.commands.report", "re-derive summary.csv, summary.md and plots from runs.jsonl"),
    "list": ("packbench.experiments.commands.list", "list every layer (strategies, orders, fills, dedupe, sources) with parameters"),
    "claims": ("packbench.experiments.commands.claims", "check every approximation claim and write results/claims/"),
    "reader": ("packbench.experiments.commands.reader", "score a reader's answers on packed NQ-Open contexts"),
    "bench": ("packbench.experiments.commands.bench", "benchmark suite (table of medians); --check fails on regressions"),
    "gate": ("packbench.experiments.commands.gate", "compare a config's results with committed ones; exit 1 on a regression"),
    "fetch": ("packbench.experiments.commands.fetch", "download the full data files once (runs never download)"),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from .. import __version__

    parser = argparse.ArgumentParser(prog="packbench", description="Context packing research harness")
    parser.add_argument("--version", action="version", version=f"packbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(_module=module, _parser=sp)
        importlib.import_module(module).add_arguments(sp)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script.

    Args:
        argv: Arguments (default: sys.argv[1:]).

    Returns:
        The process exit code.
    """
    from packbench.algorithms.encodings import EncodingUnavailableError

    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        parser.print_help()
        return 2
    if extra:  # argparse would blame the top-level parser; the subcommand's usage is the useful one
        args._parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(importlib.import_module(args._module).main(args) or 0)
    except (ValueError, TypeError, OSError, ImportError, EncodingUnavailableError) as exc:
        # OSError: missing, unreadable or directory paths; ImportError: an extra that is not installed
        # (its message names the extra); EncodingUnavailableError: a tokenizer file offline.
        print(f"packbench {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
