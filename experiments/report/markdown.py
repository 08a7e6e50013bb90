"""summary.md, decision first: per source x budget the Pareto set and the pick, then the detail tables."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .decision import LATENCY_TIE, TOLERANCE, Decision
from .frame import budget_text, measured, strategy_parameters
from .tables import detail, markdown_table, order_table

__all__ = ["summary_markdown"]


def _ms(value: float) -> str:
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def _decision_table(cells: Sequence[Decision]) -> str:
    lines = ["| source | budget | quality | Pareto set: strategy (quality, p95 ms), fastest first | recommended | why |",
             "|---|---|---|---|---|---|"]
    for d in cells:
        budget = budget_text(d.budget) + ("" if d.near_dup is None else
                                          f", no dedupe" if d.near_dup == "off" else f", dedupe {d.near_dup}")
        front = ", ".join(f"{c.strategy} ({c.quality:.3f}, {_ms(c.p95_ms)})" for c in d.front) or "none"
        why = d.why + (f"; not compared (runs skipped, failed or over the budget): {', '.join(d.excluded)}" if d.excluded else "")
        pick = f"**{d.pick.strategy}**" if d.pick else "none"
        lines.append(f"| {d.source} | {budget} | {d.quality_name} | {front} | {pick} | {why} |")
    return "\n".join(lines) + "\n"


def _status_line(df) -> str:
    counts = df["status"].value_counts()
    return ", ".join(f"{k} {counts.get(k, 0):,}" for k in ("ok", "timeout", "skipped", "error"))


def _reasons(df, limit: int = 8) -> list[str]:
    """The most frequent reasons of skipped and failed runs."""
    bad = df[df["status"].isin(["skipped", "error"])]
    if bad.empty:
        return []
    top = bad.groupby(["status", "source", "choice", "reason"], dropna=False).size().sort_values(ascending=False)
    lines = [f"- {n:,} x {status}: {source} / {choice}: {reason}" for (status, source, choice, reason), n
             in top.head(limit).items()]
    if len(top) > limit:
        lines.append(f"- ... and {len(top) - limit} other reasons (see runs.jsonl)")
    return lines


def _data_lines(out: Path, df) -> list[str]:
    manifest = out / "manifest.json"
    notes: Mapping[str, str] = {}
    if manifest.is_file():
        try:
            notes = json.loads(manifest.read_text(encoding="utf-8")).get("data") or {}
        except (OSError, ValueError):
            notes = {}
    if not notes and "instance" in df:
        sampled = sorted(df[df["instance"].astype(str).str.startswith("sample/")]["source"].unique())
        notes = {s: "embedded sample (instances sample/q=N)" for s in sampled}
    return [f"- {source}: {note}" for source, note in sorted(notes.items())]


def summary_markdown(out: Path, name: str, df, rows: Sequence[Mapping[str, Any]], cells: Sequence[Decision],
                     plots: Sequence[str]) -> str:
    """The text of summary.md."""
    md = [f"# {name}: which strategy to ship\n"]
    if df.empty:
        return "\n".join(md + ["(no rows)\n"])
    md.append(f"{len(rows):,} runs ({_status_line(df)}). For each source and budget (and dedupe threshold where "
              "it was swept): the **Pareto set** of strategies over quality (mean answer recall where the source has "
              "answer labels, else mean score ratio to the optimum) and p95 runtime, and the **recommended** one: "
              f"the fastest of the set within {TOLERANCE} of the best quality (p95 runtimes within {LATENCY_TIE:g}x "
              "of each other count as equal, then the higher quality and score ratio win; equal answer recall is "
              "ranked by score ratio). Runtimes are the 95th percentile over "
              "the runs of each run's median wall time, on the machine in `manifest.json`.\n")
    md.append(_decision_table(cells))
    data = _data_lines(out, df)
    if data:
        md += ["Data read:", *data, ""]
    if plots:
        md.append("Plots: " + ", ".join(f"[{p}](plots/{p}.png)" for p in plots) + "\n")
    md += ["## Strategies\n", "| strategy | parameters |", "|---|---|"]
    md += [f"| {k} | {v} |" for k, v in sorted(strategy_parameters(df).items())]
    md += ["", "## Details per source\n",
           "Aggregated over the source's parameter combinations, seeds, instances and orders; `summary.csv` has "
           "one line per parameter combination. Score ratio: candidate score over the reference optimum (kind "
           "`exact`) or over a certified upper bound (`certified_lower_bound`: the true ratio is at least this). "
           "Duplicate tokens: share of the packed candidate tokens that repeat an earlier packed item.\n"]
    for source in sorted(df["source"].unique()):
        md += [f"### {source}\n", markdown_table(detail(df, source))]
    orders = order_table(df)
    if len(orders):
        md += ["## Position-weighted utility per order\n",
               "Order efficiency: utility of the order over the best utility any order of the same items reaches "
               "(1 = best possible placement), under the config's position curve.\n", markdown_table(orders)]
    reasons = _reasons(df)
    if reasons:
        md += ["## Runs not measured\n", *reasons, ""]
    if measured(df).empty:
        md.append("No run was measured.\n")
    return "\n".join(md)
