"""Turning measurements into claim rows: bounded claims and "no constant guarantee" claims.

A *measure* maps (case, params) to (value, reference) and the ratio is
value / reference: for an approximation claim the heuristic's value over the
exact optimum. Groups pass their measure functions (named with
`core.measure`); a saved instance records the name, which
`experiments.claims.measures` maps back to the function.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .adversarial import SearchResult, SearchSpace, adversarial_search
from .core import HOLDS, TOL, VIOLATED, Case, ClaimResult, below, case_to_json, derive_rng

__all__ = ["Settings", "PlotSpec", "GroupOutput", "make_record", "claim_row", "search", "fmt"]


@dataclass(frozen=True)
class Settings:
    """How hard a run tries.

    Attributes:
        seed: Run seed; every random choice derives from it and a label.
        quick: Quick (CI) mode.
        samples: Random instances per adversarial search before the local search.
        restarts: Local-search restarts per heuristic.
        steps: Mutations per restart.
    """

    seed: int
    quick: bool
    samples: int
    restarts: int
    steps: int

    @classmethod
    def for_mode(cls, quick: bool, seed: int = 0) -> "Settings":
        """The quick (CI, well under a minute) or full settings."""
        if quick:
            return cls(seed, True, samples=150, restarts=3, steps=150)
        return cls(seed, False, samples=3000, restarts=12, steps=1500)


@dataclass
class PlotSpec:
    """A line plot the report draws: series of (label, xs, ys, style)."""

    name: str
    title: str
    xlabel: str
    ylabel: str
    series: list[tuple[str, Sequence[float], Sequence[float], str]] = field(default_factory=list)
    logx: bool = False
    logy: bool = False
    hline: float | None = None
    ylim: tuple[float, float] | None = None
    legend_outside: bool = False
    xticklabels: tuple[str, ...] | None = None  # categorical x: xs are positions 0..k-1 of these labels


def fmt(x: float | None) -> str:
    """A ratio for tables: 6 significant digits."""
    return "n/a" if x is None else f"{x:.6g}"


def make_record(claim: str, measure: str, params: Mapping[str, Any], case: Case,
                value: float, reference: float, label: str) -> dict[str, Any]:
    """The JSON record of one instance: enough to re-run the measure and get the same ratio."""
    rec: dict[str, Any] = {"claim": claim, "label": label, "measure": measure, "params": dict(params)}
    rec.update(case_to_json(case))
    rec.update({"value": value, "reference": reference, "ratio": value / reference})
    return rec


def search(claim: str, measure: Callable, params: Mapping[str, Any], space: SearchSpace,
           settings: Settings) -> SearchResult:
    """The seeded adversarial search minimising the measure's ratio."""
    rng = derive_rng(settings.seed, f"{claim}:{measure.measure_name}")
    return adversarial_search(lambda case: measure(case, params), space, rng,
                              settings.restarts, settings.steps, settings.samples)


def _family_ratios(fn: Callable, params: Mapping[str, Any], family: Sequence[tuple[str, Case, float | None]]
                   ) -> tuple[list[tuple[str, Case, float, float]], list[str]]:
    """Evaluate the family; also list the members whose ratio is not the formula's value."""
    out, mismatch = [], []
    for label, case, expected in family:
        value, ref = fn(case, params)
        out.append((label, case, value, ref))
        if expected is not None and abs(value / ref - expected) > TOL * max(1.0, abs(expected)):
            mismatch.append(f"{label}: formula {fmt(expected)}, observed {fmt(value / ref)}")
    return out, mismatch


def _slug(claim: str, what: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=_-]+", "_", f"claim{claim}_{what}") + ".json"


@dataclass
class GroupOutput:
    """What a claim group hands the report.

    Attributes:
        rows: The claim rows.
        plots: Plots to draw.
        searches: (label, result) of each adversarial search, for the convergence plot.
        sections: Extra markdown sections (tables, timings) for claims.md.
    """

    rows: list[ClaimResult] = field(default_factory=list)
    plots: list[PlotSpec] = field(default_factory=list)
    searches: list[tuple[str, SearchResult]] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)


def claim_row(claim: str, statement: str, source: str, measure: Callable, params: Mapping[str, Any],
              family: Sequence[tuple[str, Case, float | None]], space: SearchSpace | None, settings: Settings,
              *, bound: float | None, bound_text: str, note: str = "",
              out: GroupOutput | None = None) -> ClaimResult:
    """Check one claim on its textbook family and by adversarial search.

    With a numeric `bound` the claim is "ratio >= bound on every instance";
    with ``bound=None`` it is "no constant guarantee", shown by the family
    whose expected ratios (the formula) must shrink. Either way every family
    member must match its formula value (when given) within TOL relative.

    Args:
        claim: Row id.
        statement: The claim in one sentence.
        source: Author, year, theorem.
        measure: A measure function named with `core.measure`.
        params: Passed to the measure (and saved with each instance).
        family: (label, case, formula value or None) members of the textbook family.
        space: Where the adversarial search looks, or None for no search.
        settings: Run settings.
        bound: The claimed lower bound on the ratio, or None.
        bound_text: The bound as shown in the table.
        note: Extra text for the row.
        out: When given, the row and the search are appended to it.

    Returns:
        The row (verdict *violated* on a ratio below the bound, a formula
        mismatch, or a family that does not shrink).
    """
    records: list[tuple[float, str, dict[str, Any]]] = []
    tried, problems = 0, []
    family_text = search_text = "-"
    if family:
        rows, mismatch = _family_ratios(measure, params, family)
        problems += mismatch
        tried += len(rows)
        label, case, value, ref = min(rows, key=lambda r: r[2] / r[3])
        family_text = f"{fmt(value / ref)} ({label})"
        records.append((value / ref, _slug(claim, "family"),
                        make_record(claim, measure.measure_name, params, case, value, ref, f"family {label}")))
        if bound is None:
            expected = [e for _, _, e in family]
            if None in expected or not all(b < a for a, b in zip(expected, expected[1:])):
                problems.append("the family's formula does not decrease along the family")
    if space is not None:
        result = search(claim, measure, params, space, settings)
        tried += result.tried
        search_text = f"{fmt(result.ratio)} (n={result.case.n}, budget={result.case.budget})"
        records.append((result.ratio, _slug(claim, "search"),
                        make_record(claim, measure.measure_name, params, result.case, result.value, result.optimum,
                                    "adversarial search")))
        if out is not None:
            out.searches.append((f"{claim} {measure.measure_name}", result))
    worst, fname, _ = min(records, key=lambda r: r[0])
    if bound is not None and below(worst, bound):
        problems.append(f"ratio {fmt(worst)} below the bound {bound_text}")
    verdict = VIOLATED if problems else HOLDS
    text = "; ".join([t for t in [note] + problems if t])
    row = ClaimResult(claim, statement, source, bound_text, worst, fname, tried, verdict, text,
                      family=family_text, search=search_text, records={f: r for _, f, r in records},
                      margin=None if bound is None else worst - bound)
    if out is not None:
        out.rows.append(row)
    return row
