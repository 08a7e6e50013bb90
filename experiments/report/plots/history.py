"""The gate's history drawn over commits: each cell's stage CPU time and its quality, one point per gate run.

Not one of the run report's `PLOTS` (it reads a gate history store, not a
results frame): `packbench report --history DIR` calls `write_history_plots`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .style import empty_figure, legend_below, panel_grid, save, series_styles

__all__ = ["write_history_plots", "HISTORY_PLOTS"]

# file name -> (record section, figure, y label, title)
HISTORY_PLOTS = {
    "history_speed.png": ("speed", "ms_now", "CPU ms per call of the timed stage",
                          "Speed over commits (the gate's timed stage, this tree's side)"),
    "history_quality.png": ("cells", "ratio_mean", "mean score ratio", "Quality over commits (mean score ratio)"),
}


def _label(rec: dict[str, Any]) -> str:
    commit = (rec.get("commit") or "no git")[:8]
    return commit + ("+" if rec.get("dirty") else "")


def _series(records: Sequence[dict[str, Any]], section: str, figure: str) -> dict[str, list[tuple[int, float]]]:
    out: dict[str, list[tuple[int, float]]] = {}
    for k, rec in enumerate(records):
        for cell, figs in (rec.get(section) or {}).items():
            value = figs.get(figure) if isinstance(figs, dict) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out.setdefault(cell.removeprefix("speed: "), []).append((k, float(value)))
    return dict(sorted(out.items()))


def write_history_plots(records: Sequence[dict[str, Any]], out_dir: Path) -> list[Path]:
    """Draw `HISTORY_PLOTS` from the history records (oldest first) into `out_dir`; returns the files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    labels = [_label(r) for r in records]
    for name, (section, figure, ylabel, title) in HISTORY_PLOTS.items():
        series = _series(records, section, figure)
        path = out_dir / name
        if not series:
            save(empty_figure(title, f"no gate run in the history recorded {figure}"), path)
            written.append(path)
            continue
        fig, (ax,) = panel_grid(1, title, size=(9.0, 4.0))
        styles = dict(zip(series, series_styles(len(series))))
        for cell, points in series.items():
            xs, ys = zip(*points)
            ax.plot(xs, ys, lw=1.2, ms=5, **styles[cell])
        ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=8)
        ax.set_xlabel("commit of each gate run (+: uncommitted changes)")
        ax.set_ylabel(ylabel)
        if section == "speed":
            ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        rows = legend_below(fig, styles, series, ncol=2)
        save(fig, path, legend_rows=rows)
        written.append(path)
    return written
