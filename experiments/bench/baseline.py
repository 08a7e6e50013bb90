"""The committed benchmark baseline: quality figures per case, and ratios for the no-history mode.

Document (version 2)::

    {"version": 2, "commit": "<sha of HEAD when recorded>", "cases": {
        name: {"quality": {...}, "quick": bool,
               "reference": "<reference case>", "ratio_to_reference": float}}}

Only quality figures and same-process ratios are stored: no absolute seconds
are ever compared across machines. Version 1 documents (with
``reference_seconds``) are read for their quality figures. A document is
validated against `BaselineDoc` when read: a case entry that is not an
object, quality figures that are not a table of finite JSON values, or a
ratio that is not a finite positive number are refused with the path to the
broken field.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from packbench.experiments.storage import write_atomic

__all__ = ["load_baseline", "merge_baseline", "baseline_diff", "save_baseline", "BaselineDoc", "BaselineCase"]


def _finite(value: Any, where: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {value!r}, not a finite number")
    if isinstance(value, list):
        for k, v in enumerate(value):
            _finite(v, f"{where}[{k}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            _finite(v, f"{where}.{k}")


class BaselineCase(BaseModel):
    """One case of the baseline (keys of version 1 documents that are no longer used are ignored)."""

    model_config = ConfigDict(extra="ignore")

    quality: dict[str, Any]
    quick: bool = True
    reference: str | None = None
    ratio_to_reference: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None

    @field_validator("quality")
    @classmethod
    def _figures_finite(cls, quality: dict[str, Any]) -> dict[str, Any]:
        for key, value in quality.items():
            _finite(value, f"figure {key!r}")
        return quality


class BaselineDoc(BaseModel):
    """The baseline document (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    version: Literal[1, 2]
    commit: str | None = None
    cases: dict[str, BaselineCase]


def _explain(path: Path, exc: ValidationError) -> str:
    problems = [f"{'.'.join(map(str, e['loc'])) or 'document'}: {e['msg']}" for e in exc.errors()[:8]]
    more = f" (and {exc.error_count() - 8} more)" if exc.error_count() > 8 else ""
    return f"{path} is not a valid baseline: " + "; ".join(problems) + more


def load_baseline(path: Path) -> dict[str, Any]:
    """Read a baseline document.

    Raises:
        FileNotFoundError: No file at `path`.
        ValueError: Not a baseline document (names the file and each broken field).
    """
    if not path.is_file():
        raise FileNotFoundError(f"no baseline at {path}; record one with 'packbench bench --update-baseline'")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not a JSON baseline: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), dict):
        raise ValueError(f"{path} has no 'cases' table; record one with 'packbench bench --update-baseline'")
    try:
        BaselineDoc.model_validate(doc)
    except ValidationError as exc:
        raise ValueError(_explain(path, exc)) from None
    return doc


def merge_baseline(old: dict[str, Any] | None, quality: dict[str, Any], ratios: dict[str, tuple[str, float]],
                   quick: dict[str, bool], commit: str | None) -> dict[str, Any]:
    """A new baseline: `old`'s cases, with every case of this run replaced.

    Args:
        old: The previous baseline (None: start empty).
        quality: Case -> quality figures of this run.
        ratios: Case -> (reference case, median ratio to it) from this run.
        quick: Case -> part of the quick suite.
        commit: HEAD when recorded.
    """
    cases = {k: dict(v) for k, v in (old or {}).get("cases", {}).items()}
    for name, figures in quality.items():
        entry = {"quality": figures, "quick": quick.get(name, True)}
        if name in ratios:
            entry["reference"], entry["ratio_to_reference"] = ratios[name][0], round(ratios[name][1], 6)
        cases[name] = entry
    for entry in cases.values():
        for stale in ("seconds", "repeats", "timings", "pair", "peak_bytes"):
            entry.pop(stale, None)
    return {"version": 2, "commit": commit, "cases": dict(sorted(cases.items()))}


def baseline_diff(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    """Lines naming every case and quality figure that differs between two baselines."""
    before = (old or {}).get("cases", {})
    lines = []
    for name, entry in new["cases"].items():
        if name not in before:
            lines.append(f"+ {name}: {entry['quality']}")
            continue
        a, b = before[name].get("quality", {}), entry["quality"]
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                lines.append(f"~ {name}: {key} {a.get(key)!r} -> {b.get(key)!r}")
    lines += [f"- {name}" for name in before if name not in new["cases"]]
    return lines


def save_baseline(path: Path, doc: dict[str, Any]) -> None:
    """Write `doc` to `path` atomically."""
    write_atomic(path, json.dumps(doc, indent=1) + "\n")
