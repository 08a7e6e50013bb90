"""`packbench list`: every pluggable layer with its components and their parameters.

Strategies, orders, fills, dedupe methods, families and corpora, each with what installed plug-ins
register in the layer's entry-point group, then the plots. Components are printed by their
`Component.describe()`.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["add_arguments", "build_parser", "main", "describe", "sections"]

WHAT = ("strategies", "orders", "fills", "dedupe", "families", "corpora", "plots")


def _describe_one(name: str, obj: Any) -> str:
    if isinstance(obj, type) and hasattr(obj, "describe"):
        text = obj.describe(as_name=name)
        why = obj.unavailable() if hasattr(obj, "unavailable") else None  # a peer adapter whose peer is missing
        return text + (f"\n    [skipped here: {why}]" if why else "")
    # A layer not converted to components yet (plain functions): name and first docstring line.
    doc = (inspect.getdoc(obj) or "").splitlines()
    return f"{name}: {doc[0]}" if doc else name


def describe(title: str, registry: Mapping[str, Any]) -> list[str]:
    """Lines describing every entry of a registry (and its installed plug-ins), indented under `title`."""
    entries = registry.available() if hasattr(registry, "available") else dict(registry)
    lines = [f"{title}:"]
    for name, obj in entries.items():
        lines += ["  " + line for line in _describe_one(name, obj).splitlines()]
    return lines


def sections() -> dict[str, Callable[[], Mapping[str, Any]]]:
    """Each layer's title -> a function giving its registry (imported only when listed)."""
    def strategies():
        from packbench.algorithms import STRATEGIES
        return STRATEGIES

    def orders():
        from packbench.algorithms import ORDERS
        return ORDERS

    def fills():
        from packbench.algorithms import FILLS
        return FILLS

    def dedupe():
        from packbench.algorithms import DEDUPE_METHODS
        return DEDUPE_METHODS

    def families():
        from ..families import FAMILIES
        return FAMILIES

    def corpora():
        from ..corpora import CORPORA
        return CORPORA

    return {"strategies": strategies, "orders": orders, "fills": fills, "dedupe": dedupe,
            "families": families, "corpora": corpora}


def _source_plugins() -> dict[str, Any]:
    from ..config import source_registry
    merged = source_registry()
    return {name: merged.lookup(name) for name in merged.plugin_names()}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", nargs="?", choices=WHAT, help="list only this layer")


def build_parser() -> argparse.ArgumentParser:
    """A parser of `packbench list`'s arguments alone."""
    parser = argparse.ArgumentParser(prog="packbench list")
    add_arguments(parser)
    return parser


def main(args: argparse.Namespace) -> int:
    lines: list[str] = []
    for title, registry in sections().items():
        if args.what in (None, title):
            lines += describe(title, registry()) + [""]
    if args.what in (None, "families", "corpora"):
        plugins = _source_plugins()
        if plugins:
            lines += describe("sources from plug-ins (packbench.sources)", plugins) + [""]
    if args.what in (None, "plots"):
        from ..report import PLOTS
        lines += ["plots:"] + [f"  {name}" for name in PLOTS]
    print("\n".join(lines).rstrip())
    return 0
