"""The report step: summaries, the decision table and plots derived from the rows of ``runs.jsonl``.

``summary.md`` opens with the answer to "which strategy should I ship?": the
"ship this" block per source domain and latency budget (`ship`), the decision
per source x budget with paired intervals and tie marks (`decision`), then the
detail tables with units in their headers (`tables`). ``summary.csv`` and
``summary.parquet`` are tidy: one line per source x parameters x budget x
near_dup x dedupe x order x strategy with every summary column declared in
`metrics.ALL_METRICS`. ``report.html`` is the same answer to explore offline
(`html`). Plots (`plots.PLOTS`) go to ``plots/<name>.png``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .decision import Candidate, Decision, decisions
from .frame import frame, measured
from .html import report_html
from .markdown import decision_sections, summary_markdown
from .ship import ship_lines
from .plots import PLOTS, strategy_style
from .tables import detail, markdown_table, order_table, overview, summarise

__all__ = ["PLOTS", "plot_names", "Candidate", "Decision", "decisions", "ship_lines", "decision_sections", "summarise", "detail",
           "overview", "order_table", "write_report", "markdown_table"]


def plot_names(requested: Sequence[str] | None) -> list[str]:
    """The plots to draw: `requested` (a config's ``plots``), or every plot in `PLOTS` when None.

    Raises:
        ValueError: An unknown plot name (the message lists the valid ones).
    """
    names = list(PLOTS) if requested is None else list(requested)
    for name in names:
        if name not in PLOTS:
            raise ValueError(f"unknown plot {name!r}; valid: {', '.join(PLOTS)}")
    return names


def write_report(out_dir: str | Path, rows: Sequence[Mapping[str, Any]], plots: Sequence[str] | None = None,
                 title: str | None = None) -> list[Path]:
    """Write summary.csv, summary.parquet, summary.md, report.html and the plots; return the paths written.

    Args:
        out_dir: The result directory (a ``manifest.json`` there adds its data notes).
        rows: The result rows, or a DataFrame of them (`storage.read_runs`, for large results).
        plots: Names in `PLOTS` (default: all).
        title: Heading of summary.md (default: the experiment's name).

    Raises:
        ValueError: An unknown plot name.
    """
    from ..storage import write_atomic

    names = plot_names(plots)
    out = Path(out_dir)
    df = frame(rows)
    cells = decisions(df)
    written = [out / "summary.csv", out / "summary.parquet", out / "summary.md"]
    table = summarise(df)
    write_atomic(written[0], table.to_csv(index=False, float_format="%.6g"))
    write_atomic(written[1], table.to_parquet(index=False))  # bytes: written like the rest
    name = title or (str(df["experiment"].iloc[0]) if len(df) and "experiment" in df else out.name)
    write_atomic(written[2], summary_markdown(out, name, df, rows, cells, names))
    written.append(out / "report.html")
    write_atomic(written[-1], report_html(name, df, cells, ship_lines(cells)))
    ok = measured(df)
    style = strategy_style(df["choice"].unique()) if not df.empty else {}
    for plot in names:
        path = out / "plots" / f"{plot}.png"
        PLOTS[plot](ok, path, style, cells)
        written.append(path)
    return written

