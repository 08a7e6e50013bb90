"""`packbench bench`: a fixed benchmark suite with a regression check against a committed baseline.

Modules: `reference` (seed 000's pack and seed 001's pure-Python DP, timed side
by side), `workloads` (inputs), `suite` (the cases), `timing`, `run` (results
document and table), `compare` (the ``--check`` logic), `portfolio` (the exact
solvers' table on Pisinger classes).
"""

from .compare import CheckRow, compare_runs, format_check
from .run import format_results, run_suite
from .suite import Case, build_suite

__all__ = ["Case", "CheckRow", "build_suite", "compare_runs", "format_check", "format_results", "run_suite"]
