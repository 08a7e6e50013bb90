"""Sequential confirmation of the gate's speed check: a cell that fails is timed again, and fails only if that fails.

The first pass judges every cell (`bench.compare.judge_speed` with the gate's
rule, the unsure cells timed again by `bench.check`). Its false alarms come
from bias that lasts a whole pass: processes placed badly for their life, load
that arrived during the pass. A cell that passes the first pass is done. A
cell the first pass calls ``slower`` is timed again in a second, independent
pass of its own: fresh processes with other hash seeds, the other side first,
the other CPU first, later in time. It is judged alone, on its own pairs, by
the same rule. The cell fails only when both passes call it slower. A clean
cell that the first pass flags with probability a is then flagged with
about a squared (the passes share no process). A real slowdown that each pass
flags with probability p is flagged with about p squared, near 1 when p is.
Clean runs pay nothing, and a run with a real slowdown pays one more pass over
the flagged cells only. The confirmation's figures go in the cell's note and
in ``gate.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from packbench.experiments.bench.compare import CheckRow

from .status import Speed

__all__ = ["CONFIRM_FIRST_ROUND", "confirm_slower", "combine"]

# Round number the confirmation starts at. The first pass and its unsure follow-ups use rounds 0
# and 1. Starting at 3 gives other hash seeds and swaps the CPU and the side that goes first.
CONFIRM_FIRST_ROUND = 3


def _figures(row: CheckRow) -> str:
    p = row.paired
    return "no pairs" if p is None else f"{p.ratio:.3f}x [{p.low:.3f}, {p.high:.3f}] over {p.n} pairs"


def combine(first: CheckRow, again: CheckRow | None) -> CheckRow:
    """A first-pass ``slower`` row and its confirmation's row: one verdict.

    Both slower: slower. The confirmation errs: its error (it fails, naming why). The cell is
    missing from the confirmation: slower as the first pass said, with a note (nothing refuted
    it). Otherwise ``unsure``: it passes, and the note gives both passes' figures.
    """
    if again is None:
        return replace(first, notes=first.notes + ("not confirmed: the cell was missing from the confirmation",))
    if again.speed == Speed.ERROR:
        return replace(first, speed=Speed.ERROR, notes=("confirmation: " + "; ".join(again.notes),) + first.notes)
    if again.speed == Speed.SLOWER:  # the first note is the verdict's sentence: the confirmation joins it
        said = first.notes[0] if first.notes else "slower"
        return replace(first, notes=(f"{said}; confirmed by a second pass in fresh processes: {_figures(again)}",)
                       + first.notes[1:])
    note = (f"not confirmed: slower in the first pass ({_figures(first)}), {again.speed} in a second pass in fresh "
            f"processes ({_figures(again)}); passes")
    return replace(first, speed=Speed.UNSURE, notes=(note,) + first.notes[1:])


def confirm_slower(rows: Sequence[CheckRow],
                   retime: Callable[[list[str]], Sequence[CheckRow]]) -> tuple[list[CheckRow], dict[str, CheckRow]]:
    """Confirm every ``slower`` row with a second pass over those cells only.

    Args:
        rows: The first pass's rows.
        retime: Times the named cells in a new, independent pass and returns their rows.
            Called once, and only when a row is slower.

    Returns:
        (the rows with the confirmed verdicts, cell -> its confirmation row).
    """
    slower = [r.name for r in rows if r.speed == Speed.SLOWER]
    if not slower:
        return list(rows), {}
    again = {r.name: r for r in retime(slower)}
    return [combine(r, again.get(r.name)) if r.speed == Speed.SLOWER else r for r in rows], again
