"""Runtime vs n, duplicate leakage vs dedupe threshold, and position-weighted utility per order."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..decision import Decision
from ..frame import budget_sort
from .style import empty_figure, legend_below, log_axis, panel_grid, save

__all__ = ["runtime_panels", "runtime_vs_n", "leakage_vs_near_dup", "utility_per_order"]


def _n_bins(n: np.ndarray) -> np.ndarray:
    """Candidate counts as they are when a source has a few sizes, else power-of-two bins."""
    if len(np.unique(n)) <= 6:
        return n
    return 2.0 ** np.round(np.log2(np.maximum(n, 1.0)))


def runtime_panels(df) -> list[tuple[str, str, object]]:
    """(source, dedupe key, rows) per panel of `runtime_vs_n`: sources whose sizes span at least 2x."""
    panels = []
    if not df.empty:
        for (source, nd), part in df.groupby(["source", "near_dup_key"], sort=True):
            n = part["n_candidates"].dropna()
            if len(n) and n.min() > 0 and n.max() >= 2 * n.min():  # a size range worth a curve
                panels.append((str(source), str(nd), part))
    return panels


def runtime_vs_n(df, path: Path, style: dict[str, dict[str, Any]], cells: Sequence[Decision] = ()) -> None:
    """Median runtime vs candidates (before dedupe), one panel per source x dedupe threshold.

    Only sources run at sizes at least 2x apart get a panel; dedupe settings are
    never mixed in one curve (dedupe time grows with n and would hide the solver's).
    """
    panels = runtime_panels(df)
    if not panels:
        save(empty_figure("Runtime vs number of candidates",
                          "no source was run at instance sizes at least 2x apart, so there is no runtime curve "
                          "to draw"), path)
        return
    fig, axes = panel_grid(len(panels), "Median runtime vs number of candidates (log-log), per source and "
                                        "dedupe setting", cols=3)
    for ax, (source, nd, part) in zip(axes, panels):
        part = part.assign(n_bin=_n_bins(part["n_candidates"].to_numpy(float)))
        ys = []
        for strat, s in part.groupby("choice"):
            med = s.groupby("n_bin")["seconds_median"].median()
            y = np.maximum(med.to_numpy(float), 1e-7) * 1e3
            ys += list(y)
            ax.plot(med.index.to_numpy(float), y, lw=1, ms=5, label=strat, **style[strat])
        ax.set_xscale("log")
        log_axis(ax, ys, axis="y")
        sizes = sorted(part["n_bin"].unique())
        ax.set_xticks(sizes, [f"{int(v):,}" for v in sizes], fontsize=7)
        ax.minorticks_off()
        ax.set_xlim(sizes[0] / 1.4, sizes[-1] * 1.4)
        ax.set_title(f"{source}, " + ("no dedupe" if nd == "off" else f"dedupe {nd}"), fontsize=10)
        ax.set_xlabel("candidates per instance (before dedupe)", fontsize=8)
        ax.set_ylabel("median runtime (ms)", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(alpha=0.3)
    rows = legend_below(fig, style, df["choice"].unique())
    save(fig, path, legend_rows=rows)


def _threshold_sort(key: str) -> tuple[int, float]:
    return (1, 0.0) if key == "off" else (0, float(key))


def leakage_vs_near_dup(df, path: Path, style: dict[str, dict[str, Any]], cells: Sequence[Decision] = ()) -> None:
    """Share of packed tokens that duplicate an earlier item, per strategy, bars per dedupe threshold."""
    import matplotlib

    sources = [s for s, part in df.groupby("source") if part["near_dup_key"].nunique() > 1] if not df.empty else []
    if not sources:
        save(empty_figure("Duplicate leakage vs dedupe threshold",
                          "no source was run at several dedupe thresholds"), path)
        return
    fig, axes = panel_grid(len(sources), "Duplicate tokens in the packed context, by dedupe threshold "
                                         "(category 'off' = no dedupe)", cols=1, size=(10.0, 3.4))
    cmap = matplotlib.colormaps["viridis"]
    for ax, source in zip(axes, sources):
        part = df[df["source"] == source]
        keys = sorted(part["near_dup_key"].unique(), key=_threshold_sort)
        strategies = sorted(part["choice"].unique())
        width = 0.8 / len(keys)
        for j, key in enumerate(keys):
            means = part[part["near_dup_key"] == key].groupby("choice")["leak_tokens"].mean().reindex(strategies)
            xs = np.arange(len(strategies)) + (j - (len(keys) - 1) / 2) * width
            label = "no dedupe" if key == "off" else f"dedupe at Jaccard >= {key}"
            ax.bar(xs, means.to_numpy(float), width=width, color=cmap(0.15 + 0.7 * j / max(1, len(keys) - 1)),
                   label=label)
        ax.set_xticks(range(len(strategies)), strategies, fontsize=8, rotation=20)
        ax.set_ylim(0, max(0.05, float(part.groupby(["near_dup_key", "choice"])["leak_tokens"].mean().max()) * 1.15))
        ax.set_title(source, fontsize=10)
        ax.set_ylabel("duplicate tokens\n(share of packed tokens)", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, frameon=False, ncol=len(keys), loc="upper left")
    save(fig, path)


def utility_per_order(df, path: Path, style: dict[str, dict[str, Any]], cells: Sequence[Decision] = ()) -> None:
    """Mean order efficiency (utility over the best order of the same items) per order, axis from 0."""
    sources = [s for s, part in df.groupby("source") if part["order_choice"].nunique() > 1] if not df.empty else []
    if not sources:
        save(empty_figure("Position-weighted utility per order",
                          "every source was run with a single order, so orders cannot be compared"), path)
        return
    fig, axes = panel_grid(len(sources), "Position-weighted utility per order, as a share of the best "
                                         "order's utility (axis from 0)", cols=3)
    for ax, source in zip(axes, sources):
        part = df[df["source"] == source]
        means = part.groupby("order_choice")["order_efficiency"].mean().sort_values(ascending=False)
        ax.bar(range(len(means)), means.to_numpy(float), color="tab:blue", width=0.6)
        for k, v in enumerate(means.to_numpy(float)):
            ax.annotate(f"{v:.3f}", (k, v), xytext=(0, 2), textcoords="offset points", ha="center", fontsize=8)
        ax.set_xticks(range(len(means)), list(means.index), fontsize=8, rotation=15)
        ax.set_ylim(0, 1.1)
        ax.set_title(source, fontsize=10)
        ax.set_ylabel("mean order efficiency", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", alpha=0.3)
    save(fig, path)
