"""Paired, interleaved A/B timing of benchmark cases in fresh processes (as asv continuous / pyperf).

Side A is the current tree, side B the reference: REF's exported tree, or in
the no-history mode the current tree again, timing each case's fixed
reference case (``BenchCase.reference``) instead. Every round starts one fresh
process per side; both set up and warm up their cases at the same time
(untimed), then the controller times them strictly one at a time: for each
pair, every case once on A and once on B, back to back, the order alternating
between pairs so drift within a pair cancels. Fast cases run several calls per
timing (calibrated on the warm-up, the same count on both sides): a timing
window lasts at least `WINDOW_SECONDS` of CPU, so a call of a few microseconds
is timed over thousands of calls, far above the clock's resolution. Both
processes of a round get the same string-hash seed (the round's number), so
set and dict layouts of one round match and differ between rounds, and both
are pinned to the same CPU (another each round).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Side", "ABResult", "run_ab", "WorkerError"]

WORKER = Path(__file__).with_name("worker.py")
# A timing window lasts at least WINDOW_SECONDS (fast cases loop); a timing is the fastest of
# enough windows to fill TIMING_SECONDS (at most MAX_REPEATS). On a busy machine the CPU time of a
# window swells when another process shares the core's caches; the fastest of six short windows
# is far less often disturbed than the fastest of three long ones (measured by gate_power.py).
WINDOW_SECONDS = 0.005
TIMING_SECONDS = 0.03
MAX_LOOPS = 100_000
MAX_REPEATS = 6
# Sides whose calibration calls differ by more than this factor are timed with their own calls per window.
SAME_LOOPS_WITHIN = 4.0


class WorkerError(RuntimeError):
    """A benchmark process could not start or died."""


@dataclass(frozen=True)
class Side:
    """What one side runs.

    Attributes:
        label: For messages ("current", a commit, "reference cases").
        root: Source tree to import packbench from (None: the installed package).
        case_map: Case name -> the case this side times in its place (no-history
            mode); None times each case itself.
        workdir: A user's project directory: first on ``sys.path`` (strategies named
            by import path) and the working directory (relative corpus paths), as
            ``python -m packbench`` run there would have it. None: neither.
    """

    label: str
    root: Path | None
    case_map: Callable[[str], str | None] | None = None
    workdir: Path | None = None

    def target(self, name: str) -> str | None:
        """The case this side runs for case `name`."""
        return name if self.case_map is None else self.case_map(name)


@dataclass
class ABResult:
    """Timings and quality figures of both sides.

    Attributes:
        a: Case -> seconds per pair on side A.
        b: Case -> seconds per pair on side B (same length as ``a``).
        quality_a: Case -> quality figures on A (first round).
        quality_b: Case -> quality figures on B.
        errors_a: Case -> error message on A.
        errors_b: Case -> error message on B.
        unstable: Cases whose quality figures differed between rounds on one side.
        only_a: Cases that exist on A only; only_b likewise.
        references: Cases that are fixed reference implementations (not timed).
        loops: Case -> (calls per window, windows per timing) of A and of B.
        kernels_a: Each optional C kernel of A's tree -> "C", "fallback" or "absent" (`worker.kernel_report`;
            empty for a tree whose worker does not say); kernels_b likewise.
    """

    a: dict[str, list[float]] = field(default_factory=dict)
    b: dict[str, list[float]] = field(default_factory=dict)
    quality_a: dict[str, Any] = field(default_factory=dict)
    quality_b: dict[str, Any] = field(default_factory=dict)
    errors_a: dict[str, str] = field(default_factory=dict)
    errors_b: dict[str, str] = field(default_factory=dict)
    unstable: set[str] = field(default_factory=set)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    loops: dict[str, tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=dict)
    references: set[str] = field(default_factory=set)
    kernels_a: dict[str, str] = field(default_factory=dict)
    kernels_b: dict[str, str] = field(default_factory=dict)


class _Worker:
    def __init__(self, side: Side, suite_file: Path | None, full: bool, log_dir: Path, tag: str, hash_seed: int = 0):
        # -s -P, and no PYTHON* variables but the hash seed: as isolated as -I, which would ignore the seed.
        cmd = [sys.executable, "-s", "-P", str(WORKER)]
        if side.root is not None:
            cmd += ["--root", str(side.root)]
        if suite_file is not None:
            cmd += ["--suite-file", str(suite_file)]
        if full:
            cmd.append("--full")
        if side.workdir is not None:
            cmd += ["--path", str(side.workdir)]
        self.label = side.label
        self.log = log_dir / f"{tag}.log"
        self._log_fh = self.log.open("w")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env["PYTHONHASHSEED"] = str(hash_seed)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log_fh,
                                     text=True, bufsize=1, cwd=side.workdir, env=env)
        hello = self.recv()
        if "fatal" in hello:
            self.close()
            raise WorkerError(f"{side.label}: cannot load the benchmark suite: {hello['fatal']}")
        self.kernels: dict[str, str] = dict(hello.get("kernels") or {})

    def send(self, msg: dict[str, Any]) -> None:
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerError(f"{self.label}: benchmark process died ({exc}); {self._tail()}") from exc

    def recv(self) -> dict[str, Any]:
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise WorkerError(f"{self.label}: benchmark process exited ({self.proc.returncode}); {self._tail()}")
        return json.loads(line)

    def _tail(self) -> str:
        self._log_fh.flush()
        lines = self.log.read_text(errors="replace").strip().splitlines()[-8:]
        return "its last output:\n" + "\n".join(lines) if lines else "no output"

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send({"op": "quit"})
                self.proc.wait(timeout=30)
            except (WorkerError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._log_fh.close()


def _calibrate(seconds: float) -> tuple[int, int]:
    """(calls per window, windows per timing) for a case taking `seconds` per call."""
    loops = max(1, min(MAX_LOOPS, math.ceil(WINDOW_SECONDS / max(seconds, 1e-7))))
    return loops, max(1, min(MAX_REPEATS, math.ceil(TIMING_SECONDS / (loops * max(seconds, 1e-7)))))


def run_ab(a: Side, b: Side, cases: Sequence[str] | None = None, rounds: int = 2, pairs: int = 5,
           full: bool = False, suite_file: Path | None = None, skip_references: bool = True,
           progress: Callable[[str], None] | None = None, first_round: int = 0) -> ABResult:
    """Time the cases on both sides, interleaved.

    Args:
        a: The side under test.
        b: The side it is compared with.
        cases: Case names to run (None: every case of A's suite).
        rounds: Fresh process pairs.
        pairs: Pairs per case in each round.
        full: The full suite instead of the quick one.
        suite_file: A Python file with ``build_suite(quick)`` used instead of the tree's suite.
        skip_references: Leave the fixed reference cases out on A (they measure the machine).
        progress: Called with a line per step.
        first_round: Number of the first round (its hash seed and CPU; an odd one also swaps which
            side goes first): a pass that must be independent of an earlier one (the gate's
            confirmation) starts past that one's rounds.

    Returns:
        The timings (``rounds * pairs`` per timed case present on both sides) and quality figures.

    Raises:
        WorkerError: A side could not load its suite, or a process died.
        ValueError: `rounds` or `pairs` below 1.
    """
    if rounds < 1 or pairs < 1:
        raise ValueError(f"rounds and pairs must be >= 1, got {rounds} and {pairs}")
    say = progress or (lambda _msg: None)
    res = ABResult()
    with tempfile.TemporaryDirectory(prefix="packbench-ab-") as logs:
        for rnd in range(first_round, first_round + rounds):
            wa = _Worker(a, suite_file, full, Path(logs), f"a{rnd}", rnd)
            try:
                wb = _Worker(b, suite_file, full, Path(logs), f"b{rnd}", rnd)
            except BaseException:
                wa.close()
                raise
            if rnd == first_round:
                res.kernels_a, res.kernels_b = wa.kernels, wb.kernels
            try:
                _share_one_cpu(wa, wb, rnd)
                names = _prepare_round(wa, wb, a, b, cases, rnd - first_round, res, say, skip_references)
                work = [n for n in names if n not in res.references]
                for p in range(pairs):
                    say(f"round {rnd - first_round + 1}/{rounds}, pair {p + 1}/{pairs}: timing {len(work)} cases")
                    for k, name in enumerate(work):
                        order = (wa, wb) if (rnd * pairs + p + k + first_round) % 2 == 0 else (wb, wa)
                        times = {}
                        for w in order:
                            side = a if w is wa else b
                            loops, repeats = res.loops[name][0 if w is wa else 1]
                            w.send({"op": "time", "case": side.target(name), "loops": loops, "repeats": repeats})
                            times[w] = w.recv()["seconds"]
                        res.a.setdefault(name, []).append(times[wa])
                        res.b.setdefault(name, []).append(times[wb])
            finally:
                wa.close()
                wb.close()
    return res


def _share_one_cpu(wa: _Worker, wb: _Worker, rnd: int) -> None:
    """Pin both processes of a round to one CPU (another each round) where the platform allows it.

    They time strictly in turn, so they never compete; on different CPUs one side would keep the
    neighbours of its CPU (another process's cache traffic) for its whole life, a bias no number
    of pairs averages out.
    """
    if not hasattr(os, "sched_setaffinity"):
        return
    try:
        allowed = sorted(os.sched_getaffinity(0))
        cpu = allowed[rnd % len(allowed)]
        for w in (wa, wb):
            os.sched_setaffinity(w.proc.pid, {cpu})
    except OSError:  # a process that already exited, or a container that forbids it
        pass


def _prepare_round(wa: _Worker, wb: _Worker, a: Side, b: Side, cases: Sequence[str] | None, rnd: int,
                   res: ABResult, say: Callable[[str], None], skip_references: bool) -> list[str]:
    """Set up and warm up both sides at once; record quality; returns the cases both can time."""
    say(f"round {rnd + 1}: setting up and warming up ({wa.label} and {wb.label} in parallel)")
    wanted_a = list(cases) if cases is not None else None
    wa.send({"op": "prepare", "cases": wanted_a, "skip_references": skip_references})
    wanted_b = None if wanted_a is None else sorted({t for n in wanted_a if (t := b.target(n)) is not None})
    wb.send({"op": "prepare", "cases": wanted_b, "skip_references": b.case_map is None})
    got_a, got_b = wa.recv(), wb.recv()
    names = list(got_a["cases"]) if cases is None else [n for n in cases if n in got_a["cases"]]
    both = []
    for name in names:
        ra = got_a["cases"][name]
        if ra.get("reference"):
            res.references.add(name)
        if ra.get("skipped"):
            continue
        rb = got_b["cases"].get(b.target(name) or "")
        if "error" in ra:
            res.errors_a[name] = ra["error"]
        elif rnd == 0:
            res.quality_a[name] = ra["quality"]
        elif res.quality_a.get(name) != ra["quality"]:
            res.unstable.add(name)
        if rb is None:
            if rnd == 0 and name not in res.only_a:
                res.only_a.append(name)
            continue
        if "error" in rb:
            res.errors_b[name] = rb["error"]
        elif rnd == 0:
            res.quality_b[name] = rb["quality"]
        elif res.quality_b.get(name) != rb["quality"] and b.case_map is None:
            res.unstable.add(name)
        if "error" in ra or "error" in rb:
            continue
        if rnd == 0:
            fast, slow = sorted((ra["seconds"], rb["seconds"]))
            if b.case_map is None and slow <= SAME_LOOPS_WITHIN * fast:  # alike: the same calls per timing
                res.loops[name] = (_calibrate(fast),) * 2
            else:  # a different case on B, or a side many times slower: each side its own count
                # (with the fast side's count, a 1000x slower side would take minutes per timing)
                res.loops[name] = (_calibrate(ra["seconds"]), _calibrate(rb["seconds"]))
        if name in res.loops:
            both.append(name)
    if rnd == 0 and b.case_map is None:
        res.only_b = [n for n in got_b.get("all", []) if n not in got_a.get("all", [])]
    return both
