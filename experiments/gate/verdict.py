"""Cell-by-cell verdicts of `packbench gate`: each figure against the baseline, within its tolerance.

A figure that moves in the bad direction by more than its tolerance is a
regression (the cell fails, the message names the cell, the figure, both
values and the tolerance); a move in the good direction is an improvement
(reported, passes). A cell missing from the new results fails (the config no
longer covers it); a new cell is reported (`baseline.check_coverage` refuses
it first unless ``--allow-new``). A figure of this run that is not a number
is a regression. Each figure's direction is its metric's
(`metrics.Metric.better`); run counts (errors, timeouts) are fewer-is-better.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from packbench.experiments.metrics import ALL_METRICS, Better

from .cells import CellKey, CellStats, cell_name
from .status import FAILING, Quality
from .tolerances import Tolerances

__all__ = ["CellVerdict", "compare_cells", "FIGURES", "FIGURE_METRIC"]

# Cell figure -> the declared metric it summarises.
FIGURE_METRIC = MappingProxyType({"ratio_mean": "score_ratio", "ratio_worst": "score_ratio",
                                  "answer_recall": "answer_recall", "leakage": "leak_tokens",
                                  "budget_violations": "budget_violation"})
# Cell figure -> its direction: the metric's, and fewer runs that failed or stopped.
FIGURES: Mapping[str, Better] = MappingProxyType({
    **{figure: ALL_METRICS[metric].better for figure, metric in FIGURE_METRIC.items()},
    "errors": Better.LOWER, "timeouts": Better.LOWER})


@dataclass(frozen=True)
class CellVerdict:
    """One cell's verdict.

    Attributes:
        key: (source, budget, strategy).
        status: `Quality.OK`, ``WORSE``, ``IMPROVED``, ``NEW`` or ``MISSING``.
        base: The baseline's figures (None for a new cell).
        new: This run's figures (None for a missing cell).
        regressions: Messages naming each figure that regressed.
        improvements: Messages naming each figure that improved.
    """

    key: CellKey
    status: Quality
    base: CellStats | None
    new: CellStats | None
    regressions: tuple[str, ...] = field(default_factory=tuple)
    improvements: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> bool:
        """True when the cell regressed or disappeared."""
        return self.status in FAILING


def _fmt(value: float | int | None) -> str:
    return "-" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def compare_cells(base: dict[CellKey, CellStats], new: dict[CellKey, CellStats],
                  tol: Tolerances) -> list[CellVerdict]:
    """Compare every cell of `new` with `base` (then the cells of `base` that `new` lacks)."""
    out = []
    for key, stats in new.items():
        old = base.get(key)
        if old is None:
            out.append(CellVerdict(key, Quality.NEW, None, stats))
            continue
        bad, good = [], []
        for figure, better in FIGURES.items():
            a, b = getattr(old, figure), getattr(stats, figure)
            sign = 1 if better is Better.HIGHER else -1
            if a is None and b is None:
                continue
            if a is None or b is None:
                # A figure that disappears (e.g. no measured run left) is a regression; one that appears is not.
                (bad if b is None else good).append(f"{figure}: {_fmt(a)} -> {_fmt(b)}")
                continue
            if isinstance(b, float) and math.isnan(b):
                bad.append(f"{figure}: {_fmt(a)} -> nan (not a number)")
                continue
            delta = (b - a) * sign
            allowed = getattr(tol, figure)
            if delta < -allowed - 1e-12:
                bad.append(f"{figure}: {_fmt(a)} -> {_fmt(b)} (tolerance {allowed:g})")
            elif delta > 1e-12:
                good.append(f"{figure}: {_fmt(a)} -> {_fmt(b)}")
        status = Quality.WORSE if bad else Quality.IMPROVED if good else Quality.OK
        out.append(CellVerdict(key, status, old, stats, tuple(bad), tuple(good)))
    for key, old in base.items():
        if key not in new:
            out.append(CellVerdict(key, Quality.MISSING, old, None,
                                   (f"{cell_name(key)} is in the baseline but not in the results",)))
    return out
