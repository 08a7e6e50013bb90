"""`packbench pack ITEMS.jsonl|- --budget N [--param k=v ...] [--encoding E]`: pack JSONL items, print JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tomllib
from collections.abc import Iterable
from typing import Any

from packbench.algorithms import ORDERS, STRATEGIES, Item, pack

__all__ = ["add_arguments", "main", "read_items", "parse_param"]

_FIELDS = tuple(f.name for f in dataclasses.fields(Item))
# pack() arguments that have their own option
_OWN_OPTIONS = {"strategy": "strategy", "order": "order", "near_dup": "near-dup", "budget": "budget", "items": "items"}
_REQUIRED = tuple(f.name for f in dataclasses.fields(Item) if f.default is dataclasses.MISSING)


def _lines(path: str) -> tuple[str, list[str]]:
    """(name for messages, lines) of a file, or of standard input for ``-``."""
    if path == "-":
        return "<stdin>", sys.stdin.readlines()
    try:
        with open(path, encoding="utf-8") as fh:
            return path, fh.readlines()
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); expected JSONL") from None


def read_items(path: str, encoding: str | None = None) -> list[Item]:
    """Read one item per line (blank lines skipped).

    Args:
        path: A JSONL file, or ``-`` for standard input.
        encoding: tiktoken encoding or model name that counts the tokens of
            lines without a ``tokens`` field (None: the field is required).

    Raises:
        ValueError: The file is not UTF-8, or a line is not a JSON object, has
            unknown or missing fields, or an invalid value (the message gives
            the line number).
        OSError: The file cannot be read (missing, a directory, no permission).
    """
    name, lines = _lines(str(path))
    objs: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name}:{lineno}: not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{name}:{lineno}: expected a JSON object, got {type(obj).__name__}")
        unknown = sorted(set(obj) - set(_FIELDS))
        missing = [f for f in _REQUIRED if f not in obj and not (f == "tokens" and encoding)]
        problems = ([f"unknown fields {unknown}"] if unknown else []) + ([f"missing fields {missing}"] if missing else [])
        if problems:
            hint = "; pass --encoding (e.g. cl100k_base) to count missing tokens" if "tokens" in missing else ""
            raise ValueError(f"{name}:{lineno}: {' and '.join(problems)}; fields are {list(_FIELDS)}{hint}")
        objs.append((lineno, obj))
    if encoding:
        _count_missing_tokens(name, objs, encoding)
    items = []
    for lineno, obj in objs:
        try:
            items.append(Item(**obj))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name}:{lineno}: {exc}") from None
    return items


def _count_missing_tokens(name: str, objs: Iterable[tuple[int, dict[str, Any]]], encoding: str) -> None:
    from packbench.algorithms.tokens import count_tokens_batch

    todo = [(lineno, obj) for lineno, obj in objs if "tokens" not in obj]
    for lineno, obj in todo:
        if not isinstance(obj.get("text"), str):
            raise ValueError(f"{name}:{lineno}: text must be a str to count its tokens, "
                             f"got {type(obj.get('text')).__name__}")
    counts = count_tokens_batch([obj["text"] for _, obj in todo], encoding)
    for (lineno, obj), count in zip(todo, counts):
        if count == 0:
            raise ValueError(f"{name}:{lineno}: text is empty (0 tokens); an item needs tokens >= 1")
        obj["tokens"] = count


def parse_param(text: str) -> tuple[str, Any]:
    """One ``--param key=value``: the value is read as a TOML value (``1.0``, ``true``, ``[1, 2]``,
    ``"text"``); a value that is not valid TOML is taken as a plain string (``similarity=tfidf``).

    Raises:
        argparse.ArgumentTypeError: No ``=`` or an empty key.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected key=value with a parameter name as key, got {text!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("items", help="JSONL file ('-' for standard input), one item per line: "
                                      "id, text, score, tokens[, pinned, source]")
    parser.add_argument("--budget", type=int, required=True, help="token budget")
    parser.add_argument("--strategy", default="greedy_best_single", type=_named(STRATEGIES),
                        help="a name (see `packbench list strategies`), an installed plug-in's name, or an "
                             "import path package.module:attr of a Strategy subclass or a function")
    parser.add_argument("--order", default="original", type=_named(ORDERS),
                        help="a name (see `packbench list orders`), a plug-in's name or an import path")
    parser.add_argument("--near-dup", type=_near_dup, default=0.8,
                        help="Jaccard threshold in [0, 1], or 'none' to turn dedupe off")
    parser.add_argument("--param", type=parse_param, action="append", default=[], metavar="KEY=VALUE",
                        help="a strategy, order or fill parameter, value as TOML (repeatable), "
                             "e.g. --param time_limit=0.5 --param curve='\"gpt-3.5-turbo-20\"'")
    parser.add_argument("--encoding", default=None,
                        help="tiktoken encoding or model name that counts the tokens of lines without 'tokens'")


def main(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {}
    for key, value in args.param:
        if key in _OWN_OPTIONS:
            raise ValueError(f"--param {key}=...: use --{_OWN_OPTIONS[key]} for that")
        if key in params:
            raise ValueError(f"--param {key} given twice ({params[key]!r} and {value!r})")
        params[key] = value
    if args.encoding is not None:
        from packbench.algorithms.tokens import encoding_name
        encoding_name(args.encoding)  # an unknown name fails before any line is read
    items = read_items(args.items, encoding=args.encoding)
    result = pack(items, args.budget, args.near_dup, strategy=args.strategy, order=args.order, **params)
    out = result.to_dict()
    del out["seconds"]  # keep the output deterministic
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
