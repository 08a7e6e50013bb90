"""One component model for every pluggable layer: strategies, orders, fills, dedupe methods, sources.

A component is a class with a `name`, a `kind` (its layer) and declared `PARAMS`; constructing it
validates the keyword parameters, so a bad parameter fails before any work is done. A `Registry`
is built from the classes themselves, so each name is written once, and its `lookup` gives the one
"unknown X; valid: ..." error of the project.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar

from .params import Param, resolve_params

__all__ = ["Component", "Registry"]


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

    def __init__(self, **params: Any) -> None:
        self.params = resolve_params(f"{self.kind} {self.name!r}", self.PARAMS, params)

    @classmethod
    def summary(cls) -> str:
        """The first line of the class docstring."""
        return (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""

    @classmethod
    def describe(cls) -> str:
        """Name, one-line summary and declared parameters with defaults, as `packbench list` prints them."""
        lines = [f"{cls.name}: {cls.summary()}".rstrip(": ")]
        for pname, param in cls.PARAMS.items():
            lines.append(f"    {pname}={param.default!r}  {param.doc}".rstrip())
        return "\n".join(lines)


C = TypeVar("C", bound=Component)


class Registry(Mapping[str, type[C]], Generic[C]):
    """An immutable name -> class mapping for one layer, built from the classes.

    Args:
        kind: The layer's name, used in messages (e.g. ``"strategy"``).
        classes: The component classes; each must have a non-empty, unique `name`.

    Raises:
        ValueError: A class without a name, or two classes with the same name.
    """

    def __init__(self, kind: str, classes: Iterable[type[C]]) -> None:
        self.kind = kind
        table: dict[str, type[C]] = {}
        for cls in classes:
            if not getattr(cls, "name", ""):
                raise ValueError(f"{kind} registry: class {cls.__qualname__} has no name")
            if cls.name in table:
                raise ValueError(f"{kind} registry: name {cls.name!r} is used by both "
                                 f"{table[cls.name].__qualname__} and {cls.__qualname__}")
            table[cls.name] = cls
        self._table = table

    def __getitem__(self, name: str) -> type[C]:
        return self._table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {sorted(self._table)})"

    def lookup(self, name: Any) -> type[C]:
        """The class registered under `name`.

        Raises:
            TypeError: `name` is not a string.
            ValueError: No such name; the message lists the valid ones.
        """
        if not isinstance(name, str):
            raise TypeError(f"{self.kind} must be given by name (a str), got {name!r}")
        try:
            return self._table[name]
        except KeyError:
            raise ValueError(f"unknown {self.kind} {name!r}; valid: {', '.join(sorted(self._table))}") from None

    def merged(self, other: "Registry[Any]", kind: str | None = None) -> "Registry[Any]":
        """One registry holding both; a name present in both is an error (no silent shadowing)."""
        return Registry(kind or self.kind, [*self._table.values(), *other._table.values()])
