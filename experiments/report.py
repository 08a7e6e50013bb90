"""Summaries and plots derived from the rows of ``runs.jsonl``.

``summary.csv`` and ``summary.md`` have one line per source x budget x strategy
(source and strategy labelled with the parameters that vary), aggregated over
seeds, instances, orders and near_dup values: mean and worst score ratio, the
ratio kind, median and p95 runtime, mean duplicate leakage (tokens), mean
utilisation and mean answer recall. Only ``ok`` and ``timeout`` rows carry
metrics; the other statuses are counted. ``summary.md`` adds a table of
position-weighted utility per order. Plots go to ``plots/<name>.png``.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .metrics import ALL_METRICS
from .schema import MEASURED, Status

__all__ = ["PLOTS", "summarise", "overview", "order_table", "write_report", "markdown_table"]

_MEASURED = tuple(str(s) for s in MEASURED)


def _plain(value: Any) -> Any:
    """Undo pandas' float upcast of int parameters (a column with gaps holds 160 as 160.0)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _style(labels) -> dict[str, dict[str, Any]]:
    """A distinct colour and marker per strategy label, stable for a given set of labels."""
    import matplotlib

    cmap = matplotlib.colormaps["tab20"]
    markers = "os^vDP*Xh<>"
    return {lab: {"color": cmap(k % 20), "marker": markers[k % len(markers)]}
            for k, lab in enumerate(sorted(labels))}


def _frame(rows: Sequence[Mapping[str, Any]]):
    import pandas as pd

    df = pd.DataFrame(list(rows))
    if df.empty:
        return df
    df["budget_key"] = df["budget_spec"].map(lambda b: b if isinstance(b, str) else repr(b))
    df["near_dup_key"] = df["near_dup"].map(lambda v: "off" if v is None or (isinstance(v, float) and math.isnan(v))
                                            else f"{v:g}")
    labels = {}
    for source, part in df.groupby("source"):
        varying = [c for c in part.columns if c.startswith("p_") and part[c].astype(str).nunique() > 1]
        for idx, rec in part[varying].iterrows():
            inner = ",".join(f"{c[2:]}={_plain(rec[c])}" for c in varying)
            labels[idx] = f"{source}({inner})" if inner else source
    df["source_label"] = pd.Series(labels)
    return df


def _budget_sort(key: str) -> tuple[int, float, str]:
    try:
        return (0, float(key), key)
    except ValueError:
        return (1, 0.0, key)


def _aggregate(values, how: str):
    """One `metrics.Aggregate` over grouped values (a pandas SeriesGroupBy)."""
    if how == "p95":
        return values.quantile(0.95)
    if how == "all_exact":
        kinds = values.agg(lambda s: frozenset(s.dropna()))
        return kinds.map(lambda k: None if not k else "exact" if k == {"exact"} else "certified_lower_bound")
    return values.agg(how)


def summarise(rows: Sequence[Mapping[str, Any]]):
    """The per source x budget x strategy summary as a pandas DataFrame (empty without rows).

    Columns: the group (with ``near_dup`` when the rows sweep it), ``runs`` and one count per
    `Status`, then every aggregate declared in `metrics.ALL_METRICS` over the measured rows.
    """
    import pandas as pd

    df = _frame(rows)
    if df.empty:
        return pd.DataFrame()
    for metric in ALL_METRICS.values():
        if metric.range is not None and metric.name in df:  # numeric: a column of Nones is NaN, not object
            df[metric.name] = pd.to_numeric(df[metric.name], errors="coerce")
    keys = ["source_label", "budget_key", "strategy_label"]
    if df["near_dup_key"].nunique() > 1:  # dedupe on and off are different packers: never average them
        keys.insert(2, "near_dup_key")
    groups = df.groupby(keys, sort=False)
    summary = groups.size().rename("runs").to_frame()
    for status in (Status.OK, Status.TIMEOUT, Status.SKIPPED, Status.ERROR):
        summary[str(status)] = (df["status"] == status).groupby([df[k] for k in keys], sort=False).sum()
    measured = df[df["status"].isin(_MEASURED)].groupby(keys, sort=False)
    for metric in ALL_METRICS.values():
        for agg in metric.aggregation:
            col = (_aggregate(measured[metric.name], agg.how) if metric.name in df
                   else pd.Series(dtype=float))
            if agg.how != "all_exact":
                col = col * agg.scale
            summary[agg.column] = col.reindex(summary.index)
    summary = summary.reset_index().rename(columns={"source_label": "source", "budget_key": "budget",
                                                    "near_dup_key": "near_dup", "strategy_label": "strategy"})
    summary["_b"] = summary["budget"].map(_budget_sort)
    summary = summary.sort_values(["source", "_b", "strategy"], kind="stable").drop(columns="_b")
    return summary.reset_index(drop=True)


def order_table(rows: Sequence[Mapping[str, Any]]):
    """Mean position-weighted utility and order efficiency per source x order."""
    import pandas as pd

    df = _frame(rows)
    if df.empty or "utility" not in df:
        return pd.DataFrame()
    ok = df[df["status"].isin(_MEASURED)]
    table = ok.groupby(["source_label", "order_label"], sort=True).agg(
        runs=("run_id", "count"), utility_mean=("utility", "mean"), order_efficiency_mean=("order_efficiency", "mean"))
    return table.reset_index().rename(columns={"source_label": "source", "order_label": "order"})


def overview(rows: Sequence[Mapping[str, Any]]):
    """Mean score ratio per strategy (rows) and source name (columns), over all budgets and parameters."""
    import pandas as pd

    df = _frame(rows)
    if df.empty or "score_ratio" not in df:
        return pd.DataFrame()
    ok = df[df["status"].isin(_MEASURED)]
    table = ok.pivot_table(index="strategy_label", columns="source", values="score_ratio", aggfunc="mean")
    return table.reset_index().rename(columns={"strategy_label": "strategy"}).rename_axis(columns=None)


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")


def markdown_table(frame) -> str:
    """A GitHub markdown table of a DataFrame (no extra dependency)."""
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for rec in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v) for v in rec) + " |")
    return "\n".join(lines) + "\n"


def _axes(n_panels: int, title: str):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(3, max(1, n_panels))
    nrows = max(1, math.ceil(n_panels / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 3.8 * nrows), squeeze=False)
    fig.suptitle(title, y=1.0 + 0.02 / nrows)
    return fig, [ax for row in axes for ax in row]


def _save(fig, path: Path) -> None:
    import matplotlib.pyplot as plt

    from .storage import write_atomic

    buf = io.BytesIO()
    fig.tight_layout()
    # "tight" keeps the figure legend below the panels inside the image.
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    write_atomic(path, buf.getvalue())


def _by_panel(df, title: str, draw: Callable, path: Path, panel: str = "source_label") -> None:
    panels = sorted(df[panel].dropna().unique()) if not df.empty else []
    fig, axes = _axes(len(panels) or 1, title)
    if not panels:
        axes[0].text(0.5, 0.5, "no measured runs", ha="center", va="center")
    for ax, name in zip(axes, panels):
        draw(ax, df[df[panel] == name])
        ax.set_title(name, fontsize=8)
    for ax in axes[len(panels) or 1:]:
        ax.set_visible(False)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="upper center", ncol=min(4, len(labels)), fontsize=7,
                   bbox_to_anchor=(0.5, 0.0))
    _save(fig, path)


def _ratio_vs_budget(df, path: Path) -> None:
    style = _style(df["strategy_label"].unique()) if not df.empty else {}

    def draw(ax, part):
        keys = sorted(part["budget_key"].unique(), key=_budget_sort)
        for strat, s in part.groupby("strategy_label"):
            means = s.groupby("budget_key")["score_ratio"].mean()
            ax.plot([keys.index(k) for k in means.index], means.values, label=strat, **style[strat])
        ax.set_xticks(range(len(keys)), keys, fontsize=7)
        ax.set_xlabel("budget (tokens, share, natural)")
        ax.set_ylabel("mean score ratio")
    _by_panel(df, "Score ratio vs budget", draw, path)


def _runtime_vs_n(df, path: Path) -> None:
    style = _style(df["strategy_label"].unique()) if not df.empty else {}

    def draw(ax, part):
        from matplotlib.ticker import NullFormatter

        # Sizes are binned to powers of two so instances of similar size share a point.
        sizes = 2.0 ** np.round(np.log2(np.maximum(part["n_after_dedupe"].to_numpy(float), 1.0)))
        part = part.assign(n_bin=sizes)
        for strat, s in part.groupby("strategy_label"):
            med = s.groupby("n_bin")["seconds_median"].median()
            ax.loglog(med.index.to_numpy(float), np.maximum(med.to_numpy(float), 1e-7), label=strat, **style[strat])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("candidates after dedupe (power-of-two bins)")
        ax.set_ylabel("median runtime (s)")
    _by_panel(df, "Runtime vs n (log-log), per source", draw, path, panel="source")


def _leakage_vs_near_dup(df, path: Path) -> None:
    style = _style(df["strategy_label"].unique()) if not df.empty else {}

    def draw(ax, part):
        keys = sorted(part["near_dup_key"].unique(), key=_budget_sort)
        for strat, s in part.groupby("strategy_label"):
            means = s.groupby("near_dup_key")["leak_tokens"].mean()
            ax.plot([keys.index(k) for k in means.index], means.values, label=strat, **style[strat])
        ax.set_xticks(range(len(keys)), keys)
        ax.set_xlabel("near_dup threshold")
        ax.set_ylabel("mean leaked token share")
    # Only sources run at several thresholds say anything about the threshold.
    swept = df.groupby("source_label")["near_dup_key"].transform("nunique") > 1 if not df.empty else None
    _by_panel(df[swept] if swept is not None and swept.any() else df, "Duplicate leakage vs near_dup", draw, path)


def _utility_per_order(df, path: Path) -> None:
    def draw(ax, part):
        means = part.groupby("order_label")["order_efficiency"].mean().sort_values(ascending=False)
        ax.bar(range(len(means)), means.values, color="tab:blue")
        for k, v in enumerate(means.values):
            ax.annotate(f"{v:.3f}", (k, v), ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(means)), means.index, rotation=20, fontsize=7)
        # Orders differ by a few percent: zoom in instead of starting the axis at 0.
        ax.set_ylim(max(0.0, float(means.min()) - 0.05), 1.01)
        ax.set_ylabel("mean utility / best order's utility")
    # Only sources run with several orders compare orders.
    swept = df.groupby("source_label")["order_label"].transform("nunique") > 1 if not df.empty else None
    _by_panel(df[swept] if swept is not None and swept.any() else df,
              "Position-weighted utility per order (curve of the config)", draw, path)


PLOTS: dict[str, Callable] = {
    "ratio_vs_budget": _ratio_vs_budget,
    "runtime_vs_n": _runtime_vs_n,
    "leakage_vs_near_dup": _leakage_vs_near_dup,
    "utility_per_order": _utility_per_order,
}


def write_report(out_dir: str | Path, rows: Sequence[Mapping[str, Any]], plots: Sequence[str] | None = None,
                 title: str | None = None) -> list[Path]:
    """Write summary.csv, summary.md and the plots; return the paths written."""
    from .storage import write_atomic

    out = Path(out_dir)
    summary, orders = summarise(rows), order_table(rows)
    written = [out / "summary.csv", out / "summary.md"]
    write_atomic(written[0], summary.to_csv(index=False, float_format="%.6g"))
    name = title or (rows[0]["experiment"] if rows else out.name)
    md = [f"# {name}\n", f"{len(rows)} runs. Score ratio: candidate score over the reference optimum "
          "(`exact`) or over a certified upper bound (`certified_lower_bound`, a lower bound on the true "
          "ratio). Runtimes are per-run medians of repeated calls.\n"]
    top = overview(rows)
    if len(top):
        md += ["## Mean score ratio per strategy and source (all budgets)\n", markdown_table(top), ""]
    md += ["## Per source x budget x strategy\n", markdown_table(summary) if len(summary) else "(no rows)\n"]
    if len(orders):
        md += ["\n## Position-weighted utility per order\n", markdown_table(orders)]
    write_atomic(written[1], "\n".join(md))
    df = _frame(rows)
    measured = df[df["status"].isin(_MEASURED)] if not df.empty else df
    for plot in PLOTS if plots is None else plots:
        path = out / "plots" / f"{plot}.png"
        PLOTS[plot](measured, path)
        written.append(path)
    return written
