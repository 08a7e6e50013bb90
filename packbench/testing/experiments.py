"""Contract checks of the experiment layers: sources (families and corpora) and metrics."""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from packbench.algorithms import Item, pack

from .core import Check, expected_failures
from .library import check_declaration

__all__ = ["source_checks", "metric_checks", "resolve_metric"]

# Params may be a mapping or a function of a fresh temporary folder (for a source that reads a file).
SourceParams = Mapping[str, Any] | Callable[[Path], Mapping[str, Any]] | None


def _registry() -> Any:
    from packbench.experiments.config import source_registry
    return source_registry()


def _with_params(spec: Any, params: SourceParams, body: Callable[[type, dict[str, Any]], None]) -> None:
    cls = _registry().lookup(spec)
    if callable(params):
        with tempfile.TemporaryDirectory(prefix="packbench-check-") as tmp:
            body(cls, dict(params(Path(tmp))))
    else:
        body(cls, dict(params or {}))


def _source_deterministic(cls: type, params: dict[str, Any]) -> None:
    for seed in (0, 1):
        first, again = list(cls(**params).instances(seed)), list(cls(**params).instances(seed))
        assert first, f"{cls.display_name()}: no instance for seed {seed}"
        assert [(i.key, i.items, i.groups, i.answers) for i in first] == \
            [(i.key, i.items, i.groups, i.answers) for i in again], \
            f"{cls.display_name()}: seed {seed} gives different instances on two builds"


def _source_well_formed(cls: type, params: dict[str, Any]) -> None:
    from packbench.experiments.instances import Instance

    name = cls.display_name()
    for seed in (0, 1):
        instances = list(cls(**params).instances(seed))
        keys = [inst.key for inst in instances]
        assert len(set(keys)) == len(keys), f"{name}: repeated instance keys {keys}"
        listed = cls(**params).instance_keys(seed)
        assert listed is None or list(listed) == keys, f"{name}: instance_keys({seed}) differs from the keys yielded"
        for inst in instances:
            assert isinstance(inst, Instance) and all(isinstance(it, Item) for it in inst.items), \
                f"{name} {inst.key}: not an Instance of Items"
            ids = [it.id for it in inst.items]
            assert len(set(ids)) == len(ids), f"{name} {inst.key}: repeated item ids"
            candidates = {it.id for it in inst.items if not it.pinned}
            assert candidates, f"{name} {inst.key}: no candidates"
            assert inst.groups is None or set(inst.groups) <= candidates, f"{name} {inst.key}: groups name non-candidates"
            assert inst.answers is None or set(inst.answers) <= candidates, f"{name} {inst.key}: answers name non-candidates"
            json.dumps(dict(inst.meta))  # meta goes into rows: JSON or an error here
            pinned = sum(it.tokens for it in inst.items if it.pinned)
            budget = max(int(inst.meta.get("budget", pinned + 50)), pinned)
            assert pack(inst.items, budget).tokens <= budget, f"{name} {inst.key}: the natural budget does not pack"


def source_checks(spec: Any, params: SourceParams = None) -> list[Check]:
    """The checks of a family or corpus, built with `params` (a mapping, or a function of a temporary folder)."""
    def check_source_declaration(component: Any) -> None:
        check_declaration(_registry(), component)

    def check_source_deterministic(component: Any) -> None:
        _with_params(component, params, _source_deterministic)

    def check_source_well_formed(component: Any) -> None:
        _with_params(component, params, _source_well_formed)

    functions = (check_source_declaration, check_source_deterministic, check_source_well_formed)
    expected = expected_failures(_registry().lookup(spec), [f.__name__ for f in functions])
    return [Check("source", spec, f.__name__, f, expected.get(f.__name__)) for f in functions]


def resolve_metric(spec: Any) -> Any:
    """A `Metric` from itself, its name in `ALL_METRICS`, or an import path ``"module:attr"`` naming one.

    Raises:
        ValueError: An unknown name, or an import path naming something that is not a `Metric`.
    """
    from packbench.algorithms.plugins import import_object, is_import_path
    from packbench.experiments.metrics import ALL_METRICS, Metric

    if isinstance(spec, Metric):
        return spec
    if isinstance(spec, str) and spec in ALL_METRICS:
        return ALL_METRICS[spec]
    if isinstance(spec, str) and is_import_path(spec):
        found = import_object(spec, f"metric {spec!r}")
        if isinstance(found, Metric):
            return found
        raise ValueError(f"metric {spec!r}: names a {type(found).__name__}, not a Metric")
    raise ValueError(f"unknown metric {spec!r}; valid: {', '.join(ALL_METRICS)}; or an import path 'module:attr'")


def _measured_runs() -> Iterator[Any]:
    """Measured runs of small retrieval and trap instances under three strategies and two budgets."""
    from packbench.experiments.families import FAMILIES
    from packbench.experiments.metrics import Measured, Optimum

    for family, params in (("retrieval", {"n": 20}), ("traps", {})):
        for inst in list(FAMILIES.lookup(family)(**params).instances(0))[:3]:
            pinned = sum(it.tokens for it in inst.items if it.pinned)
            for budget in (pinned + 10, pinned + 60):
                best = pack(inst.items, budget, 0.8, strategy="exact_dp")
                ref = Optimum(best.score, True, "exact_dp")
                for strategy in ("greedy", "prefix", "exact_dp"):
                    packing = pack(inst.items, budget, 0.8, strategy=strategy)
                    yield Measured(packing, sum(1 for it in inst.items if not it.pinned), budget, ref,
                                   (0.001, 0.002, 0.0015), inst.groups, inst.answers, "gpt-3.5-turbo-20")


def check_metric_declared(metric: Any) -> None:
    """A column name that is an identifier and no fixed result column; unique summary columns; a unit and description."""
    from packbench.experiments.schema import RESULT_COLUMNS

    m = resolve_metric(metric)
    assert m.name.isidentifier() and m.name not in RESULT_COLUMNS, f"metric {m.name!r}: not a free column name"
    columns = [agg.column for agg in m.aggregation]
    assert len(set(columns)) == len(columns) and all(c.isidentifier() for c in columns), \
        f"metric {m.name!r}: summary columns {columns} repeat or are not identifiers"
    assert m.description and m.unit, f"metric {m.name!r}: no description or unit"
    if m.range is not None:
        low, high = m.range
        assert low is None or high is None or low <= high, f"metric {m.name!r}: range {m.range} is empty"


def check_metric_values(metric: Any) -> None:
    """On measured runs: None, or a finite number (a bool counts) within the declared range; a scalar for a category."""
    m = resolve_metric(metric)
    for run in _measured_runs():
        value = m.function(run)
        if value is None:
            continue
        if m.range is None:
            assert isinstance(value, (str, bool, int, float)), f"metric {m.name!r}: category {value!r} is not a scalar"
            continue
        assert isinstance(value, (int, float)) and math.isfinite(value), \
            f"metric {m.name!r}: {value!r} is not a finite number"
        low, high = m.range
        assert (low is None or value >= low - 1e-9) and (high is None or value <= high + 1e-9), \
            f"metric {m.name!r}: {value} outside its declared range {m.range}"
        assert m.function(run) == value, f"metric {m.name!r}: two calls on the same run differ"


def metric_checks(spec: Any) -> list[Check]:
    """The checks of a metric: a `Metric`, its name in `ALL_METRICS`, or an import path naming one."""
    m = resolve_metric(spec)
    functions = (check_metric_declared, check_metric_values)
    expected = expected_failures(m, [f.__name__ for f in functions])
    return [Check("metric", spec, f.__name__, f, expected.get(f.__name__)) for f in functions]
