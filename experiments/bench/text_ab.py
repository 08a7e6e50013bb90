"""Default `pack` speed side by side with another checkout: one interleaved run, CPU and wall, two workloads.

``python -m packbench.experiments.bench.text_speed --against DIR`` (or
`speed_table` directly). Each side is one long-lived child process: this
tree's code, and the code that ``import packbench`` finds with DIR first on
``PYTHONPATH`` (e.g. a ``git archive`` copy of the previous main whose
package-dir folders are linked under ``packbench/``), run by `python` (default:
this interpreter). Both read the same candidates, written once to a pickle of
plain tuples, so the old code needs no workload of its own. In every round each
case runs once on each side, the sides alternating first, and the child reports
its own CPU seconds (``time.process_time``) and wall seconds; the table gives
medians and the ratio of medians. Every case runs once untimed before the
rounds (warm caches, compiled kernels loaded). The single-pass memory bound is
the bytes of the texts over this machine's read bandwidth (best of a few passes
over a 256 MiB array).
"""

from __future__ import annotations

import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["CHILD", "read_bandwidth", "speed_table"]

# The child: loads the candidates, then runs "<workload> <n> <dedupe>" cases read from stdin.
CHILD = r"""
import json, pickle, sys, time
from packbench.algorithms import Item, pack
try:
    from packbench.algorithms.dedupe.kernels import warm_up
    warm_up()
except ImportError:
    pass
with open(sys.argv[1], "rb") as fh:
    sets = {k: [Item(*t) for t in v] for k, v in pickle.load(fh).items()}
from packbench.algorithms.dedupe.exact import kept_flags_indexed
for line in sys.stdin:
    workload, n, dedupe = line.split()
    items = sets[workload, int(n)]
    c, w = time.process_time(), time.perf_counter()
    if dedupe == "join":
        kept_flags_indexed(items, [], 0.8)
    else:
        pack(items, 4096, near_dup=0.8 if dedupe == "on" else None)
    print(json.dumps([time.process_time() - c, time.perf_counter() - w]), flush=True)
"""


def read_bandwidth(mib: int = 256, passes: int = 5) -> float:
    """Bytes per second of one read pass over a large array (best of `passes`)."""
    arr = np.ones(mib << 17, dtype=np.uint64)
    best = float("inf")
    for _ in range(passes):
        start = time.perf_counter()
        arr.max()
        best = min(best, time.perf_counter() - start)
    return arr.nbytes / best


def _load_average() -> str:
    """The load averages, printed beside the figures: on a shared machine they say how busy it was."""
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except (AttributeError, OSError):  # not on every platform
        return "n/a"


def _child(python: str, pythonpath: str | None, data: Path) -> subprocess.Popen:
    env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([pythonpath, *filter(None, [env.get("PYTHONPATH")])])
    else:
        env.pop("PYTHONPATH", None)
    return subprocess.Popen([python, "-c", CHILD, str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env, cwd=tempfile.gettempdir())


def _ask(proc: subprocess.Popen, case: str) -> tuple[float, float]:
    proc.stdin.write(case + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"the benchmark child stopped on case {case!r} (exit code {proc.wait()})")
    cpu, wall = json.loads(line)
    return cpu, wall


def speed_table(against: str, sizes=(1_000, 10_000, 100_000), rounds: int = 5,
                python: str | None = None, seed: int = 3) -> list[str]:
    """The side-by-side table's lines: this tree vs the code at `against`, per workload, size and dedupe.

    Per workload and size three cases: ``pack`` with the default dedupe ("on"), without ("off"), and the
    default dedupe's join alone ("join": `exact.kept_flags_indexed` at 0.8, no pinned items).

    Args:
        against: A folder put first on ``PYTHONPATH`` for the other side.
        sizes: Candidate counts.
        rounds: Timed rounds per case (medians reported).
        python: The other side's interpreter (default: this one).
        seed: The workloads' seed (3 is the one the C join was tuned on; others are held out).

    Returns:
        Printable lines: the table, the 100k / 10k growth and the memory bound.
    """
    from .workloads import random_candidates, realistic_candidates

    sets = {}
    for n in sizes:
        sets["realistic", n] = realistic_candidates(n, seed=seed)
        sets["easy", n] = random_candidates(n, seed=seed)
    text_bytes = {key: sum(len(it.text.encode("utf-8", "surrogatepass")) for it in v) for key, v in sets.items()}
    load_before = _load_average()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "sets.pkl"
        with open(data, "wb") as fh:
            pickle.dump({k: [(it.id, it.text, it.score, it.tokens) for it in v] for k, v in sets.items()}, fh)
        del sets
        sides = {"new": _child(sys.executable, None, data), "old": _child(python or sys.executable, against, data)}
        cases = [f"{w} {n} {d}" for w in ("realistic", "easy") for n in sizes for d in ("on", "off", "join")]
        times: dict[tuple[str, str], list[tuple[float, float]]] = {(s, c): [] for s in sides for c in cases}
        try:
            for case in cases:  # untimed first call of each case on each side
                for proc in sides.values():
                    _ask(proc, case)
            for r in range(rounds):
                for case in cases:
                    order = ("new", "old") if r % 2 == 0 else ("old", "new")
                    for side in order:
                        times[side, case].append(_ask(sides[side], case))
        finally:
            for proc in sides.values():
                proc.stdin.close()
                proc.wait()
    med = {key: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for key, v in times.items()}
    lines = [f"{'workload':>9} {'n':>7} {'dedupe':>6} | {'new CPU ms':>10} {'old CPU ms':>10} {'old/new':>7} | "
             f"{'new wall ms':>11} {'old wall ms':>11} {'old/new':>7}",
             "(dedupe on / off: pack at budget 4096; join: the default dedupe's join alone, kept_flags_indexed)"]
    for case in cases:
        w, n, d = case.split()
        (nc, nw), (oc, ow) = med["new", case], med["old", case]
        lines.append(f"{w:>9} {int(n):>7,} {d:>6} | {nc * 1e3:10.1f} {oc * 1e3:10.1f} {oc / nc:6.1f}x | "
                     f"{nw * 1e3:11.1f} {ow * 1e3:11.1f} {ow / nw:6.1f}x")
    bandwidth = read_bandwidth()
    lines.append(f"machine load average (1 / 5 / 15 min): {load_before} before the rounds, {_load_average()} after")
    for w in ("realistic", "easy"):
        if 10_000 in sizes and 100_000 in sizes:
            for d, what in (("on", "pack with dedupe"), ("join", "the join alone")):
                growth = {s: med[s, f"{w} 100000 {d}"][0] / med[s, f"{w} 10000 {d}"][0] for s in sides}
                lines.append(f"{w}: CPU growth 100k / 10k, {what}: new {growth['new']:.1f}x, old {growth['old']:.1f}x")
        big = max(sizes)
        bound = text_bytes[w, big] / bandwidth
        lines.append(f"{w} {big:,}: {text_bytes[w, big] / 1e6:.0f} MB of text; single-pass memory bound "
                     f"{bound * 1e3:.1f} ms (read bandwidth {bandwidth / 1e9:.1f} GB/s); new pack "
                     f"{med['new', f'{w} {big} on'][0] / bound:.0f}x the bound, old "
                     f"{med['old', f'{w} {big} on'][0] / bound:.0f}x; the join alone: new "
                     f"{med['new', f'{w} {big} join'][0] / bound:.0f}x, old {med['old', f'{w} {big} join'][0] / bound:.0f}x")
    return lines
