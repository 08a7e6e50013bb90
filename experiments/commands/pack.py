"""`packbench pack ITEMS.jsonl --budget N`: pack items from a JSONL file, print JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from packbench.algorithms import ORDERS, STRATEGIES, Item, pack

__all__ = ["add_arguments", "main", "read_items"]

_FIELDS = {"id", "text", "score", "tokens", "pinned", "source"}


def read_items(path: Path) -> list[Item]:
    """Read one item per line (blank lines skipped).

    Raises:
        ValueError: The file is not UTF-8, or a line is not a JSON object, has
            unknown or missing fields, or an invalid value (the message gives
            the line number).
        OSError: The file cannot be read (missing, a directory, no permission).
    """
    items = []
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.readlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); expected JSONL") from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{path}:{lineno}: expected a JSON object, got {type(obj).__name__}")
        unknown = sorted(set(obj) - _FIELDS)
        missing = sorted({"id", "text", "score", "tokens"} - set(obj))
        if unknown or missing:
            raise ValueError(f"{path}:{lineno}: unknown fields {unknown} / missing fields {missing}; "
                             f"fields are {sorted(_FIELDS)}")
        try:
            items.append(Item(**obj))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{lineno}: {exc}") from None
    return items


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("items", type=Path, help="JSONL file, one item per line: id, text, score, tokens[, pinned, source]")
    parser.add_argument("--budget", type=int, required=True, help="token budget")
    parser.add_argument("--strategy", default="greedy_best_single", type=_named(STRATEGIES),
                        help="a name (see `packbench list strategies`), an installed plug-in's name, or an "
                             "import path package.module:attr of a Strategy subclass or a function")
    parser.add_argument("--order", default="original", type=_named(ORDERS),
                        help="a name (see `packbench list orders`), a plug-in's name or an import path")
    parser.add_argument("--near-dup", type=_near_dup, default=0.8,
                        help="Jaccard threshold in [0, 1], or 'none' to turn dedupe off")


def _named(registry):
    """An argparse type: the name as given, once `registry` resolves it (else argparse's usage error)."""
    def check(text: str) -> str:
        try:
            registry.resolve(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text
    return check


def _near_dup(text: str) -> float | None:
    """The --near-dup value: 'none' turns dedupe off, anything else must be a number."""
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a Jaccard threshold in [0, 1] or 'none', got {text!r}") from None


def main(args: argparse.Namespace) -> int:
    result = pack(read_items(args.items), args.budget, args.near_dup, strategy=args.strategy, order=args.order)
    out = result.to_dict()
    del out["seconds"]  # keep the output deterministic
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
