"""What every figure shares: one colour and marker per strategy, a panel grid, saving, empty figures.

The strategy style is built once per report from every strategy label, so a
strategy looks the same in every figure. Colours are tab10's ten hues, then
dark hues of tab20b; paired with thirteen markers, labels up to 20 get
distinct colours and distinct markers up to 13, so neighbours never look alike.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["strategy_style", "series_styles", "panel_grid", "save", "empty_figure", "legend_below", "dodge", "log_axis"]

_MARKERS = "os^vDP*Xhp<>d"


def _colours() -> list[Any]:
    import matplotlib

    tab10 = matplotlib.colormaps["tab10"]
    tab20b = matplotlib.colormaps["tab20b"]
    return [tab10(k) for k in range(10)] + [tab20b(k) for k in range(0, 20, 2)]


def strategy_style(labels: Iterable[str]) -> dict[str, dict[str, Any]]:
    """A distinct colour and marker per label (sorted, so the same labels always get the same style)."""
    colours = _colours()
    return {lab: {"color": colours[k % len(colours)], "marker": _MARKERS[k % len(_MARKERS)]}
            for k, lab in enumerate(sorted(set(labels)))}


def series_styles(n: int) -> list[dict[str, Any]]:
    """`n` distinct line styles: a colour each up to 20; series past the tenth are also dashed, since
    some tab20b hues resemble tab10's."""
    colours = _colours()
    dashes = ("-", "--", ":")
    return [{"color": colours[k % len(colours)], "marker": _MARKERS[k % len(_MARKERS)],
             "linestyle": dashes[(k // 10) % len(dashes)]} for k in range(n)]


def dodge(k: int, n: int, width: float = 0.5) -> float:
    """Horizontal offset of series `k` of `n` around a categorical tick, so equal values do not hide each other."""
    return 0.0 if n <= 1 else (k / (n - 1) - 0.5) * width


def panel_grid(n_panels: int, title: str, cols: int = 3, size: tuple[float, float] = (4.6, 3.4)):
    """A figure with `n_panels` axes in rows of `cols` (unused axes hidden); returns (figure, axes)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = max(1, min(cols, n_panels))
    rows = max(1, math.ceil(n_panels / cols))
    # At least 9 inches wide, so a one-panel figure still fits its title and the legend below.
    fig, axes = plt.subplots(rows, cols, figsize=(max(9.0, size[0] * cols), size[1] * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n_panels:]:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=12)
    return fig, flat[:n_panels]


def legend_below(fig, style: dict[str, dict[str, Any]], labels: Iterable[str], ncol: int = 6) -> int:
    """One legend of strategies under the panels, drawn from the style (full opacity); returns its rows."""
    from matplotlib.lines import Line2D

    names = [lab for lab in sorted(set(labels)) if lab in style]
    if not names:
        return 0
    handles = [Line2D([], [], lw=1, ms=6, **style[lab]) for lab in names]
    ncol = min(ncol, len(names))
    fig.legend(handles, names, loc="lower center", ncol=ncol, fontsize=8, frameon=False, bbox_to_anchor=(0.5, 0.0))
    return math.ceil(len(names) / ncol)


def log_axis(ax, values: Sequence[float], axis: str = "x") -> None:
    """A log axis spanning at least a decade around `values`, labelled at decades with plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    vals = [v for v in values if v > 0]
    low, high = (min(vals), max(vals)) if vals else (1.0, 10.0)
    centre = math.sqrt(low * high)
    span = max(high / low, 10.0) ** 0.5 * 1.25
    getattr(ax, f"set_{axis}scale")("log")
    getattr(ax, f"set_{axis}lim")(centre / span, centre * span)
    target = ax.xaxis if axis == "x" else ax.yaxis
    # Under two decades, 2 and 5 are labelled too, so every panel has at least two readable ticks.
    subs = (1.0,) if span * span > 100 else (1.0, 2.0, 5.0)
    target.set_major_locator(LogLocator(base=10, subs=subs))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(NullFormatter())


def empty_figure(title: str, message: str):
    """A small figure that says why there is nothing to plot (instead of an empty or misleading chart)."""
    fig, (ax,) = panel_grid(1, title, size=(6.0, 2.2))
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, fontsize=10)
    return fig


def save(fig, path: Path, legend_rows: int = 0) -> None:
    """Write the figure as PNG (deterministic metadata), leaving room for a legend below the panels."""
    import matplotlib.pyplot as plt

    from ...storage import write_atomic

    # Fixed margins in inches (tight_layout measured every text box and took seconds per figure).
    width, height = fig.get_size_inches()
    rows = len({round(ax.get_position().y0, 3) for ax in fig.axes if ax.get_visible()}) or 1
    legend = (0.15 + 0.22 * legend_rows) if legend_rows else 0.0
    fig.subplots_adjust(left=0.75 / width, right=1 - 0.2 / width, top=1 - 0.8 / height,
                        bottom=(legend + 0.6) / height, wspace=0.32, hspace=0.6 if rows > 1 else 0.2)

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
    plt.close(fig)
    write_atomic(path, buf.getvalue())
