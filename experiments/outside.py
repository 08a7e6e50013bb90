"""Configs are code: the components from outside packbench that a config would import, found before importing.

A config names its sources, strategies, orders, reference and dedupe method; a name that is not
built in is an import path (``"package.module:attr"``, imported and called as is) or an entry point
of an installed distribution, and importing either runs its code. `outside_components` reads the
names from the raw TOML, so ``packbench run`` can say what it will import, and ``--no-plugins``
refuse, before anything is imported (docs/plugins-security.md).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["OutsideComponent", "PluginsRefused", "outside_components", "config_outside_components"]


class OutsideComponent(NamedTuple):
    """One name in a config that is not built in.

    Attributes:
        layer: "source", "strategy", "order", "reference" or "dedupe".
        name: As the config writes it.
        how: How it would be loaded: "import path", "entry point of <distribution>", or "unknown name"
            (neither built in nor installed: loading the config will fail on it).
    """

    layer: str
    name: str
    how: str

    def describe(self) -> str:
        return f"{self.layer} {self.name!r} ({self.how})"


class PluginsRefused(ValueError):
    """``--no-plugins`` and a config that names outside components."""


def _names(entries: Any) -> list[str]:
    if isinstance(entries, (str, Mapping)):
        entries = [entries]
    if not isinstance(entries, list):
        return []
    out = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, Mapping) else entry
        if isinstance(name, str):
            out.append(name)
    return out


def _registries() -> dict[str, Any]:
    from packbench.algorithms import ORDERS, STRATEGIES
    from packbench.algorithms.dedupe import DEDUPE_METHODS

    from .config import source_registry

    return {"source": source_registry(), "strategy": STRATEGIES, "order": ORDERS, "reference": STRATEGIES,
            "dedupe": DEDUPE_METHODS}


def outside_components(data: Mapping[str, Any]) -> list[OutsideComponent]:
    """The names in a parsed (not validated) config that are not built-in components, in config order.

    Nothing is imported: built-in names are looked up in the registries, entry points are listed
    without being loaded.
    """
    from packbench.algorithms.plugins import entry_point_distribution, is_import_path

    regs = _registries()
    wanted: list[tuple[str, str]] = []
    for source in data.get("sources", []) if isinstance(data.get("sources"), list) else []:
        wanted += [("source", n) for n in _names(source)]
        if isinstance(source, Mapping):
            wanted += [("order", n) for n in _names(source.get("orders", []))]
    wanted += [("strategy", n) for n in _names(data.get("strategies", []))]
    wanted += [("order", n) for n in _names(data.get("orders", []))]
    wanted += [(layer, data[layer]) for layer in ("reference", "dedupe") if isinstance(data.get(layer), str)]
    found: list[OutsideComponent] = []
    seen: set[tuple[str, str]] = set()
    for layer, name in wanted:
        reg = regs[layer]
        if name in reg or (layer, name) in seen:
            continue
        seen.add((layer, name))
        if is_import_path(name):
            how = "import path"
        else:
            plugins = reg.plugin_names() if hasattr(reg, "plugin_names") else {}
            how = f"entry point of {entry_point_distribution(plugins[name])}" if name in plugins else "unknown name"
        found.append(OutsideComponent(layer, name, how))
    return found


def config_outside_components(path: str | Path) -> list[OutsideComponent]:
    """`outside_components` of a TOML config file ([] when it cannot be read: loading it says why)."""
    try:
        return outside_components(tomllib.loads(Path(path).read_bytes().decode("utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
