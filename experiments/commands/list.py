"""`packbench list`: strategies, orders, families and corpora with their parameters."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

__all__ = ["add_arguments", "main", "describe"]


def describe(title: str, registry: Mapping[str, type]) -> list[str]:
    """Lines describing every entry of a registry: name, first docstring line, parameters."""
    lines = [f"{title}:"]
    for name, cls in registry.items():
        doc = (cls.__doc__ or "").strip().splitlines()
        lines.append(f"  {name}: {doc[0] if doc else ''}")
        for pname, param in getattr(cls, "PARAMS", {}).items():
            lines.append(f"      {pname} (default {param.default!r}): {param.doc}")
        why = cls.unavailable() if hasattr(cls, "unavailable") else None  # a peer adapter whose peer is missing
        if why:
            lines.append(f"      [skipped here: {why}]")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", nargs="?", choices=["strategies", "orders", "families", "corpora", "plots"],
                        help="list only this registry")


def main(args: argparse.Namespace) -> int:
    from packbench.algorithms import ORDERS, STRATEGIES

    from ..corpora import CORPORA
    from ..families import FAMILIES
    from ..report import PLOTS

    sections = {"strategies": STRATEGIES, "orders": ORDERS, "families": FAMILIES, "corpora": CORPORA}
    lines: list[str] = []
    for title, registry in sections.items():
        if args.what in (None, title):
            lines += describe(title, registry) + [""]
    if args.what in (None, "plots"):
        lines += ["plots:"] + [f"  {name}" for name in PLOTS]
    print("\n".join(lines).rstrip())
    return 0
