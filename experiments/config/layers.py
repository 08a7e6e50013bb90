"""The registries a config names components from: the library's layers, then families and corpora.

Looked up when called (never at import), so components registered later, plug-ins and import paths
included, are found without a change here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["source_registry", "registry", "layers"]


def source_registry() -> Any:
    """Families and corpora by name (one `Registry`; a name in both is an error)."""
    from ..corpora import CORPORA
    from ..families import FAMILIES
    return CORPORA.merged(FAMILIES, "family or corpus", group="packbench.sources")


def registry(layer: str) -> Any:
    """The `Registry` of one config layer: "source", "strategy" or "order"."""
    from packbench.algorithms import ORDERS, STRATEGIES
    return {"source": source_registry, "strategy": lambda: STRATEGIES, "order": lambda: ORDERS}[layer]()


def layers() -> tuple[Any, ...]:
    """Every pluggable layer (`packbench.algorithms.component.Layer`): the library's, then the sources."""
    from packbench.algorithms.component import Layer
    from packbench.algorithms.registry import LAYERS
    return (*LAYERS, Layer("family or corpus", source_registry, "sources", exercised=True))
