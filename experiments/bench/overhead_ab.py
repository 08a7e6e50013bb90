"""`pack`'s fixed overhead on a tiny input, side by side with another checkout, in one interleaved run.

Used by ``python -m packbench.experiments.bench.diversity_speed --against DIR``.
Each side is a long-lived child process: this tree's code and the code that
``import packbench`` finds with DIR first on ``PYTHONPATH`` (a ``git archive``
copy of the previous main with its package-dir folders linked under
``packbench/``). The input is 5 items with 16-dimensional embeddings, made in
the child from a seed (no data files), so what is timed is the work every call
pays whatever its size: checks, resolution, routing, bookkeeping. A sample is
the mean CPU (`time.process_time`) of 200 calls; the sides alternate first
each round, and the table gives the medians and their ratio.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

__all__ = ["CASES", "overhead_table"]

# Case name -> pack's keyword arguments (after items, budget, near_dup).
CASES = {"default (jaccard dedupe)": ("0.8", {}),
         "mmr cosine, dedupe off": ("None", {"strategy": "mmr", "similarity": "cosine"}),
         "dpp cosine, dedupe off": ("None", {"strategy": "dpp", "similarity": "cosine"})}

CHILD = r"""
import json, sys, time
import numpy as np
from packbench.algorithms import Item, pack
rng = np.random.default_rng(7)
words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
items = [Item(f"d{k}", " ".join(rng.choice(words, 12)), float(rng.random()), int(rng.integers(20, 60)),
              embedding=rng.standard_normal(16)) for k in range(5)]
for line in sys.stdin:
    near_dup, kwargs = json.loads(line)
    near_dup = None if near_dup == "None" else float(near_dup)
    pack(items, 100, near_dup, **kwargs)
    start = time.process_time()
    for _ in range(200):
        pack(items, 100, near_dup, **kwargs)
    print(json.dumps((time.process_time() - start) / 200), flush=True)
"""


def _child(pythonpath: str | None) -> subprocess.Popen:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([pythonpath, *filter(None, [env.get("PYTHONPATH")])])
    else:
        env.pop("PYTHONPATH", None)
    return subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env, cwd=tempfile.gettempdir())


def _ask(proc: subprocess.Popen, case: tuple) -> float:
    proc.stdin.write(json.dumps(case) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"the overhead child stopped on case {case!r} (exit code {proc.wait()})")
    return float(json.loads(line))


def overhead_table(against: str, rounds: int = 7) -> list[str]:
    """Lines of the table: per case, CPU microseconds per call here and at `against`, and the ratio.

    Args:
        against: A folder put first on ``PYTHONPATH`` for the other side.
        rounds: Samples per case and side (medians reported).
    """
    sides = {"new": _child(None), "old": _child(against)}
    samples = {(s, c): [] for s in sides for c in CASES}
    try:
        for r in range(rounds + 1):  # round 0 untimed
            for name, case in CASES.items():
                for side in (("new", "old") if r % 2 else ("old", "new")):
                    t = _ask(sides[side], case)
                    if r:
                        samples[side, name].append(t)
    finally:
        for proc in sides.values():
            proc.stdin.close()
            proc.wait()
    lines = [f"{'case':<26} {'new us':>8} {'old us':>8} {'new/old':>8}"]
    for name in CASES:
        new, old = (statistics.median(samples[s, name]) for s in ("new", "old"))
        lines.append(f"{name:<26} {1e6 * new:>8.1f} {1e6 * old:>8.1f} {new / old:>8.2f}")
    return lines
