"""CI-facing output of the gates: a markdown table (for a CI step summary) and a JUnit XML file.

Both `packbench bench --check` and `packbench gate` reduce their verdicts to
`Outcome`s: one test case per benchmark case or result cell, failed or not,
with a message that names the case and the figure.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from packbench.experiments.storage import write_atomic

__all__ = ["Outcome", "markdown_table", "write_junit", "EXIT_OK", "EXIT_REGRESSION", "EXIT_CANNOT_RUN"]

EXIT_OK = 0
EXIT_REGRESSION = 1
EXIT_CANNOT_RUN = 2


@dataclass(frozen=True)
class Outcome:
    """One checked unit.

    Attributes:
        name: Case or cell name.
        failed: A regression.
        cells: Column values for the markdown table (after the name).
        message: Why it failed or what changed (empty when nothing to say).
    """

    name: str
    failed: bool
    cells: tuple[str, ...]
    message: str = ""


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(title: str, columns: Sequence[str], outcomes: Sequence[Outcome], intro: str = "",
                   name_header: str = "case") -> str:
    """A markdown section: title, a one-line verdict, the table (failures first), then notes.

    Args:
        title: Heading text.
        columns: Headers of `Outcome.cells`.
        outcomes: The rows.
        intro: A line under the heading (e.g. which mode ran).
        name_header: Header of the name column ("case" for the bench, "cell" for the gate).
    """
    failed = [o for o in outcomes if o.failed]
    lines = [f"### {title}", ""]
    if intro:
        lines += [intro, ""]
    lines += [f"**{len(failed)} regression(s)**: " + ", ".join(f"`{o.name}`" for o in failed)
              if failed else "**no regressions**", ""]
    lines.append("| | " + " | ".join([name_header, *columns]) + " |")
    lines.append("|---" * (len(columns) + 2) + "|")
    for o in sorted(outcomes, key=lambda o: not o.failed):
        lines.append("| " + ("❌" if o.failed else "✓") + " | " + " | ".join(_md(c) for c in (o.name, *o.cells)) + " |")
    notes = [o for o in outcomes if o.message]
    if notes:
        lines += ["", *[f"- `{o.name}`: {_md(o.message)}" for o in notes]]
    return "\n".join(lines) + "\n"


def write_junit(path: Path, suite: str, outcomes: Sequence[Outcome]) -> None:
    """Write a JUnit XML file with one testcase per outcome (failures carry the message)."""
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(outcomes)),
                       failures=str(sum(o.failed for o in outcomes)), errors="0")
    for o in outcomes:
        tc = ET.SubElement(ts, "testcase", classname=suite, name=o.name)
        if o.failed:
            ET.SubElement(tc, "failure", message=o.message or "regression").text = o.message
        elif o.message:
            ET.SubElement(tc, "system-out").text = o.message
    ET.indent(root)
    write_atomic(path, ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n")
