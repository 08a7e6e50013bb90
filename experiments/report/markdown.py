"""summary.md, decision first: per source x budget the Pareto set and the pick, then the detail tables."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .decision import DELTA, MIN_INSTANCES, Decision, metric_name
from .latency import LATENCY_MARGIN, PAIR_MARGIN, class_text
from .frame import budget_text, measured, strategy_parameters
from .ship import cell_text, ship_lines, ship_settings
from .tables import detail, markdown_table, order_table

__all__ = ["summary_markdown", "decision_sections", "DECISION_END"]

DECISION_END = "<!-- end of the decision sections: nothing above depends on timing beyond its class -->"


def decision_sections(text: str) -> str:
    """The decision sections of a summary.md (what must read the same on any machine and load)."""
    return text.split(DECISION_END, 1)[0]


def _esc(text: str) -> str:
    return text.replace("|", "\\|")


def _ship_block(df, cells: Sequence[Decision]) -> list[str]:
    params = strategy_parameters(df) if not df.empty else {}
    md = ["## Ship this\n",
          "Per source domain and latency budget (CPU time per call, reference ms): the one strategy that is best "
          "or tied-best in the most cells of the domain, its worst-case quality regret and where it loses (rule: "
          "docs/decisions.md).\n"]
    lines = ship_lines(list(cells))
    for domain in sorted({ln.domain for ln in lines}):
        sources = sorted({d.source for d in cells if d.domain == domain})
        md += [f"### {domain}: {', '.join(sources)}\n",
               "| latency budget | ship | parameters | dedupe | order | best or tied-best | worst regret | loses in |",
               "|---|---|---|---|---|---|---|---|"]
        undecided = ()
        for ln in (x for x in lines if x.domain == domain):
            undecided = ln.undecided
            if ln.strategy is None:
                md.append(f"| {class_text(ln.latency)} | nothing fits every cell | | | | | | |")
                continue
            dedupe, order = ship_settings(df, ln, cells)
            value, metric, where = ln.regret
            regret = "none" if value <= 0 else f"{value:.3f} {metric} ({where})"
            md.append(f"| {class_text(ln.latency)} | **{ln.strategy}** | {_esc(params.get(ln.strategy, ''))} | "
                      f"{dedupe} | {order} | {ln.held} of {ln.cells} cells | {regret} | "
                      f"{'; '.join(ln.losses) or 'none'} |")
        if undecided:
            md.append(f"\nNot decided (left out above): {'; '.join(undecided)}.")
        md.append("")
    return md


def _decision_table(cells: Sequence[Decision]) -> str:
    lines = ["| source | budget | n | decided on | tied for best (first metric) | recommended | why | not compared |",
             "|---|---|---|---|---|---|---|---|"]
    for d in cells:
        budget = budget_text(d.budget) + ("" if d.near_dup is None else
                                          ", no dedupe" if d.near_dup == "off" else f", dedupe {d.near_dup}")
        order = " > ".join(metric_name(col) for col, _, _ in d.stages) or "none"
        pick = f"**{d.pick.strategy}**" if d.pick else "none"
        gone = "; ".join(f"{s} ({r})" for s, r in d.excluded)
        grey = "; ".join(f"~~{s}~~ ({r})" for s, r in d.out_of_domain)
        lines.append(f"| {d.source} | {budget} | {d.n} | {order} | {', '.join(d.tied) or ''} | {pick} | "
                     f"{_esc(d.why)} | {'; '.join(x for x in (gone, grey) if x) or ''} |")
    return "\n".join(lines) + "\n"


def _details(cells: Sequence[Decision]) -> list[str]:
    md = ["## Decision details\n",
          "Per cell and quality metric: each strategy's mean and, after it, its paired difference to the "
          "stage's best with the 95% bootstrap interval over the cell's instances; only the tied go on.\n"]
    for d in cells:
        if not d.stages:
            continue
        md.append(f"- **{cell_text(d)}** (n={d.n}, {d.domain}):")
        for col, best, tied in d.stages:
            parts = []
            for c in d.candidates:
                iv = d.versus.get((c.strategy, col))
                if iv is None:
                    continue
                mark = "best" if c.strategy == best else ("tied" if c.strategy in tied else "worse")
                parts.append(f"{c.strategy} {c.mean(col):.3f} ({mark}" +
                             ("" if c.strategy == best else f", {iv.mean:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]") + ")")
            md.append(f"  - {metric_name(col)}: " + "; ".join(parts))
    md.append("")
    return md


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
    """The text of summary.md: the decision sections (ship this, per cell, details), then the tables."""
    md = [f"# {name}: which strategy to ship\n"]
    if df.empty:
        return "\n".join(md + ["(no rows)\n"])
    md.append(f"{len(rows):,} runs ({_status_line(df)}). The decision rests on the rows' quality columns, with "
              f"paired 95% bootstrap intervals over each cell's instances (differences within {DELTA:g} are none; "
              f"cells with fewer than {MIN_INSTANCES} instances are not decided), then on CPU latency classes in "
              "reference ms (CPU time over a reference workload timed beside each call; a strategy is in a class "
              f"unless surely above its bound by {LATENCY_MARGIN:g}x, and a higher class counts only when the "
              f"paired CPU ratio is surely above {PAIR_MARGIN:g}x), then on "
              "the declared simplicity order. Strategies not meant for a source's domain are shown struck "
              "through with the reason. The rule: docs/decisions.md.\n")
    md += _ship_block(df, cells)
    md += ["## Decisions per cell\n", _decision_table(cells)]
    md += _details(cells)
    md.append(DECISION_END + "\n")
    md.append("Timing figures below (CPU and wall, ms) are this machine's, see `manifest.json`; the decision "
              "above uses them only as classes.\n")
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
