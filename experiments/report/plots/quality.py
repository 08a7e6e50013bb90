"""Quality figures: the decision view (quality vs CPU latency per cell) and score ratio vs budget per source."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...metrics import ALL_METRICS
from ..decision import Decision
from ..frame import budget_sort, budget_text
from .style import dodge, empty_figure, legend_below, log_axis, panel_grid, save

__all__ = ["pareto", "ratio_vs_budget"]


def _ylim(ax, metric: str) -> None:
    low, high = ALL_METRICS[metric].range  # the metric's declared range: no zoom that inflates differences
    ax.set_ylim(low - 0.03 * (high - low), high + 0.06 * (high - low))


def _cell_title(d: Decision) -> str:
    dedupe = "" if d.near_dup is None else ", no dedupe" if d.near_dup == "off" else f", dedupe {d.near_dup}"
    return f"{d.source}, {budget_text(d.budget)}{dedupe}"


def pareto(df, path: Path, style: dict[str, dict[str, Any]], cells: Sequence[Decision]) -> None:
    """One panel per cell: every strategy at (median CPU ms per call, mean first quality metric), the tied ringed."""
    cells = [d for d in cells if d.candidates and d.metrics]
    if not cells:
        save(empty_figure("Quality vs CPU latency", "no cell has a strategy with every run measured"), path)
        return
    fig, axes = panel_grid(len(cells), "Quality vs CPU time per call per source and budget: tied for best "
                                       "ringed grey, recommended ringed black", cols=4, size=(4.4, 3.3))
    for ax, d in zip(axes, cells):
        col = d.metrics[0]
        xs = {c.strategy: max(float(np.median(c.cpu_ms)), 1e-4) for c in d.candidates}  # log axis: no 0
        for c in d.candidates:
            ax.scatter(xs[c.strategy], c.mean(col), s=44 if c.strategy in d.tied else 26, label=c.strategy,
                       zorder=3, edgecolors="none", **style[c.strategy])
            if c.strategy in d.tied:
                ax.scatter(xs[c.strategy], c.mean(col), s=120, facecolors="none", edgecolors="0.55", lw=1.0, zorder=4)
        log_axis(ax, list(xs.values()))
        if d.pick is not None:
            x, y = xs[d.pick.strategy], d.pick.mean(col)
            ax.scatter(x, y, s=190, facecolors="none", edgecolors="black", lw=1.4, zorder=4)
            low, high = ax.get_xlim()
            right_half = np.log(x) > (np.log(low) + np.log(high)) / 2  # label inside the panel
            ax.annotate(d.pick.strategy, (x, y), xytext=(-6 if right_half else 6, -13),
                        textcoords="offset points", fontsize=8, ha="right" if right_half else "left")
        _ylim(ax, col if col in ALL_METRICS else "score_ratio")
        ax.set_title(_cell_title(d), fontsize=9)
        ax.set_xlabel("median CPU time per call (reference ms, log scale)", fontsize=8)
        ax.set_ylabel(f"mean {d.quality_name}", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    rows = legend_below(fig, style, [c.strategy for d in cells for c in d.candidates])
    save(fig, path, legend_rows=rows)


def _x_categories(part) -> tuple[str, list[str], str]:
    """(column, categories, axis label) of a source's panel: its budgets, or its variants at one budget."""
    budgets = sorted(part["budget_key"].unique(), key=budget_sort)
    variants = sorted(part["source_label"].unique())
    if len(budgets) == 1 and len(variants) > 1:
        return "source_label", variants, f"instance variant (budget: {budget_text(budgets[0])})"
    shares = all("." in b for b in budgets)
    label = ("budget (share of the instance's tokens)" if shares else
             "budget (tokens)" if all(b.isdigit() for b in budgets) else "budget")
    return "budget_key", budgets, label


def ratio_vs_budget(df, path: Path, style: dict[str, dict[str, Any]], cells: Sequence[Decision] = ()) -> None:
    """Mean score ratio per strategy, one panel per source, budgets (or variants) as categories."""
    sources = sorted(df["source"].unique()) if not df.empty else []
    if not sources:
        save(empty_figure("Score ratio vs budget", "no measured runs"), path)
        return
    fig, axes = panel_grid(len(sources), "Mean score ratio to the optimum, per source (0 to 1; dodged so equal "
                                         "values stay visible)", cols=3)
    for ax, source in zip(axes, sources):
        part = df[df["source"] == source]
        col, cats, xlabel = _x_categories(part)
        strategies = sorted(part["choice"].unique())
        for k, strat in enumerate(strategies):
            means = part[part["choice"] == strat].groupby(col)["score_ratio"].mean()
            xs = np.array([cats.index(c) for c in means.index], dtype=float) + dodge(k, len(strategies))
            order = np.argsort(xs)
            ax.plot(xs[order], means.to_numpy()[order], lw=0.8 if col == "budget_key" else 0, ms=5,
                    label=strat, **style[strat])
        shown = [c if col == "budget_key" else c[c.index("(") + 1:-1] if "(" in c else c for c in cats]
        labels = [budget_text(c) if col == "budget_key" else c for c in shown]
        tilt = len(cats) > 4 or max(len(t) for t in labels) * len(cats) > 45  # long names would overlap
        ax.set_xticks(range(len(cats)), labels, fontsize=7, rotation=15 if tilt else 0, ha="right" if tilt else "center")
        ax.set_xlim(-0.6, len(cats) - 0.4)
        _ylim(ax, "score_ratio")
        ax.set_title(source, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("mean score ratio", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", alpha=0.3)
    rows = legend_below(fig, style, df["choice"].unique())
    save(fig, path, legend_rows=rows)
