"""The result row: run statuses and the one function that builds a row.

A row is flat and has the same columns whatever its status: the run's
identity (source, ``p_*`` source parameters, seed, instance, strategy,
``sp_*`` strategy parameters, order, ``op_*`` order parameters, budget,
near_dup, dedupe), its status and reason, the raw results of the packing
(`RESULT_COLUMNS`), one column per metric of `metrics.ALL_METRICS`, the code
fingerprint of the strategy, and the provenance. Columns a run did not
measure hold None.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .metrics import ALL_METRICS, Measured

if TYPE_CHECKING:
    from .config import ExperimentConfig
    from .planning.runs import Run

__all__ = ["Status", "MEASURED", "RESULT_COLUMNS", "TIMING_COLUMNS", "make_row"]


class Status(enum.StrEnum):
    """How a run ended (str-valued, so rows hold plain strings)."""

    OK = "ok"
    SKIPPED = "skipped"    # a declared refusal or an unavailable source; the reason says which
    TIMEOUT = "timeout"    # the strategy stopped at its limit; metrics are filled
    ERROR = "error"        # any other exception; the reason holds it


# Statuses whose rows carry metrics.
MEASURED = (Status.OK, Status.TIMEOUT)

# Columns that differ between otherwise identical runs (wall and CPU time, when they ran).
TIMING_COLUMNS = ("seconds_median", "seconds_p95", "cpu_seconds_median", "cpu_seconds_min", "cpu_reference_s",
                  "started_at", "cpu_dedupe_s", "cpu_select_s", "cpu_order_s", "cpu_fill_s", "cpu_pack_s")


def _results(m: Measured) -> dict[str, Any]:
    pinned_score = m.packing.score - m.score
    return {
        "n_candidates": m.candidates, "n_pinned": len(m.packing) - len(m.chosen),
        "n_after_dedupe": m.candidates - len(m.packing.dropped), "n_chosen": len(m.chosen),
        "score": m.score, "pinned_score": pinned_score, "tokens": m.packing.tokens,
        "optimal": m.packing.optimal,
        "upper_bound": None if m.packing.upper_bound is None else m.packing.upper_bound - pinned_score,
        "reference": m.optimum.value, "reference_source": m.optimum.source,
        "chosen_ids": [it.id for it in m.chosen],
    }


RESULT_COLUMNS = ("n_candidates", "n_pinned", "n_after_dedupe", "n_chosen", "score", "pinned_score", "tokens",
                  "optimal", "upper_bound", "reference", "reference_source", "chosen_ids")


def make_row(config: ExperimentConfig, run: Run, status: Status, reason: str | None, *,
             budget: int | None = None, measured: Measured | None = None, code: str | None = None,
             provenance: Mapping[str, Any] = ()) -> dict[str, Any]:
    """The result row of one run.

    Args:
        config: The experiment.
        run: The planned run.
        status: How it ended.
        reason: Why it was skipped, stopped or failed (None when ok).
        budget: The token budget, when it could be resolved.
        measured: The packing and what the metrics need (None unless measured).
        code: The fingerprint of the strategy's code.
        provenance: Fields added to every row.

    Returns:
        A flat, JSON-serialisable dict with the same keys for every status.
    """
    unit, cell = run.unit, run.cell
    row: dict[str, Any] = {"experiment": config.name, "run_id": run.run_id, "source": unit.source,
                           "source_kind": unit.source_kind}
    row.update({f"p_{k}": v for k, v in unit.source_resolved.items()})
    row.update({"seed": unit.seed, "instance": run.instance, "strategy": cell.strategy,
                "strategy_label": cell.strategy_label})
    row.update({f"sp_{k}": v for k, v in cell.strategy_resolved.items()})
    row.update({"order": cell.order, "order_label": cell.order_label})
    row.update({f"op_{k}": v for k, v in cell.order_resolved.items()})
    row.update({"budget_spec": cell.budget, "budget": budget, "near_dup": cell.near_dup,
                "dedupe": config.dedupe, "status": str(status), "reason": reason})
    if measured is None:
        row.update(dict.fromkeys(RESULT_COLUMNS))
        row.update(dict.fromkeys(ALL_METRICS))
    else:
        row.update(_results(measured))
        row.update({name: metric.function(measured) for name, metric in ALL_METRICS.items()})
    row["code"] = code
    row.update(provenance)
    return row
