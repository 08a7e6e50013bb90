"""`--check`: compare a run with the committed baseline.

Quality figures must be identical. Speed is compared through each case's
``norm``: its median seconds divided by the same run's reference computation,
so a uniformly slower machine does not fail the check. A case regresses when
its norm exceeds ``tolerance`` times the baseline's, by more than
``floor_seconds`` (timings of a few milliseconds are mostly noise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CheckRow", "compare_runs", "format_check"]


@dataclass(frozen=True)
class CheckRow:
    """One case of the comparison.

    Attributes:
        name: Case name.
        status: "ok", "slower" (speed regression), "quality" (figures differ),
            "new" (not in the baseline) or "missing" (in the baseline, not run).
        base_norm: Baseline seconds / reference seconds (None if absent).
        new_norm: This run's seconds / reference seconds (None if absent).
        detail: What differs, for the table.
    """

    name: str
    status: str
    base_norm: float | None
    new_norm: float | None
    detail: str = ""

    @property
    def failed(self) -> bool:
        """True for a regression (speed or quality)."""
        return self.status in ("slower", "quality")


def _quality_diff(base: dict[str, Any], new: dict[str, Any]) -> str:
    keys = sorted(set(base) | set(new))
    return "; ".join(f"{k}: {base.get(k)!r} -> {new.get(k)!r}" for k in keys if base.get(k) != new.get(k))


def compare_runs(baseline: dict[str, Any], latest: dict[str, Any], tolerance: float = 2.5,
                 floor_seconds: float = 0.01) -> list[CheckRow]:
    """Compare every case of `latest` with `baseline`.

    Args:
        baseline: A results document (``{"reference_seconds", "cases": {name: {...}}}``).
        latest: Another one, from this run.
        tolerance: Allowed factor on the normalised time.
        floor_seconds: Slack, in this run's seconds, added before calling a case slower.

    Returns:
        One row per case in `latest`, then rows for baseline cases of the same
        mode that were not run.

    Raises:
        ValueError: A document without ``reference_seconds`` > 0 or ``cases``.
    """
    for label, doc in (("baseline", baseline), ("latest", latest)):
        if not isinstance(doc.get("cases"), dict) or not doc.get("reference_seconds", 0) > 0:
            raise ValueError(f"{label} results need 'cases' and a positive 'reference_seconds'")
    ref = latest["reference_seconds"]
    rows = []
    for name, case in latest["cases"].items():
        new_norm = case["seconds"] / ref
        base = baseline["cases"].get(name)
        if base is None:
            rows.append(CheckRow(name, "new", None, new_norm))
            continue
        base_norm = base["seconds"] / baseline["reference_seconds"]
        diff = _quality_diff(base.get("quality", {}), case.get("quality", {}))
        if diff:
            rows.append(CheckRow(name, "quality", base_norm, new_norm, diff))
        elif new_norm > tolerance * base_norm + floor_seconds / ref:
            rows.append(CheckRow(name, "slower", base_norm, new_norm,
                                 f"{new_norm / base_norm:.2f}x the baseline (tolerance {tolerance:g}x)"))
        else:
            rows.append(CheckRow(name, "ok", base_norm, new_norm))
    quick = latest.get("mode") == "quick"
    for name, base in baseline["cases"].items():
        if name not in latest["cases"] and (base.get("quick", True) or not quick):
            rows.append(CheckRow(name, "missing", base["seconds"] / baseline["reference_seconds"], None))
    return rows


def format_check(rows: list[CheckRow]) -> str:
    """The comparison as a fixed-width table, regressions marked."""
    out = [f"{'case':44} {'status':8} {'base':>9} {'now':>9}  detail",
           f"{'':44} {'':8} {'(x ref)':>9} {'(x ref)':>9}"]
    for r in rows:
        base = f"{r.base_norm:9.3f}" if r.base_norm is not None else f"{'-':>9}"
        new = f"{r.new_norm:9.3f}" if r.new_norm is not None else f"{'-':>9}"
        mark = "!! " if r.failed else ""
        out.append(f"{r.name:44} {mark + r.status:8} {base} {new}  {r.detail}")
    failed = sum(r.failed for r in rows)
    out.append(f"{failed} regression(s)" if failed else "no regressions")
    return "\n".join(out)
