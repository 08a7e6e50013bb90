"""Running every claim group, writing the report, and failing loudly on a violation."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from .checks import GroupOutput, Settings
from .core import VIOLATED, ClaimResult, ClaimViolation
from .groups.answers import answers_claims
from .groups.knapsack import knapsack_claims
from .groups.minhash import minhash_claims
from .groups.mmr import mmr_claims
from .groups.positions import positions_claims
from .report import write_report
from .groups.submodular import submodular_claims
from .groups.tight import tight_claims

__all__ = ["GROUPS", "run_claims"]

GROUPS: dict[str, Callable[[Settings], GroupOutput]] = {
    "knapsack": knapsack_claims,
    "submodular": submodular_claims,
    "tight": tight_claims,
    "mmr": mmr_claims,
    "minhash": minhash_claims,
    "positions": positions_claims,
    "answers": answers_claims,
}


def run_claims(out: Path, quick: bool = False, seed: int = 0,
               groups: Mapping[str, Callable[[Settings], GroupOutput]] | None = None,
               progress: Callable[[str], None] | None = None) -> list[ClaimResult]:
    """Check every claim, write the report under `out`, then raise if any claim was violated.

    Args:
        out: Output directory (claims.md, claims.csv, plots/, instances/).
        quick: Quick (CI) mode: fewer and smaller searches.
        seed: Run seed; the same seed gives the same rows.
        groups: Claim groups to run (default `GROUPS`); tests pass planted ones.
        progress: Called with a line when each group starts and when it ends (its rows, verdicts, time).

    Returns:
        The rows, when every claim holds or is not applicable.

    Raises:
        ClaimViolation: After the report is written, naming every violated claim.
    """
    settings = Settings.for_mode(quick, seed)
    merged = GroupOutput()
    todo = GROUPS if groups is None else groups
    for pos, (name, make) in enumerate(todo.items(), 1):
        if progress:
            progress(f"[{pos}/{len(todo)}] {name} ...")
        start = time.perf_counter()
        got = make(settings)
        if progress:
            bad = sum(r.verdict == VIOLATED for r in got.rows)
            progress(f"[{pos}/{len(todo)}] {name}: {len(got.rows)} claims, {bad} violated "
                     f"({time.perf_counter() - start:.1f} s)")
        merged.rows += got.rows
        merged.plots += got.plots
        merged.searches += got.searches
        merged.sections += got.sections
    write_report(Path(out), merged.rows, merged.plots, merged.searches, merged.sections, settings)
    bad = [r for r in merged.rows if r.verdict == VIOLATED]
    if bad:
        raise ClaimViolation("claims violated: " + "; ".join(f"{r.claim} ({r.note})" for r in bad)
                             + f" - see {Path(out) / 'claims.md'}")
    return merged.rows
