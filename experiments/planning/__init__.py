"""Planning: what a config's runs are, each with a stable id, before anything is measured.

One place owns runs, units, cells and run ids, in layers that import only downwards:

- `cells`: `Cell` (what a run does: strategy, order, budget, near_dup) and `Unit` (one source
  combination and seed, with its cells); `expand` turns a config into units.
- `sources`: a unit's instance keys, or the `UNAVAILABLE` placeholder and why.
- `ids`: `run_id(run_params(...))`, and `RunIds`, the same ids for many runs at once.
- `sizes`: a config's run count without planning it (`plan_size`), and the `MAX_RUNS` bound.
- `runs`: `plan` (units with their instance keys and run ids, `PlannedUnit`) and `Run`.
- `codes`: the fingerprint of the code a cell runs (`cell_code`), as rows record it.
- `resume`: what a result directory already holds for a plan, and what must be (re)done.

The config is read, never changed. Nothing here runs a strategy; a source is built only where
naming its instances needs it.
"""

from .cells import Cell, Unit, expand, label, resolved
from .codes import cell_code
from .ids import RunIds, run_id, run_params
from .resume import ResumeState, resume_state
from .runs import PlannedUnit, Run, counts, plan
from .sizes import MAX_RUNS, PlanSize, check_size, plan_size
from .sources import SOURCE_UNAVAILABLE, UNAVAILABLE, is_unavailable, unavailable_reason

__all__ = ["Cell", "Unit", "expand", "label", "resolved", "RunIds", "run_id", "run_params", "Run", "PlannedUnit",
           "plan", "counts", "PlanSize", "plan_size", "check_size", "MAX_RUNS", "UNAVAILABLE",
           "SOURCE_UNAVAILABLE", "unavailable_reason", "is_unavailable", "cell_code", "ResumeState", "resume_state"]
