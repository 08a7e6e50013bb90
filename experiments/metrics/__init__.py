"""Per-run metrics and the declared metric table that the runner and the report read.

All metrics look at the chosen candidates only (pinned items excluded), in the
order the packing returns them. `ALL_METRICS` (in the spirit of
ann-benchmarks' ``all_metrics``) declares each metric once: its row column,
the function that computes it from a `Measured` run, how the report
aggregates it into summary columns, a description, its unit and range.
Adding a metric is one `Metric` entry there (`table.py`); the runner fills the column
and the report summarises it. `measures` holds the metric functions, `table` the declared table and the
`Measured` run they read.
"""

from __future__ import annotations

import warnings
from typing import Any

from .measures import (LEAK_DETECTOR, LEAK_GROUND_TRUTH, Optimum, answer_recall, budget_utilisation, certified_bound,
                       containment_leaks, duplicate_leakage, position_weights, positional_utility, score_ratio)
from .table import ALL_METRICS, Aggregate, Better, Measured, Metric

__all__ = ["Metric", "Better", "Aggregate", "Measured", "ALL_METRICS", "Optimum", "score_ratio", "duplicate_leakage",
           "containment_leaks", "position_weights", "positional_utility", "answer_recall", "budget_utilisation",
           "certified_bound", "LEAK_GROUND_TRUTH", "LEAK_DETECTOR"]


def __getattr__(name: str) -> Any:
    if name == "Reference":  # renamed: it is the optimum (or a bound on it), whatever strategy gave it
        warnings.warn("packbench.experiments.metrics.Reference is deprecated; use Optimum (its `exact` is "
                      "now `proven`)", DeprecationWarning, stacklevel=2)
        return Optimum
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
