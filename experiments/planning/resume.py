"""Resume: what a result directory already holds for a plan, and what must be (re)done.

A stored row is kept when its run is in the plan and the code that would run it again has the same
fingerprint (`codes.cell_code`); it is redone when that code changed or its source was unavailable.
A stored row whose run is not in the plan is *stale*: the runner refuses to mix it with this config.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..provenance import code_changes
from .codes import cell_code
from .runs import PlannedUnit
from .sources import is_unavailable

if TYPE_CHECKING:
    from ..config import ExperimentConfig

__all__ = ["ResumeState", "resume_state"]


class ResumeState:
    """What a result directory already holds for a plan, and what must be (re)done.

    Args:
        planned: The plan.
        stored: Run id -> (code, status, reason, instance, source) of the stored rows.
        config: The experiment (its dedupe method and reference are part of every row's code).

    Attributes:
        pending: Units with the runs still to do.
        resumed: Stored rows kept.
        redone_code: Stored rows redone because code they ran changed, per changed component
            (e.g. ``"source 'traps'"``, ``"metrics"``); a row counts once, under its first change.
        redone_unavailable: Stored rows of a source that was unavailable (redone).
        stale: Stored run ids that are not in the plan.
    """

    def __init__(self, planned: Sequence[PlannedUnit], stored: Mapping[str, tuple[Any, ...]],
                 config: ExperimentConfig) -> None:
        self.redone_code: Counter[str] = Counter()
        self.redone_unavailable = 0
        self.total = sum(len(pu.run_ids) for pu in planned)
        if not stored:  # a fresh directory: everything to do, nothing to compare
            self.stale, self.redo, self.resumed = set(), set(), 0
            self.pending = list(planned)
            return
        redo: set[str] = set()
        wanted: set[str] = set()
        codes: dict[tuple[int, str], str] = {}
        for pu in planned:
            n = len(pu.unit.cells)
            for pos, rid in enumerate(pu.run_ids):
                wanted.add(rid)
                got = stored.get(rid)
                if got is None:
                    continue
                code, status, reason, instance, source = got
                cell = pu.unit.cells[pos % n]
                key = (id(cell), pu.unit.source)
                if key not in codes:
                    codes[key] = cell_code(cell, pu.unit.source, config)
                if is_unavailable({"status": status, "reason": reason, "instance": instance, "source": source}):
                    self.redone_unavailable += 1
                    redo.add(rid)
                elif code != codes[key]:
                    names = {"strategy": cell.strategy, "order": cell.order, "source": pu.unit.source,
                             "dedupe": config.dedupe, "reference": config.reference_name}
                    part = code_changes(code, codes[key])[0]
                    self.redone_code[f"{part} {names[part]!r}" if part in names else part] += 1
                    redo.add(rid)
        self.stale = set(stored) - wanted
        self.redo = redo
        done = set(stored) - redo
        self.resumed = len(done & wanted)
        self.pending = [p for p in (pu.pending(done) for pu in planned) if p is not None]

    def redone_note(self) -> str | None:
        """"resume redid N stored runs because ... changed", or None when none was redone for its code."""
        if not self.redone_code:
            return None
        n = sum(self.redone_code.values())
        because = ", ".join(f"{what} ({k:,})" for what, k in self.redone_code.most_common())
        return f"resume redid {n:,} stored run{'s' if n != 1 else ''} because their code changed: {because}"


def resume_state(store: Any, planned: Sequence[PlannedUnit], config: ExperimentConfig) -> ResumeState:
    """Compare the rows of `store` with `planned` (streamed; the rows are not held in memory)."""
    return ResumeState(planned, store.index(("code", "status", "reason", "instance", "source")), config)
