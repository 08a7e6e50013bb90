"""The statuses of both regression gates (`packbench gate` and `packbench bench --check`), one enum per purpose.

`Speed` is the verdict of a paired timing, `Quality` the verdict of a case's or a
cell's figures against REF or the baseline. Both are str-valued, so rows,
tables and JUnit files hold plain strings.
"""

from __future__ import annotations

import enum

__all__ = ["Speed", "Quality", "FAILING"]


class Speed(enum.StrEnum):
    """How a paired timing ended."""

    OK = "ok"
    SLOWER = "slower"          # fails: the slowdown is over the tolerance, and real (see `judge_speed`)
    FASTER = "faster"          # reported, passes
    UNSURE = "unsure"          # over the tolerance but within the noise, or slower in one pass only (the
                               # gate's confirmation): passes, with a note
    NOT_TIMED = "not timed"    # nothing to pair with (a case only one side has)
    ERROR = "error"            # the case raised on the current side


class Quality(enum.StrEnum):
    """How a case's (bench) or a cell's (gate) figures compare with REF's or the baseline's."""

    OK = "ok"
    WORSE = "worse"                    # a figure moved in its bad direction beyond its tolerance
    IMPROVED = "improved"              # one moved in its good direction, none in the bad
    EQUIVALENT = "equivalent"          # only neutral figures changed (another optimum)
    CHANGED = "changed"                # no directed figure, a neutral one changed: fails until recorded
    STALE = "stale"                    # same as REF, not as the baseline: the baseline needs an update
    NEW = "new"                        # not in the baseline (the gate fails it unless --allow-new)
    MISSING = "missing"                # in the baseline, not in the results
    ERROR = "error"
    NONDETERMINISTIC = "nondeterministic"


# Statuses that fail a gate.
FAILING = frozenset({Speed.SLOWER, Speed.ERROR, Quality.WORSE, Quality.CHANGED, Quality.MISSING, Quality.ERROR,
                     Quality.NONDETERMINISTIC})
