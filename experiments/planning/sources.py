"""A unit's instances as planning sees them: their keys, or why the source cannot be had.

A source that can name its instances without building them (`Source.instance_keys`) is never built to
plan; the others are built once. A source that cannot be built (a corpus whose data file is missing)
plans one placeholder instance, `UNAVAILABLE`, whose runs become ``skipped`` rows with the reason (as do
the runs of a source that names its keys but fails to build); resume redoes such rows, so they fill in
once the data is there.
"""

from __future__ import annotations

import json
from typing import Any

from .cells import Unit

__all__ = ["UNAVAILABLE", "SOURCE_UNAVAILABLE", "unavailable_reason", "is_unavailable", "instance_keys"]

UNAVAILABLE = "unavailable"
# What building a source raises when its data cannot be had (missing file, missing extra, bad download).
SOURCE_UNAVAILABLE = (OSError, ValueError, ImportError, RuntimeError)


def unavailable_reason(source: str, exc: BaseException) -> str:
    """The ``reason`` of a run skipped because its source could not be built."""
    return f"source {source!r} unavailable: {type(exc).__name__}: {exc}"


def is_unavailable(row: dict) -> bool:
    """Whether a stored row was skipped because its source was unavailable (resume redoes those)."""
    reason = row.get("reason") or ""
    return row.get("status") == "skipped" and (
        row.get("instance") == UNAVAILABLE or reason.startswith(f"source {row.get('source')!r} unavailable: "))


def instance_keys(unit: Unit, sources: dict[Any, Any], registry: Any,
                  remember: bool = False) -> tuple[tuple[str, ...], str | None]:
    """The instance keys of `unit` (or the placeholder and the reason its source is unavailable).

    Args:
        unit: The unit.
        sources: Sources built so far, shared by the calls of one plan: units of one parameter
            combination (one per seed) share their params, so each source is built once per combination.
            With `remember` it also keeps the keys found (`plan_size` counts the first seed's, and `plan`
            then reuses them instead of naming those instances again).
        registry: The families' and corpora's registry (`config.source_registry()`).
        remember: Keep the keys found in `sources`.

    Returns:
        The keys in the order the source yields them, and None; or ``(UNAVAILABLE,)`` and the reason.
    """
    combo = (unit.source, json.dumps(dict(unit.source_resolved), sort_keys=True))
    if (combo, unit.seed) in sources:
        return sources[combo, unit.seed]
    try:
        if combo not in sources:
            sources[combo] = registry.lookup(unit.source)(**unit.source_params)
        keys = sources[combo].instance_keys(unit.seed)
        if keys is None:
            keys = [inst.key for inst in sources[combo].instances(unit.seed)]
        found: tuple[tuple[str, ...], str | None] = (tuple(keys), None)
    except SOURCE_UNAVAILABLE as exc:
        found = ((UNAVAILABLE,), unavailable_reason(unit.source, exc))
    if remember:
        sources[combo, unit.seed] = found
    return found
