"""A results directory reduced to cells: (source, budget, strategy) -> the figures the gate compares."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packbench.experiments.storage import RUNS_FILE, RunStore

__all__ = ["CellKey", "CellStats", "cell_stats", "load_rows", "cell_name"]

CellKey = tuple[str, str, str]


@dataclass(frozen=True)
class CellStats:
    """The figures of one (source, budget, strategy) cell over all its runs.

    Attributes:
        runs: Rows in the cell (every status).
        measured: Rows with metrics (ok or timeout).
        ratio_mean: Mean score ratio over measured runs (None when none).
        ratio_worst: Smallest score ratio.
        answer_recall: Mean answer recall over runs that have one (None: no answers in this source).
        leakage: Mean duplicate leakage, share of chosen tokens (None when not measured).
        budget_violations: Measured runs whose tokens exceed their budget.
        errors: Runs with status error.
        timeouts: Runs with status timeout.
    """

    runs: int
    measured: int
    ratio_mean: float | None
    ratio_worst: float | None
    answer_recall: float | None
    leakage: float | None
    budget_violations: int
    errors: int
    timeouts: int


def cell_name(key: CellKey) -> str:
    """``source / budget / strategy``, as the gate's messages name a cell."""
    return " / ".join(key)


def _key(row: Mapping[str, Any]) -> CellKey:
    budget = row.get("budget_spec", row.get("budget"))
    strategy = row.get("strategy_label") or row.get("strategy")
    return str(row.get("source")), str(budget), str(strategy)


def _mean(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def cell_stats(rows: Iterable[Mapping[str, Any]]) -> dict[CellKey, CellStats]:
    """Group rows by cell and compute each cell's figures (skipped runs count only in `runs`)."""
    groups: dict[CellKey, list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault(_key(row), []).append(row)
    out = {}
    for key, group in groups.items():
        measured = [r for r in group if r.get("status") in ("ok", "timeout")]
        ratios = [float(r["score_ratio"]) for r in measured if r.get("score_ratio") is not None]
        recall = [float(r["answer_recall"]) for r in measured if r.get("answer_recall") is not None]
        leak = [float(r["leak_tokens"]) for r in measured if r.get("leak_tokens") is not None]
        over = sum(1 for r in measured if r.get("tokens") is not None and r.get("budget") is not None
                   and r["tokens"] > r["budget"])
        out[key] = CellStats(len(group), len(measured), _mean(ratios), min(ratios) if ratios else None,
                             _mean(recall), _mean(leak), over,
                             sum(1 for r in group if r.get("status") == "error"),
                             sum(1 for r in group if r.get("status") == "timeout"))
    return dict(sorted(out.items()))


def load_rows(directory: Path) -> list[dict[str, Any]]:
    """The rows of a results directory, read without repairing it.

    Raises:
        FileNotFoundError: The directory has no runs file.
    """
    if not (Path(directory) / RUNS_FILE).is_file():
        raise FileNotFoundError(f"no {RUNS_FILE} in {directory}: not a results directory of 'packbench run'")
    return RunStore(directory).load(repair=False)
