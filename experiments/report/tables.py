"""The tables: per source x budget x strategy summaries, utility per order, and markdown rendering.

`summarise` is the tidy table of ``summary.csv``/``summary.parquet`` (one line
per source x parameters x budget x near_dup x dedupe x order x strategy,
machine-readable column names); `detail` is the same per
source name, for ``summary.md``, with headers that carry their units. Every
metric column comes from `metrics.ALL_METRICS`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..metrics import ALL_METRICS
from .frame import aggregate, budget_sort, budget_text, column_header, frame, measured

__all__ = ["summarise", "detail", "order_table", "overview", "markdown_table", "headers"]


def _as_frame(rows):
    """A report `frame` of rows, or the frame itself when one is passed (built once per report)."""
    return rows if hasattr(rows, "columns") and "choice" in rows else frame(rows)


def _variant_columns(df) -> tuple[Any, list[str]]:
    """`df` with each ``p_*`` column made groupable (numbers stay numbers, other values become text)."""
    import pandas as pd

    params = sorted(c for c in df.columns if c.startswith("p_"))
    out = {}
    for col in params:
        values = df[col]
        present = values[values.notna()]
        numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present)
        out[col] = pd.to_numeric(values, errors="coerce") if numeric else values.map(
            lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v))
    return df.assign(**out), params


def summarise(rows: Sequence[Mapping[str, Any]] | Any):
    """The tidy summary as a pandas DataFrame (empty without rows): ``summary.csv`` and ``summary.parquet``.

    One line per source x source parameters (one ``p_*`` column each) x budget
    x near_dup x dedupe x order x strategy (with the parameters that vary), then
    ``runs`` and one count per status, then every aggregate declared in
    `metrics.ALL_METRICS` over the measured rows. Seeds and instances are
    aggregated; nothing else is pooled.
    """
    import pandas as pd

    df = _as_frame(rows)
    if df.empty:
        return pd.DataFrame()
    df, params = _variant_columns(df)
    if "dedupe" not in df:
        df = df.assign(dedupe=None)
    keys = ["source", *params, "budget_key", "near_dup_key", "dedupe", "order_choice", "choice"]
    summary = aggregate(df, keys).rename(columns={"budget_key": "budget", "near_dup_key": "near_dup",
                                                  "order_choice": "order", "choice": "strategy"})
    summary = summary.assign(_b=summary["budget"].map(budget_sort))
    order = ["source", *params, "_b", "near_dup", "order", "strategy"]
    return summary.sort_values(order, kind="stable", na_position="first").drop(columns="_b").reset_index(drop=True)


def headers() -> dict[str, str]:
    """Summary column -> header with its unit (from the metric table)."""
    return {agg.column: column_header(metric, agg) for metric in ALL_METRICS.values() for agg in metric.aggregation}


def detail(df, source: str):
    """One source's table for summary.md: budget x dedupe (where it varies) x strategy, units in the headers.

    Columns that are empty for the whole source (e.g. answer recall without
    labels) and status counts that are all zero are left out.
    """
    part = df[df["source"] == source]
    keys = ["budget_key"] + (["near_dup_key"] if part["near_dup_key"].nunique() > 1 else []) + ["choice"]
    table = aggregate(part, keys)
    table = table.assign(_b=table["budget_key"].map(budget_sort)).sort_values(
        ["_b"] + keys[1:], kind="stable").drop(columns="_b")
    table["budget_key"] = table["budget_key"].map(budget_text)
    table = table.rename(columns={"budget_key": "budget", "near_dup_key": "dedupe", "choice": "strategy", **headers()})
    drop = [c for c in table.columns if table[c].isna().all()]
    drop += [c for c in ("timeout", "skipped", "error") if c in table and (table[c] == 0).all()]
    return table.drop(columns=drop).reset_index(drop=True)


def order_table(rows: Sequence[Mapping[str, Any]] | Any):
    """Mean position-weighted utility and order efficiency per source x order (sources run with several orders)."""
    import pandas as pd

    df = _as_frame(rows)
    if df.empty or "utility" not in df:
        return pd.DataFrame()
    ok = measured(df)
    several = ok.groupby("source")["order_choice"].transform("nunique") > 1
    table = ok[several].groupby(["source", "order_choice"], sort=True).agg(
        runs=("run_id", "count"), utility_mean=("utility", "mean"), order_efficiency_mean=("order_efficiency", "mean"))
    return table.reset_index().rename(columns={"order_choice": "order"})


def overview(rows: Sequence[Mapping[str, Any]]):
    """Mean score ratio per strategy (rows) and source name (columns), over all budgets and parameters."""
    import pandas as pd

    df = _as_frame(rows)
    if df.empty or "score_ratio" not in df:
        return pd.DataFrame()
    table = measured(df).pivot_table(index="choice", columns="source", values="score_ratio", aggfunc="mean")
    return table.reset_index().rename(columns={"choice": "strategy"}).rename_axis(columns=None)


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")


def markdown_table(frame_) -> str:
    """A GitHub markdown table of a DataFrame (no extra dependency)."""
    cols = [str(c) for c in frame_.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for rec in frame_.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) for v in rec) + " |")
    return "\n".join(lines) + "\n"
