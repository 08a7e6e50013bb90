"""The rows as a pandas DataFrame with the derived columns every table and plot groups by.

Derived columns: ``budget_key`` (the budget spec as text), ``near_dup_key``
(``"off"`` or the threshold), ``source_label`` (the source with only the
parameters that vary within it, e.g. ``pisinger(cls=subset_sum,n=50)``),
``choice`` (the strategy with only the parameters that vary between its runs,
so a single configuration reads ``cpsat``), and ``order_choice`` (the same for
orders). `aggregate` turns a grouping into the status counts and every summary
column declared in `metrics.ALL_METRICS`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..calibration import REFERENCE_MS
from ..metrics import ALL_METRICS, Aggregate, Metric
from ..schema import MEASURED, Status

__all__ = ["frame", "measured", "aggregate", "budget_sort", "budget_text", "column_header", "plain",
           "strategy_parameters", "reference_ms", "MEASURED_STATUSES"]

MEASURED_STATUSES = tuple(str(s) for s in MEASURED)
_HOW = {"mean": "mean", "min": "worst", "max": "max", "median": "median", "p95": "p95", "all_exact": ""}
_SCALED_UNITS = {("s", 1e3): "ms", ("s", 1e6): "µs"}


def plain(value: Any) -> Any:
    """Undo pandas' float upcast of int parameters (a column with gaps holds 160 as 160.0)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _labels(df, name_col: str, prefix: str):
    """Per row: the name with only the `prefix` parameters that vary among the rows of that name."""
    params = [c for c in df.columns if c.startswith(prefix)]
    out = df[name_col].astype(str).copy()
    for name, part in df.groupby(name_col):
        text = part[params].astype(str)  # lists (curve weights) are unhashable; their text is not
        varying = [c for c in params if part[c].notna().any() and text[c].nunique() > 1]
        if not varying:
            continue
        for _, sub in text.groupby(varying, sort=False):  # one label per parameter combination
            first = part.loc[sub.index[0]]
            inner = ",".join(f"{c[len(prefix):]}={plain(first[c])}" for c in varying if not _missing(first[c]))
            out.loc[sub.index] = f"{name}({inner})" if inner else str(name)
    return out


def frame(rows: Sequence[Mapping[str, Any]]):
    """The rows as a DataFrame with the derived grouping columns (empty frame without rows).

    `rows` may already be a DataFrame (e.g. `storage.read_runs` of a million rows); it is then
    extended in place rather than copied.
    """
    import pandas as pd

    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    if df.empty:
        return df
    # Rows of older runs may lack a column; the tables and plots then see it as unmeasured.
    numeric = [m.name for m in ALL_METRICS.values() if m.range is not None] + ["n_candidates", "n_after_dedupe"]
    for col in numeric:  # a column of Nones is NaN, not object
        df[col] = pd.to_numeric(df[col], errors="coerce") if col in df else float("nan")
    for col in ("reason", "instance"):
        if col not in df:
            df[col] = None
    df["budget_key"] = df["budget_spec"].map(lambda b: b if isinstance(b, str) else repr(plain(b)))
    df["near_dup_key"] = df["near_dup"].map(lambda v: "off" if _missing(v) else f"{v:g}")
    df["source_label"] = _labels(df, "source", "p_")
    df["choice"] = _labels(df, "strategy", "sp_")
    df["order_choice"] = _labels(df, "order", "op_") if "order" in df else "original"
    return df


def measured(df):
    """The rows whose status carries metrics (ok and timeout)."""
    return df[df["status"].isin(MEASURED_STATUSES)] if not df.empty else df


def reference_ms(df):
    """Per row: CPU ms per call in reference ms (`calibration`), what latency classes rest on.

    The least CPU time of the run's repeats over the least time of the reference workload timed beside
    them, times `calibration.REFERENCE_MS`. Rows without a reference time (written before it was
    recorded) give their raw CPU ms, and rows without CPU time their wall time.
    """
    raw = df["cpu_seconds_min"].where(df["cpu_seconds_min"].notna(), df["seconds_median"]) * 1e3
    if "cpu_reference_s" not in df:
        return raw
    ref = df["cpu_reference_s"].where(df["cpu_reference_s"] > 0)
    return (df["cpu_seconds_min"] / ref * REFERENCE_MS).where(ref.notna() & df["cpu_seconds_min"].notna(), raw)


def budget_sort(key: str) -> tuple[int, float, str]:
    """Sort key of a budget key: numbers by value, then names."""
    try:
        return (0, float(key), key)
    except ValueError:
        return (1, 0.0, key)


def budget_text(key: str) -> str:
    """A budget key for readers: ``512`` tokens, ``0.05`` -> ``5% of tokens``, ``natural``."""
    try:
        value = float(key)
    except ValueError:
        return key
    if "." in key or "e" in key:  # a share of the instance's tokens
        return f"{value * 100:g}% of tokens"
    return f"{int(value):,} tokens"


def column_header(metric: Metric, agg: Aggregate) -> str:
    """A table header for a summary column with its unit, e.g. ``runtime p95 (ms)``."""
    words = agg.column.removesuffix("_ms").replace("_", " ")
    unit = _SCALED_UNITS.get((metric.unit, agg.scale), metric.unit)
    return words if unit == "category" else f"{words} ({unit})"


def _agg(values, how: str):
    if how == "p95":
        return values.quantile(0.95)
    if how == "all_exact":
        kinds = values.agg(lambda s: frozenset(s.dropna()))
        return kinds.map(lambda k: None if not k else "exact" if k == {"exact"} else "certified_lower_bound")
    return values.agg(how)


def aggregate(df, keys: Sequence[str]):
    """Per group of `keys`: ``runs``, one count per `Status`, then every declared summary column.

    Args:
        df: A `frame`.
        keys: Columns to group by.

    Returns:
        A DataFrame with the keys as columns, in first-seen order.
    """
    import pandas as pd

    # dropna=False: a key that is missing for some rows (a parameter only one source has) is still a group.
    groups = df.groupby(list(keys), sort=False, dropna=False)
    summary = groups.size().rename("runs").to_frame()
    for status in (Status.OK, Status.TIMEOUT, Status.SKIPPED, Status.ERROR):
        summary[str(status)] = (df["status"] == status).groupby([df[k] for k in keys], sort=False,
                                                                 dropna=False).sum()
    ok = measured(df).groupby(list(keys), sort=False, dropna=False)
    for metric in ALL_METRICS.values():
        for agg in metric.aggregation:
            col = _agg(ok[metric.name], agg.how) if metric.name in df else pd.Series(dtype=float)
            if agg.how != "all_exact":
                col = col * agg.scale
            summary[agg.column] = col.reindex(summary.index)
    return summary.reset_index()


def strategy_parameters(df) -> dict[str, str]:
    """Short strategy label -> its full parameters as text (for the legend of the tables)."""
    out: dict[str, str] = {}
    params = [c for c in df.columns if c.startswith("sp_")]
    for choice, part in df.groupby("choice"):
        first = part.iloc[0]
        text = ", ".join(f"{c[3:]}={plain(first[c])}" for c in params if not _missing(first[c]))
        out[str(choice)] = text or "no parameters"
    return out
