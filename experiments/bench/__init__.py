"""`packbench bench`: a fixed benchmark suite and a regression gate that holds on any machine.

Modules: `suite` (the cases), `workloads` (inputs), `reference` (seed 000's
pack, seed 001's pure-Python DP, a regex word count: fixed references),
`timing` and `run` (the in-process table), `worker` and `abtest` (paired,
interleaved timing of two trees in fresh processes), `stats` (median ratio and
its interval), `revisions` (which REF, its tree), `compare` (verdicts),
`check` (the ``--check`` modes), `baseline` (the committed figures),
`ci_output` (markdown and JUnit), `portfolio` (the exact solvers' table).
"""

from .run import format_results, run_suite
from .suite import BenchCase, build_suite

__all__ = ["BenchCase", "build_suite", "format_results", "run_suite"]
