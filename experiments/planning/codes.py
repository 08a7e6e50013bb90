"""The code a planned cell runs, as a fingerprint: what a row's ``code`` records and resume compares.

A stored row stands while every component its run executes (strategy, order, source, metrics, dedupe,
fill, reference) still has the fingerprint it had (`provenance.run_code`); resume redoes it otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..config.layers import registry, source_registry
from ..metrics import Measured
from ..provenance import run_code

if TYPE_CHECKING:
    from ..config import ExperimentConfig
    from .cells import Cell

__all__ = ["cell_code"]


def cell_code(cell: Cell, source: str, config: ExperimentConfig) -> str:
    """The fingerprint of the code a cell's runs on `source` execute (`provenance.run_code`), as rows record it."""
    from packbench.algorithms.dedupe import DEDUPE_METHODS
    from packbench.algorithms.fill import Fill

    return run_code({"strategy": registry("strategy").lookup(cell.strategy),
                     "order": registry("order").lookup(cell.order), "source": source_registry().lookup(source),
                     "metrics": Measured, "dedupe": DEDUPE_METHODS.lookup(config.dedupe), "fill": Fill,
                     "reference": registry("strategy").lookup(config.reference_name)})
