"""Run ids: a stable id per run, a hash of everything that determines its result.

A run's id depends only on what determines its result (timings aside), never on the config's name, file
or the position of an entry in it, so reordering a config or resuming after a crash finds the same ids.
`run_id(run_params(...))` is the definition; `RunIds` computes the same ids for many runs at once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .cells import Cell, Unit, jsonable, resolved

if TYPE_CHECKING:
    from ..config import ExperimentConfig

__all__ = ["run_params", "run_id", "RunIds"]


def _config_params(config: ExperimentConfig) -> dict[str, Any]:
    params = {"dedupe": config.dedupe, "reference": config.reference_name,
              "reference_params": resolved("strategy", config.reference_name, config.reference_params),
              "curve": jsonable(config.curve)}
    if config.fill is not None:  # only when set, so the ids of runs without a fill stay what they were
        params["fill"] = config.fill
    return params


def _unit_params(unit: Unit) -> dict[str, Any]:
    return {"source": unit.source, "source_params": dict(unit.source_resolved), "seed": unit.seed}


def _cell_params(cell: Cell) -> dict[str, Any]:
    return {"strategy": cell.strategy, "strategy_params": dict(cell.strategy_resolved),
            "order": cell.order, "order_params": dict(cell.order_resolved),
            "budget": cell.budget, "near_dup": cell.near_dup}


def run_params(config: ExperimentConfig, unit: Unit, instance_key: str, cell: Cell) -> dict[str, Any]:
    """Everything that determines a run's result (timings aside), as a JSON-able dict."""
    return {**_unit_params(unit), "instance": instance_key, **_cell_params(cell), **_config_params(config)}


def run_id(params: Mapping[str, Any]) -> str:
    """A stable id: the first 16 hex digits of SHA-256 of the parameters as sorted-key JSON.

    Raises:
        TypeError: A parameter value is not JSON-serialisable.
    """
    blob = json.dumps(params, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def _fragments(params: Mapping[str, Any]) -> dict[str, str]:
    return {k: json.dumps(k) + ":" + json.dumps(v, sort_keys=True, separators=(",", ":"), allow_nan=False)
            for k, v in params.items()}


class RunIds:
    """`run_id(run_params(...))` for many runs at once, without rebuilding the parameters of each.

    The sorted-key JSON of a run's parameters is assembled from fragments
    serialised once per config, unit and cell, so an id costs one small
    string join and one SHA-256 (the result is identical to `run_id`).

    Args:
        config: The experiment.
    """

    def __init__(self, config: ExperimentConfig) -> None:
        self._config = _fragments(_config_params(config))
        self._cells: dict[int, tuple[Cell, list[str | tuple[str, ...]]]] = {}

    def _cell_segments(self, cell: Cell, unit_keys: tuple[str, ...]) -> list[str | tuple[str, ...]]:
        """The sorted-key JSON of a cell's runs as literal text and runs of unit keys (filled per unit)."""
        # Cells are shared by every unit of a source: split each once (kept, so its id stays its).
        if id(cell) not in self._cells:
            frags = {**self._config, **_fragments(_cell_params(cell))}
            keys = sorted([*frags, *unit_keys, "instance"])
            segments: list[str | tuple[str, ...]] = []
            for pos, key in enumerate(keys):
                sep = "" if pos == 0 else ","
                if key == "instance":
                    segments.append(sep + '"instance":')
                    segments.append(("instance",))
                elif key in frags:
                    segments.append(sep + frags[key])
                else:
                    segments.append(sep)
                    segments.append((key,))
            segments.append("}")
            merged: list[str | tuple[str, ...]] = ["{"]
            for seg in segments:
                if isinstance(seg, str) and isinstance(merged[-1], str):
                    merged[-1] += seg
                else:
                    merged.append(seg)
            self._cells[id(cell)] = (cell, merged)
        return self._cells[id(cell)][1]

    def templates(self, unit: Unit) -> list[tuple[str, str]]:
        """The JSON before and after the instance key of the runs of each cell of `unit`, in cell order."""
        unit_frags = _fragments(_unit_params(unit))
        unit_keys = tuple(unit_frags)
        out = []
        for cell in unit.cells:
            parts = [seg if isinstance(seg, str) else ("\0" if seg == ("instance",) else unit_frags[seg[0]])
                     for seg in self._cell_segments(cell, unit_keys)]
            before, after = "".join(parts).split("\0")
            out.append((before, after))
        return out

    @staticmethod
    def make(template: tuple[str, str], instance_key: str) -> str:
        """The run id of one instance under a `template`."""
        return RunIds.make_encoded(template, json.dumps(instance_key))

    @staticmethod
    def make_encoded(template: tuple[str, str], key_json: str) -> str:
        """`make` with the instance key already JSON-encoded (one encoding per instance, not per run)."""
        return hashlib.sha256((template[0] + key_json + template[1]).encode("utf-8")).hexdigest()[:16]
