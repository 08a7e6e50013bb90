"""The pytest helper: one test per (component, check) over the registered, installed and given components."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .core import Check
from .experiments import SourceParams, metric_checks, source_checks
from .library import checks_of

__all__ = ["component_checks", "parametrize_with_checks"]


def _registered(layer: str) -> list[str]:
    """Built-in and entry-point names of a layer."""
    if layer == "source":
        from packbench.experiments.config import source_registry
        return list(source_registry().available())
    if layer == "metric":
        from packbench.experiments.metrics import ALL_METRICS
        return list(ALL_METRICS)
    from packbench.algorithms.registry import LAYERS
    (found,) = [lay for lay in LAYERS if lay.name == layer]
    return list(found.registry.available())


def _unavailable(layer: str, spec: Any) -> str | None:
    """Why a component cannot run here (a peer adapter whose extra is missing), else None."""
    if layer in ("metric",):
        return None
    if layer == "source":
        from packbench.experiments.config import source_registry
        cls = source_registry().lookup(spec)
    else:
        from packbench.algorithms.registry import LAYERS
        (found,) = [lay for lay in LAYERS if lay.name == layer]
        cls = found.registry.lookup(spec)
    return cls.unavailable() if hasattr(cls, "unavailable") else None


def component_checks(*, strategies: Iterable[Any] = (), orders: Iterable[Any] = (), fills: Iterable[Any] = (),
                     dedupe: Iterable[Any] = (), sources: Iterable[Any] = (), metrics: Iterable[Any] = (),
                     builtins: bool | Sequence[str] = True, exclude: Iterable[str] = (),
                     source_params: Mapping[str, SourceParams] | None = None) -> list[Check]:
    """Every check of the components asked for, in layer order.

    Args:
        strategies, orders, fills, dedupe, sources, metrics: Components of each layer to check besides the
            registered ones (import paths, classes, functions).
        builtins: True: also every registered and entry-point component of every layer; a sequence of
            layer names (``"strategy"``, ``"order"``, ``"fill"``, ``"dedupe method"``, ``"source"``,
            ``"metric"``): of those layers only; False: only the components given.
        exclude: Registered names to leave out (e.g. peer adapters, whose contract is their peer's).
        source_params: Parameters per source name (a mapping, or a function of a temporary folder).
    """
    given = {"strategy": strategies, "order": orders, "fill": fills, "dedupe method": dedupe, "source": sources,
             "metric": metrics}
    layers = list(given) if builtins is True else list(builtins or ())
    unknown = sorted(set(layers) - set(given))
    if unknown:
        raise ValueError(f"builtins: unknown layer(s) {unknown}; valid: {', '.join(given)}")
    skip, params = set(exclude), dict(source_params or {})
    out: list[Check] = []
    for layer, extra in given.items():
        specs = [n for n in _registered(layer) if n not in skip] if layer in layers else []
        for spec in [*specs, *extra]:
            if layer == "source":
                out += source_checks(spec, params.get(spec) if isinstance(spec, str) else None)
            elif layer == "metric":
                out += metric_checks(spec)
            else:
                out += checks_of(layer, spec)
    return out


def parametrize_with_checks(**kwargs: Any) -> Any:
    """A ``pytest.mark.parametrize("check", ...)`` over `component_checks(**kwargs)`.

    Each parameter is a `Check`: call it. A component that cannot run here (its extra is missing) is
    skipped with the reason; a declared expected failure is ``xfail(strict=True)``.
    """
    import pytest  # only when used: packbench itself does not depend on pytest

    params = []
    for check in component_checks(**kwargs):
        marks = []
        reason = _unavailable(check.layer, check.component)
        if reason:
            marks.append(pytest.mark.skip(reason=reason))
        elif check.expected is not None:
            marks.append(pytest.mark.xfail(strict=True, reason=check.expected))
        params.append(pytest.param(check, id=check.id, marks=marks))
    return pytest.mark.parametrize("check", params)
