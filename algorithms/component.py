"""One component model for every pluggable layer: strategies, orders, fills, dedupe methods, sources.

A component is a class with a `name`, a `kind` (its layer) and declared `PARAMS`; constructing it
validates the keyword parameters, so a bad parameter fails before any work is done. A `Registry`
is built from the classes themselves, so each name is written once, and its `lookup` gives the one
"unknown X; valid: ..." error of the project.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from .params import Param, resolve_params
from .plugins import entry_point_distribution, entry_points, import_object, is_import_path, lenient_ref

__all__ = ["Component", "Registry", "Resolved", "Layer"]


class Component:
    """Base class of every registered component.

    Subclasses set `name` (unique within their layer) and `PARAMS`; each layer's base class sets `kind`.

    Args:
        **params: Values for the names declared in `PARAMS`.

    Raises:
        ValueError: An unknown parameter (the message lists the valid ones) or a value out of range.
        TypeError: A parameter of the wrong type.
    """

    kind: ClassVar[str] = "component"
    name: ClassVar[str] = ""
    PARAMS: ClassVar[Mapping[str, Param]] = MappingProxyType({})
    # True: keyword parameters beyond PARAMS are accepted unchecked (a wrapped function taking **params).
    EXTRA_PARAMS: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        self.params = resolve_params(f"{self.kind} {self.display_name()!r}", self.PARAMS, params,
                                     extra=self.EXTRA_PARAMS)

    @classmethod
    def display_name(cls) -> str:
        """`name`, or ``"module:qualname"`` for a class from outside that sets none."""
        return cls.name or lenient_ref(cls)

    @classmethod
    def summary(cls) -> str:
        """The first line of the class docstring."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    @classmethod
    def describe(cls, as_name: str | None = None) -> str:
        """Name, one-line summary and declared parameters with defaults, as `packbench list` prints them.

        Args:
            as_name: The name it is registered under, when that is not `name` (a plug-in).
        """
        lines = [f"{as_name or cls.display_name()}: {cls.summary()}".rstrip(": ")]
        for pname, param in cls.PARAMS.items():
            lines.append(f"    {pname}={param.default!r}  {param.doc}".rstrip())
        return "\n".join(lines)



C = TypeVar("C", bound=Component)


class Resolved(NamedTuple):
    """A component as a caller named it: the name to record (in rows, `Packing.strategy`) and its class."""

    name: str
    cls: type


def _layer_base(classes: list[type]) -> type:
    """The layer's base class: the class right below `Component` in the first class's MRO."""
    for klass in classes[0].__mro__:
        if Component in klass.__bases__:
            return klass
    return Component


class Registry(Mapping[str, type[C]], Generic[C]):
    """An immutable name -> class mapping for one layer, built from the classes, open to plug-ins.

    The mapping itself holds the built-in classes. `resolve` and `lookup` also accept a component from
    outside: an import path ``"package.module:attr"``, a name that an installed distribution registers
    in the entry-point `group`, or the class itself (see `packbench.algorithms.plugins`).

    Args:
        kind: The layer's name, used in messages (e.g. ``"strategy"``).
        classes: The built-in component classes; each must have a non-empty, unique `name`.
        base: The class every component of this layer subclasses (default: the first class's base
            right below `Component`, e.g. `Strategy`).
        group: The entry-point group of plug-ins (e.g. ``"packbench.strategies"``), or None.
        adapt: Turns a non-class object (a plain function) into a component class, given the object and
            the name it was given by; None accepts classes only.

    Raises:
        ValueError: A class without a name, two classes with the same name, or a class outside `base`.
    """

    def __init__(self, kind: str, classes: Iterable[type[C]], *, base: type | None = None,
                 group: str | None = None, adapt: Callable[[Any, str], type] | None = None) -> None:
        self.kind = kind
        classes = list(classes)
        self.base = base or (_layer_base(classes) if classes else Component)
        self.group = group
        self._adapt = adapt
        table: dict[str, type[C]] = {}
        for cls in classes:
            if not getattr(cls, "name", ""):
                raise ValueError(f"{kind} registry: class {cls.__qualname__} has no name")
            if not issubclass(cls, self.base):
                raise ValueError(f"{kind} registry: class {cls.__qualname__} is not a {self.base.__name__}")
            if cls.name in table:
                raise ValueError(f"{kind} registry: name {cls.name!r} is used by both "
                                 f"{table[cls.name].__qualname__} and {cls.__qualname__}")
            table[cls.name] = cls
        self._table = table
        # Entry points are scanned once per sys.path (a scan reads every distribution's metadata).
        self._scanned: tuple[tuple[str, ...], dict[str, Any]] | None = None

    def __getitem__(self, name: str) -> type[C]:
        return self._table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {sorted(self._table)})"

    def plugin_names(self) -> dict[str, Any]:
        """The entry points of `group` by name (not loaded).

        Raises:
            ValueError: A plug-in uses a built-in name, or two distributions register the same name.
        """
        if self.group is None:
            return {}
        key = tuple(sys.path)
        if self._scanned is None or self._scanned[0] != key:
            found: dict[str, Any] = {}
            for ep in entry_points(self.group):
                if ep.name in self._table:
                    raise ValueError(f"{self.kind} plug-in {ep.name!r} ({ep.value}, entry point group "
                                     f"{self.group!r} of {entry_point_distribution(ep)}) collides with the "
                                     f"built-in {self.kind} of that name; rename the entry point")
                if ep.name in found and found[ep.name].value != ep.value:
                    raise ValueError(f"{self.kind} plug-in {ep.name!r} is registered twice in {self.group!r}: "
                                     f"{found[ep.name].value} ({entry_point_distribution(found[ep.name])}) "
                                     f"and {ep.value} ({entry_point_distribution(ep)})")
                found[ep.name] = ep
            self._scanned = (key, found)
        return self._scanned[1]

    def available(self) -> dict[str, type]:
        """Built-in and installed (entry-point) components by name, built-ins first."""
        out: dict[str, type] = dict(self._table)
        for name in self.plugin_names():
            out[name] = self.resolve(name).cls
        return out

    def _valid(self) -> str:
        names = ", ".join(sorted([*self._table, *self.plugin_names()]))
        return names + "; or an import path 'package.module:attr'"

    def _adopt(self, obj: Any, name: str) -> type:
        """The component class for an object found under `name` (a class of this layer, or adapted)."""
        if isinstance(obj, type):
            if issubclass(obj, self.base):
                return obj
            raise ValueError(f"{self.kind} {name!r}: class {obj.__qualname__} is not a {self.base.__name__} "
                             f"subclass")
        if self._adapt is not None and callable(obj):
            return self._adapt(obj, name)
        wanted = f"a {self.base.__name__} subclass" + (" or a function" if self._adapt else "")
        raise ValueError(f"{self.kind} {name!r}: names a {type(obj).__name__}, not {wanted}")

    def resolve(self, spec: Any) -> Resolved:
        """The class of a component and the name to record for it.

        Args:
            spec: A built-in name, an entry-point name, an import path ``"package.module:attr"``, or the
                class (or, where the layer adapts functions, the function) itself.

        Returns:
            `Resolved(name, cls)`: `spec` itself for a string, ``"module:qualname"`` for an object.

        Raises:
            TypeError: `spec` is neither a string nor a class or function of this layer.
            ValueError: An unknown name (the message lists the valid ones), an import path that does not
                import, or one that names something that is not a component of this layer.
        """
        if isinstance(spec, str):
            if spec in self._table:
                return Resolved(spec, self._table[spec])
            if is_import_path(spec):
                return Resolved(spec, self._adopt(import_object(spec, f"{self.kind} {spec!r}"), spec))
            plugins = self.plugin_names()
            if spec in plugins:
                try:
                    obj = plugins[spec].load()
                except Exception as exc:  # noqa: BLE001 - a broken plug-in: say which one and why
                    raise ValueError(f"{self.kind} plug-in {spec!r} ({plugins[spec].value}, from "
                                     f"{entry_point_distribution(plugins[spec])}) failed to load: "
                                     f"{type(exc).__name__}: {exc}") from exc
                return Resolved(spec, self._adopt(obj, spec))
            raise ValueError(f"unknown {self.kind} {spec!r}; valid: {self._valid()}")
        if isinstance(spec, type) and issubclass(spec, self.base):
            return Resolved(lenient_ref(spec), spec)
        if self._adapt is not None and callable(spec) and not isinstance(spec, type):
            name = lenient_ref(spec)
            return Resolved(name, self._adapt(spec, name))
        accepted = f"a name, an import path 'package.module:attr', a {self.base.__name__} subclass" + \
            (" or a function" if self._adapt else "")
        raise TypeError(f"{self.kind} must be {accepted}; got {spec!r}")

    def lookup(self, spec: Any) -> type[C]:
        """The class registered under `spec` (anything `resolve` accepts).

        Raises:
            TypeError, ValueError: As `resolve`.
        """
        return self.resolve(spec).cls  # type: ignore[return-value]

    def merged(self, other: "Registry[Any]", kind: str | None = None, group: str | None = None) -> "Registry[Any]":
        """One registry holding both; a name present in both is an error (no silent shadowing).

        Args:
            other: The other registry (of the same layer base, else the result's base is `Component`).
            kind: The merged layer's name in messages (default: this registry's).
            group: The merged registry's entry-point group (default: none).
        """
        base = self.base if self.base is other.base else Component
        return Registry(kind or self.kind, [*self._table.values(), *other._table.values()], base=base,
                        group=group)


@dataclass(frozen=True)
class Layer:
    """One pluggable layer, declared once: what configs, `packbench list`, the checks and the tests read.

    Attributes:
        name: The layer's name, as in messages (the registry's `kind`, e.g. ``"strategy"``).
        load: Returns the layer's `Registry` (a function, so declaring a layer imports none of its code).
        config_key: The experiment-config key that names components of this layer (``"strategies"``,
            ``"fill"``, ...), or None where a config names none.
        exercised: Whether ``configs/default.toml`` must run every built-in component of the layer that
            needs neither an optional extra nor a parameter without default (tests/test_config.py checks it).
    """

    name: str
    load: Callable[[], Registry[Any]]
    config_key: str | None
    exercised: bool = False

    @property
    def registry(self) -> Registry[Any]:
        """The layer's registry."""
        return self.load()

    @property
    def group(self) -> str | None:
        """The entry-point group of the layer's plug-ins (declared on its registry)."""
        return self.registry.group

    def must_exercise(self) -> list[str]:
        """The built-in names the main config must run (empty unless `exercised`).

        Left out: components behind an optional extra (they declare `unavailable`, e.g. peer adapters,
        run by configs/peers.toml) and components that cannot be built with their defaults (a file corpus
        needs its `path`).
        """
        if not self.exercised:
            return []
        names = []
        for name, cls in self.registry.items():
            if hasattr(cls, "unavailable"):
                continue
            try:
                cls()
            except (TypeError, ValueError):
                continue
            names.append(name)
        return sorted(names)
