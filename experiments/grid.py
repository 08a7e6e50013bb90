"""Expand a config into runs, each with a stable id (a hash of its sorted parameters).

A *unit* is one source (family or corpus) with one parameter combination and
one seed: the instances it yields are built once per unit. A *cell* is one
strategy/order/budget/near_dup combination. A run is (unit, instance, cell);
its id depends only on what determines its result, never on the config's name,
file or the position of an entry in it, so reordering a config or resuming
after a crash finds the same ids.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .config import ExperimentConfig, registry

__all__ = ["Cell", "Unit", "expand", "resolved", "run_params", "run_id", "label", "RunIds"]


@dataclass(frozen=True)
class Cell:
    """What a run does with an instance.

    Attributes:
        strategy: Strategy name.
        strategy_params: Its parameters (one grid point).
        order: Order name.
        order_params: Its parameters (one grid point).
        budget: Tokens (int), share of the instance's tokens (float) or "natural".
        near_dup: Dedupe threshold, or None for no dedupe.
        strategy_resolved: `strategy_params` with the defaults filled in (see `resolved`).
        order_resolved: `order_params` with the defaults filled in.
    """

    strategy: str
    strategy_params: Mapping[str, Any]
    order: str
    order_params: Mapping[str, Any]
    budget: int | float | str
    near_dup: float | None
    strategy_resolved: Mapping[str, Any]
    order_resolved: Mapping[str, Any]

    @property
    def strategy_label(self) -> str:
        return label(self.strategy, self.strategy_params)

    @property
    def order_label(self) -> str:
        return label(self.order, self.order_params)


@dataclass(frozen=True)
class Unit:
    """One source parameter combination and seed, with every cell to run on its instances.

    ``source_resolved`` holds `source_params` with the defaults filled in;
    ``source_kind`` is "family" or "corpus".
    """

    source: str
    source_params: Mapping[str, Any]
    seed: int
    cells: tuple[Cell, ...]
    source_resolved: Mapping[str, Any]
    source_kind: str = "family"


def expand(config: ExperimentConfig) -> list[Unit]:
    """The units of `config`, in config order (sources x their grid x seeds).

    A unit's cells are strategies x their grid x orders x their grid x
    budgets x near_dup, with the source's own budgets, near_dup and orders
    when it overrides the experiment's, and without its `skip_strategies`.
    """
    units = []
    for source in config.sources:
        orders = source.orders or config.orders
        cells = tuple(
            Cell(strategy.name, sp, order.name, op, budget, None if near_dup == "off" else near_dup,
                 resolved("strategy", strategy.name, sp), resolved("order", order.name, op))
            for strategy in config.strategies if strategy.name not in source.skip_strategies
            for sp in strategy.grid()
            for order in orders for op in order.grid()
            for budget in source.budgets or config.budgets for near_dup in source.near_dup or config.near_dup)
        # Building a source can be slow (a corpus checks its tokenizer), so resolve once per combination.
        source_kind = registry("source").lookup(source.name).kind
        for params in source.grid():
            full = resolved("source", source.name, params)
            units += [Unit(source.name, params, seed, cells, full, source_kind) for seed in config.seeds]
    return units


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)  # e.g. a callable default: named, so a change still changes the id


def resolved(layer: str, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of a source, strategy or order with its defaults filled in, JSON-able.

    Run ids and rows use these, so changing a default in the code changes the
    ids of the runs it affects instead of silently reusing old rows.
    """
    return {k: _jsonable(v) for k, v in sorted(registry(layer).lookup(name)(**params).params.items())}


def _config_params(config: ExperimentConfig) -> dict[str, Any]:
    params = {"dedupe": config.dedupe, "reference": config.reference_name,
              "reference_params": resolved("strategy", config.reference_name, config.reference_params),
              "curve": _jsonable(config.curve)}
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


def label(name: str, params: Mapping[str, Any]) -> str:
    """A readable name for a parameterised entry, e.g. ``cpsat(time_limit=0.5)``."""
    if not params:
        return name
    inner = ",".join(f"{k}={json.dumps(v) if isinstance(v, (list, tuple)) else v}" for k, v in sorted(params.items()))
    return f"{name}({inner})"
