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
rounds (warm caches, compiled kernels loaded).

Two single-pass bounds are printed beside `pack` at the largest size:

- the streaming bound (the hardware floor): the texts' UTF-8 bytes over this
  machine's read bandwidth, the best of a few numpy passes over one contiguous
  256 MiB array (`read_bandwidth`); no pass over separate str objects gets
  near it;
- the faithful bound: the CPU time of `text_pass.text_pass`, a C pass that
  reads every byte of every text once from the very list of items `pack` is
  given (each item's ``text`` str, its 1, 2 or 4 bytes a character), timed in
  this tree's child once per round right after that size's join case, so its
  caches are in the state of the timed calls; median and best of the rounds.
  Without the C extension it is not measured (its Python answer is no bound).
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
    if dedupe == "pass":  # asked of this tree's side only: the old tree may have no such pass
        from packbench.experiments.bench.text_pass import native_text_pass, text_pass
        c, w = time.process_time(), time.perf_counter()
        _, read = text_pass(items)
        print(json.dumps([time.process_time() - c, time.perf_counter() - w, read, native_text_pass()]), flush=True)
        continue
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


def _ask(proc: subprocess.Popen, case: str) -> list:
    """The child's answer to one case: [CPU seconds, wall seconds] (and, for a pass, bytes read, native)."""
    proc.stdin.write(case + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"the benchmark child stopped on case {case!r} (exit code {proc.wait()})")
    return json.loads(line)


def _bound_lines(w: str, n: int, utf8_bytes: int, bandwidth: float, med: dict, passes: list[list]) -> list[str]:
    """The two single-pass bounds of workload `w` at `n` candidates and `pack`'s / the join's ratios to them."""
    stream = utf8_bytes / bandwidth
    pack_on, join = f"{w} {n} on", f"{w} {n} join"

    def ratios(bound: float) -> str:
        return (f"new pack {med['new', pack_on][0] / bound:.0f}x, old {med['old', pack_on][0] / bound:.0f}x; "
                f"the join alone new {med['new', join][0] / bound:.0f}x, old {med['old', join][0] / bound:.0f}x")

    lines = [f"{w} {n:,}: {utf8_bytes / 1e6:.1f} MB of text (UTF-8); new pack {med['new', pack_on][0] * 1e3:.1f} ms "
             f"CPU, old {med['old', pack_on][0] * 1e3:.1f} ms (medians)",
             f"  streaming bound (one numpy read of a contiguous array, {bandwidth / 1e9:.1f} GB/s, the hardware "
             f"floor): {stream * 1e3:.1f} ms; {ratios(stream)}"]
    read, native = passes[0][2], passes[0][3]
    if not native:
        lines.append("  faithful single-pass bound: not measured (the C extension is not built)")
        return lines
    cpu = sorted(t[0] for t in passes)
    faithful = statistics.median(cpu)
    lines.append(f"  faithful single-pass bound (C: every byte of every item's text str once, {read / 1e6:.1f} MB as "
                 f"the strs hold them): median {faithful * 1e3:.1f} ms CPU, best {cpu[0] * 1e3:.1f} ms "
                 f"({read / faithful / 1e9:.1f} GB/s) over {len(cpu)} rounds; {ratios(faithful)}")
    return lines


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
        Printable lines: the table, the 100k / 10k growth and, at the largest size, the streaming and
        the faithful single-pass bounds with `pack`'s (and the join's) ratios to each.
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
        big = max(sizes)
        cases = [f"{w} {n} {d}" for w in ("realistic", "easy") for n in sizes for d in ("on", "off", "join")]
        # The faithful bound's pass, this side only, right after the largest size's join.
        passes = {w: f"{w} {big} pass" for w in ("realistic", "easy")}
        schedule = []
        for case in cases:
            schedule.append(case)
            w, n, d = case.split()
            if int(n) == big and d == "join":
                schedule.append(passes[w])
        times: dict[tuple[str, str], list[list]] = {(s, c): [] for s in sides for c in cases}
        times.update({("new", p): [] for p in passes.values()})
        try:
            for case in schedule:  # untimed first call of each case on each side
                for side, proc in sides.items():
                    if (side, case) in times:
                        _ask(proc, case)
            for r in range(rounds):
                for case in schedule:
                    order = ("new", "old") if r % 2 == 0 else ("old", "new")
                    for side in order:
                        if (side, case) in times:
                            times[side, case].append(_ask(sides[side], case))
        finally:
            for proc in sides.values():
                proc.stdin.close()
                proc.wait()
    med = {key: (statistics.median(t[0] for t in v), statistics.median(t[1] for t in v)) for key, v in times.items()}
    lines = [f"{'workload':>9} {'n':>7} {'dedupe':>6} | {'new CPU ms':>10} {'old CPU ms':>10} {'old/new':>7} | "
             f"{'new wall ms':>11} {'old wall ms':>11} {'old/new':>7}",
             "(dedupe on / off: pack at budget 4096; join: the default dedupe's join alone, kept_flags_indexed)"]
    for case in cases:  # the table: pack and the join (the passes are in the bound lines)
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
        lines += _bound_lines(w, big, text_bytes[w, big], bandwidth, med, times["new", passes[w]])
    return lines
