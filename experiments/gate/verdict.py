"""Cell-by-cell verdicts of `packbench gate`: each figure against the baseline, within its tolerance.

A figure that moves in the bad direction by more than its tolerance is a
regression (the cell fails, the message names the cell, the figure, both
values and the tolerance); a move in the good direction is an improvement
(reported, passes). A cell missing from the new results fails (the config no
longer covers it); a new cell is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cells import CellKey, CellStats, cell_name
from .tolerances import Tolerances

__all__ = ["CellVerdict", "compare_cells", "FIGURES", "OK", "REGRESSED", "IMPROVED", "NEW", "MISSING"]

OK = "ok"
REGRESSED = "regressed"
IMPROVED = "improved"
NEW = "new"
MISSING = "missing"

# figure -> +1 when higher is better, -1 when lower is better.
FIGURES = {"ratio_mean": +1, "ratio_worst": +1, "answer_recall": +1, "leakage": -1,
           "budget_violations": -1, "errors": -1, "timeouts": -1}


@dataclass(frozen=True)
class CellVerdict:
    """One cell's verdict.

    Attributes:
        key: (source, budget, strategy).
        status: OK, REGRESSED, IMPROVED, NEW or MISSING.
        base: The baseline's figures (None for a new cell).
        new: This run's figures (None for a missing cell).
        regressions: Messages naming each figure that regressed.
        improvements: Messages naming each figure that improved.
    """

    key: CellKey
    status: str
    base: CellStats | None
    new: CellStats | None
    regressions: tuple[str, ...] = field(default_factory=tuple)
    improvements: tuple[str, ...] = field(default_factory=tuple)

    @property
    def failed(self) -> bool:
        """True when the cell regressed or disappeared."""
        return self.status in (REGRESSED, MISSING)


def _fmt(value: float | int | None) -> str:
    return "-" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)


def compare_cells(base: dict[CellKey, CellStats], new: dict[CellKey, CellStats],
                  tol: Tolerances) -> list[CellVerdict]:
    """Compare every cell of `new` with `base` (then the cells of `base` that `new` lacks)."""
    out = []
    for key, stats in new.items():
        old = base.get(key)
        if old is None:
            out.append(CellVerdict(key, NEW, None, stats))
            continue
        bad, good = [], []
        for figure, sign in FIGURES.items():
            a, b = getattr(old, figure), getattr(stats, figure)
            if a is None and b is None:
                continue
            if a is None or b is None:
                # A figure that disappears (e.g. no measured run left) is a regression; one that appears is not.
                (bad if b is None else good).append(f"{figure}: {_fmt(a)} -> {_fmt(b)}")
                continue
            delta = (b - a) * sign
            allowed = getattr(tol, figure)
            if delta < -allowed - 1e-12:
                bad.append(f"{figure}: {_fmt(a)} -> {_fmt(b)} (tolerance {allowed:g})")
            elif delta > 1e-12:
                good.append(f"{figure}: {_fmt(a)} -> {_fmt(b)}")
        status = REGRESSED if bad else IMPROVED if good else OK
        out.append(CellVerdict(key, status, old, stats, tuple(bad), tuple(good)))
    for key, old in base.items():
        if key not in new:
            out.append(CellVerdict(key, MISSING, old, None,
                                   (f"{cell_name(key)} is in the baseline but not in the results",)))
    return out
