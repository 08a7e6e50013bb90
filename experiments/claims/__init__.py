"""`packbench claims`: reproduce published approximation claims, with adversarial search.

Modules: `core` (cases, exact optima, tolerance), `adversarial` (the seeded
local search), `checks` (claim rows), one module per claim group
(`knapsack`, `submodular`, `tight`, `mmr`, `minhash`, `positions`); `tight` (the structured, certified coverage-chain family and its search), `measures` (every
measure a saved instance can name, and `rerun`), `report` and `run`.
"""

from .core import TOL, ClaimResult, ClaimViolation
from .measures import MEASURES, rerun
from .run import GROUPS, run_claims

__all__ = ["TOL", "ClaimResult", "ClaimViolation", "MEASURES", "rerun", "GROUPS", "run_claims"]
