"""Components from outside packbench: import paths, entry points, and where a component's code lives.

A component can be named three ways besides a built-in name:

- an import path ``"package.module:attr"`` (``attr`` may be dotted, e.g. ``"mod:Outer.Inner"``); the module
  is imported by name, so it resolves the same way in a worker process started with ``spawn``;
- an entry point in the layer's group (e.g. ``packbench.strategies``) that an installed distribution
  declares in its ``pyproject.toml``::

      [project.entry-points."packbench.strategies"]
      top_frac = "mypkg.strategies:TopFrac"

- the class (or, for strategies, the function) itself, whose name is its ``"module:qualname"``.

When the module of an import path is not importable and the working directory is not on ``sys.path``
(the ``packbench`` console script does not put it there, ``python -m`` does), the working directory is
appended to ``sys.path`` and the import is tried once more, as uvicorn and gunicorn do for their
``"module:app"`` arguments; appended, never prepended, so it cannot shadow an installed package.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata as metadata
import inspect
import os
import sys
from typing import Any, NamedTuple

__all__ = ["Origin", "component_origin", "component_ref", "import_object", "is_import_path", "entry_points"]


class Origin(NamedTuple):
    """Where a component's code lives, for fingerprinting the code behind a result.

    Attributes:
        ref: Its import path ``"module:qualname"`` (for a wrapped function, the function's).
        file: Absolute path of the source file that defines it, or None (built in, or made at run time).
            A path of this machine: hash the file, never record the path itself.
        distribution: ``"name==version"`` of the installed distribution that ships the module, or None
            (a module on ``sys.path`` that no distribution owns, such as a user's script).
    """

    ref: str
    file: str | None
    distribution: str | None


def is_import_path(spec: Any) -> bool:
    """True for a string of the form ``"package.module:attr"``."""
    if not isinstance(spec, str) or spec.count(":") != 1:
        return False
    module, attr = spec.split(":")
    return all(part.isidentifier() for part in module.split(".")) and \
        all(part.isidentifier() for part in attr.split("."))


def _import_module(label: str, module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        cwd = os.getcwd()
        if exc.name not in (top, module) or cwd in sys.path or "" in sys.path:
            raise ValueError(f"{label}: cannot import module {module!r}: {exc}") from None
        sys.path.append(cwd)
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as again:
            raise ValueError(f"{label}: cannot import module {module!r} (looked on sys.path and in the "
                             f"working directory): {again}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed while importing; say which
        raise ValueError(f"{label}: importing module {module!r} failed: {type(exc).__name__}: {exc}") from exc


def import_object(spec: str, label: str | None = None) -> Any:
    """The object an import path ``"package.module:attr"`` names.

    Args:
        spec: The import path.
        label: How to name it in messages (default: the path itself).

    Returns:
        The object.

    Raises:
        ValueError: `spec` is not an import path, its module cannot be imported (or raised while
            importing), or the module has no such attribute.
    """
    label = label or repr(spec)
    if not is_import_path(spec):
        raise ValueError(f"{label}: not an import path of the form 'package.module:attr'")
    module_name, attr = spec.split(":")
    obj = _import_module(label, module_name)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"{label}: module {module_name!r} has no attribute {attr!r}") from None
    return obj


def component_ref(obj: Any) -> str:
    """The import path ``"module:qualname"`` under which `obj` can be imported again (e.g. in a worker).

    Raises:
        TypeError: `obj` is defined inside a function or is a lambda (no import path reaches it), or
            its import path names a different object (it was replaced or shadowed after definition).
    """
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qualname:
        raise TypeError(f"{obj!r} has no __module__ and __qualname__, so no import path reaches it")
    ref = f"{module}:{qualname}"
    if "<" in qualname:
        raise TypeError(f"{ref} is defined inside a function (or is a lambda), so a worker process cannot "
                        f"import it; define it at the top level of a module")
    try:
        found = import_object(ref)
    except ValueError as exc:
        raise TypeError(f"{ref} cannot be imported again: {exc}") from None
    if found is not obj:
        raise TypeError(f"{ref} names a different object than the one given (was it redefined?)")
    return ref


def lenient_ref(obj: Any) -> str:
    """``"module:qualname"`` of `obj` without checking that it can be imported again (for labels)."""
    return f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', type(obj).__name__)}"


@functools.lru_cache(maxsize=1)
def _module_distributions() -> dict[str, list[str]]:
    # Scanning every installed distribution takes about half a second, so it is done once per process.
    return metadata.packages_distributions()


def _owns(dist: metadata.Distribution, file: str | None) -> bool:
    """Whether `dist` installed `file` (a distribution that lists no files is taken at its word)."""
    files = dist.files
    if files is None or file is None:
        return files is None
    target = os.path.realpath(file)
    return any(os.path.realpath(dist.locate_file(f)) == target for f in files if f.suffix == ".py")


def _distribution(module: str, file: str | None) -> str | None:
    top = module.split(".")[0]
    if top == "packbench":  # also under an editable install, whose files no RECORD lists
        try:
            return f"packbench=={metadata.version('packbench')}"
        except metadata.PackageNotFoundError:
            return None
    for name in _module_distributions().get(top, ()):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        # A module of the working directory may share its top-level name with an installed one.
        if _owns(dist, file):
            return f"{dist.name}=={dist.version}"
    return None


def component_origin(obj: Any) -> Origin:
    """Where the code of a component class (or wrapped function) lives.

    For a strategy wrapped from a plain function (it sets ``__wrapped__``) this is the function's origin.
    The experiment runner uses it to fingerprint the code behind each row, so that resume redoes the
    runs whose code changed.

    Args:
        obj: A component class, or a function.

    Returns:
        The `Origin`: import path, source file (or None) and distribution (or None).
    """
    target = getattr(obj, "__wrapped__", obj)
    module = getattr(target, "__module__", None) or "?"
    try:
        file = inspect.getsourcefile(target)
    except (TypeError, OSError):
        file = None
    file = os.path.abspath(file) if file else None
    return Origin(lenient_ref(target), file, _distribution(module, file))


def entry_points(group: str) -> list[metadata.EntryPoint]:
    """The entry points declared in `group` by the distributions on ``sys.path``, sorted by name."""
    return sorted(metadata.entry_points(group=group), key=lambda ep: ep.name)


def entry_point_distribution(ep: metadata.EntryPoint) -> str:
    """``"name==version"`` of the distribution declaring `ep` (or ``"an unknown distribution"``)."""
    dist = getattr(ep, "dist", None)
    return f"{dist.name}=={dist.version}" if dist is not None else "an unknown distribution"
