"""Run a packbench tree's `exact` in a worker process, for paired before/after tables.

An older tree (e.g. ``git archive ebaccd7 | tar -x -C /tmp/base``) is not installed; the
worker imports it by a throwaway package folder whose ``packbench`` links to the tree's
folders as pyproject's package-dir maps them. The worker reads one instance per line
(JSON) and answers with exact's CPU seconds, proof, score and stage, so the caller can
interleave two trees' runs on the same instances. Both sides of a table run in such workers
(`hard_vs`): timed in the caller, the side in the fuller process (pandas, the families, the
tables) read 10-20% slower at n = 100-200 than the same code in a worker (an A/A run).
Each call gets a fresh `Problem` built as `pack` builds it: its score and token arrays given
(`Problem.of_columns`, where the tree has it), untimed, as `pack`'s own pass reads them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from packbench.algorithms import Problem

__all__ = ["BeforeWorker", "this_tree"]

# pyproject's package-dir: import name below packbench -> folder of the tree.
_LAYOUT = {"algorithms": "algorithms", "experiments": "experiments", "configs": "configs",
           "baselines": "results/bench"}

_WORKER = r"""
import json, sys, time
# An editable install of the current tree hooks the import system ahead of sys.path: unhook it.
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", repr(f)).lower()
                    and "editable" not in repr(f).lower()]
import numpy as np
import packbench
from packbench.algorithms import STRATEGIES, Item, Problem


def frozen(values, dtype):
    arr = np.array(values, dtype=dtype)
    arr.setflags(write=False)
    return arr


# Load what the tree loads lazily (compiled kernels, OR-Tools) before any timed call, as the caller does.
getattr(STRATEGIES["exact"], "warm_up", lambda: None)()
from ortools.algorithms.python import knapsack_solver
from ortools.sat.python import cp_model
print(json.dumps({"ready": packbench.__file__}), flush=True)
for line in sys.stdin:
    job = json.loads(line)
    cands = tuple(Item(f"i{k}", "", float(s), int(w)) for k, (w, s) in enumerate(zip(job["w"], job["p"])))
    if hasattr(Problem, "of_columns"):
        prob = Problem.of_columns(cands, job["room"], (), frozen(job["p"], np.float64), frozen(job["w"], np.int64))
    else:
        prob = Problem(cands, job["room"])
    start = time.process_time()
    sel = STRATEGIES["exact"](time_limit=job["limit"]).select(prob)
    cpu = time.process_time() - start
    print(json.dumps({"cpu": cpu, "optimal": bool(sel.optimal), "score": sum(cands[k].score for k in sel.indices),
                      "solver": sel.info.get("solver", ""), "tie_break": sel.info.get("tie_break", "-")}), flush=True)
"""


def this_tree() -> Path | None:
    """The checkout this process imports packbench from, or None (an installed wheel has no tree)."""
    import packbench

    root = Path(packbench.__file__).resolve().parent.parent
    return root if (root / "packbench" / "__init__.py").is_file() and (root / "algorithms").is_dir() else None


class BeforeWorker:
    """A worker process running `exact` from the packbench tree at `tree`.

    Args:
        tree: Root of an extracted packbench tree (the folder holding pyproject.toml).

    Raises:
        ValueError: `tree` holds no packbench tree.
    """

    def __init__(self, tree: str | os.PathLike) -> None:
        root = Path(tree).resolve()
        if not (root / "packbench" / "__init__.py").is_file() or not (root / "algorithms").is_dir():
            raise ValueError(f"--before {str(tree)!r}: not a packbench tree (no packbench/__init__.py and algorithms/)")
        self._dir = tempfile.mkdtemp(prefix="packbench-before-")
        pkg = Path(self._dir) / "packbench"
        shutil.copytree(root / "packbench", pkg)
        for name, folder in _LAYOUT.items():
            if (root / folder).is_dir():
                (pkg / name).symlink_to(root / folder, target_is_directory=True)
        env = {**os.environ, "PYTHONPATH": self._dir}
        self._proc = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, env=env, cwd=self._dir)
        hello = json.loads(self._proc.stdout.readline() or "{}")
        if not str(hello.get("ready", "")).startswith(self._dir):
            self.close()
            raise ValueError(f"--before {str(tree)!r}: the worker imported packbench from {hello.get('ready')!r}")

    def solve(self, problem: Problem, limit: float) -> dict[str, Any]:
        """{cpu, optimal, score, solver} of the older `exact` on `problem`."""
        job = {"w": [c.tokens for c in problem.candidates], "p": [c.score for c in problem.candidates],
               "room": problem.room, "limit": limit}
        self._proc.stdin.write(json.dumps(job) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError("the before-worker died")
        return json.loads(line)

    def close(self) -> None:
        """Stop the worker and remove its package folder."""
        if self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> BeforeWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
