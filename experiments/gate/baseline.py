"""The gate's baseline: committed results that must be there, readable and finite before anything is compared.

A gate that compares against nothing passes everything, so each of these is a
refusal (`BaselineError`, exit 2 naming the file and the reason): a missing
or empty runs file, lines that cannot be read (a truncated or overwritten
file), no measured row at all (every run an error or skipped), a figure that
is not a number, and a cell of this run that the baseline has no measured row
for (unless ``--allow-new`` accepts new cells: they are then reported as new).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from packbench.experiments.storage import RUNS_FILE, RunStore

from .cells import CellKey, CellStats, cell_name, cell_stats

__all__ = ["BaselineError", "load_baseline_cells", "check_coverage"]


class BaselineError(ValueError):
    """The baseline cannot be compared with (the gate exits 2 with this message)."""


def _nan_figures(stats: CellStats) -> list[str]:
    return [f.name for f in fields(stats)
            if isinstance(getattr(stats, f.name), float) and not math.isfinite(getattr(stats, f.name))]


def load_baseline_cells(directory: Path) -> dict[CellKey, CellStats]:
    """The cells of a committed results directory, refused when they cannot be trusted.

    Raises:
        FileNotFoundError: No runs file in `directory`.
        BaselineError: Empty, unreadable lines, no measured row, or a figure that is not finite.
    """
    path = Path(directory) / RUNS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no {RUNS_FILE} in {directory}: not a results directory of 'packbench run'")
    store = RunStore(directory)
    rows = store.load(repair=False)
    if store.dropped_lines:
        raise BaselineError(f"baseline {path}: {store.dropped_lines} line(s) cannot be read as result rows "
                            f"({len(rows)} can): the file is damaged; restore it from git or record it again")
    if not rows:
        raise BaselineError(f"baseline {path} holds no rows: record it with 'packbench run CONFIG --out {directory}'")
    cells = cell_stats(rows)
    if not any(s.measured for s in cells.values()):
        statuses = sorted({str(r.get("status")) for r in rows})
        raise BaselineError(f"baseline {path}: none of its {len(rows)} rows was measured (statuses: "
                            f"{', '.join(statuses)}): nothing to compare with")
    for key, stats in cells.items():
        if bad := _nan_figures(stats):
            raise BaselineError(f"baseline {path}: cell {cell_name(key)} has {', '.join(bad)} that is not a "
                                f"finite number")
    return cells


def check_coverage(base: Mapping[CellKey, CellStats], new: Mapping[CellKey, CellStats], allow_new: bool,
                   origin: Any) -> None:
    """Refuse cells of this run that the baseline has no measured row for.

    Raises:
        BaselineError: Naming those cells, unless `allow_new` (then they are reported as new).
    """
    if allow_new:
        return
    uncovered = [k for k, s in new.items() if s.measured and (k not in base or not base[k].measured)]
    if uncovered:
        names = "; ".join(cell_name(k) + ("" if k not in base else " (its baseline rows are not measured)")
                          for k in uncovered)
        raise BaselineError(f"baseline {origin} has no measured row for {len(uncovered)} cell(s) of this run: "
                            f"{names}; pass --allow-new to accept new cells")
