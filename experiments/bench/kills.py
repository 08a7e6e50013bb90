"""SIGKILL a `packbench run` over and over while plug-ins exit, hang and raise; show that nothing is lost.

``python -m packbench.experiments.bench.kills [--kills 50] [--workers 2]`` writes a config with three
built-in strategies and four rogue plug-ins (one calls ``sys.exit``, one ``os._exit``, one hangs, one
raises), runs it once uninterrupted as the reference, then starts it again and again in another
directory, killing the whole run (driver and workers, ``kill -9``) at a random moment each time, and
finally lets it finish. It prints, and checks: the rows of the built-in strategies lost (0 expected),
duplicated or torn (0), the final rows that differ from the uninterrupted run (0, timings aside), and
the rows of the plug-ins (each an ``error`` row naming the cause, recorded once so a resume does not
repeat the crash). Exit status 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["main"]

CONFIG = '''
name = "kills"
repeats = 1
seeds = {{ start = 0, stop = {seeds} }}
budgets = [0.3, 0.6]
near_dup = "off"
reference = "exact_dp"
plots = []
[[sources]]
name = "pisinger"
cls = "strongly_correlated"
n = 40
R = 1000
[[strategies]]
name = "greedy"
[[strategies]]
name = "exact_dp"
[[strategies]]
name = "prefix"
[[strategies]]
name = "rogue_plugins:exits"
[[strategies]]
name = "rogue_plugins:kills"
[[strategies]]
name = "rogue_plugins:hangs"
[[strategies]]
name = "rogue_plugins:raises"
'''

BUILTINS = ("greedy", "exact_dp", "prefix")
NOT_RESULTS = ("seconds_median", "seconds_p95", "started_at", "git_commit", "git_dirty")


def _command(cfg: Path, out: Path, workers: int, timeout: float) -> list[str]:
    return [sys.executable, "-m", "packbench", "run", str(cfg), "--out", str(out), "--workers", str(workers),
            "--run-timeout", f"{timeout:g}", "--no-progress", "--yes"]


def _rows(out: Path) -> tuple[dict[str, dict], int, int]:
    """(rows by run id without timings, duplicated ids, unreadable lines) of runs.jsonl."""
    rows: dict[str, dict] = {}
    dup = torn = 0
    path = out / "runs.jsonl"
    if not path.exists():
        return rows, 0, 0
    for line in path.read_bytes().split(b"\n"):
        if not line:
            continue
        try:
            row = json.loads(line)
        except ValueError:
            torn += 1
            continue
        if row["run_id"] in rows:
            dup += 1
        rows[row["run_id"]] = {k: v for k, v in row.items() if k not in NOT_RESULTS}
    return rows, dup, torn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=60, help="seeds of the sweep (14 runs each)")
    parser.add_argument("--run-timeout", type=float, default=1.5, help="per-run limit (the hang costs this)")
    parser.add_argument("--max-wait", type=float, default=8.0, help="longest wait before a kill (seconds)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill times")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="packbench-kills-"))
    # The plug-ins as a user's module, outside packbench (a copy of `rogue_plugins`).
    (work / "rogue_plugins.py").write_text(Path(__file__).with_name("rogue_plugins.py").read_text())
    cfg = work / "kills.toml"
    cfg.write_text(CONFIG.format(seeds=args.seeds))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work), os.environ.get("PYTHONPATH", "")])}

    start = time.monotonic()
    ref = subprocess.run(_command(cfg, work / "reference", args.workers, args.run_timeout), env=env, cwd=work,
                         check=False, capture_output=True, text=True)
    if ref.returncode != 0:
        print(ref.stderr, file=sys.stderr)
        return 1
    reference, _, _ = _rows(work / "reference")
    print(f"uninterrupted run: {len(reference)} rows in {time.monotonic() - start:.1f} s")

    out = work / "killed"
    lost_max = dup_total = torn_total = 0
    kills = progress_kills = 0
    for _ in range(args.kills):
        before, _, _ = _rows(out)
        proc = subprocess.Popen(_command(cfg, out, args.workers, args.run_timeout), env=env, cwd=work,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(rng.uniform(1.0, args.max_wait))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the driver and its workers, as an OOM killer or kill -9 would
            proc.wait()
            kills += 1
        after, dup, torn = _rows(out)
        progress_kills += len(after) > len(before) and proc.returncode != 0
        lost = sum(1 for rid in before if rid not in after)  # a row once written never goes away
        lost_max = max(lost_max, lost)
        dup_total += dup
        torn_total += torn
        if proc.returncode == 0:
            break
    before_final, _, _ = _rows(out)
    final = subprocess.run(_command(cfg, out, args.workers, args.run_timeout), env=env, cwd=work,
                           check=False, capture_output=True, text=True)
    rows, dup, torn = _rows(out)
    builtin_ids = {rid for rid, r in reference.items() if r["strategy"] in BUILTINS}
    missing = sum(1 for rid in builtin_ids if rid not in rows)
    differ = sum(1 for rid in builtin_ids if rid in rows and rows[rid] != reference[rid])
    rogue = [r for r in rows.values() if r["strategy"] not in BUILTINS]
    rogue_statuses = sorted({(r["strategy"], r["status"]) for r in rogue})
    plugin_differ = sum(1 for r in rogue if (r["status"], r["reason"]) != (reference[r["run_id"]]["status"],
                                                                           reference[r["run_id"]]["reason"]))
    print(f"kills: {kills} SIGKILLs of the whole run (driver and workers) after 1-{args.max_wait:g} s each; "
          f"{len(before_final)} of {len(reference)} rows were on disk when they stopped, {progress_kills} kills "
          f"came after new rows had been written; then one run to the end (exit {final.returncode})")
    print(f"built-in rows: {len(builtin_ids)} expected, {missing} missing, {differ} differing from the "
          f"uninterrupted run (timings aside)")
    print(f"rows lost by a kill (written, then gone): {lost_max}; duplicated: {dup_total + dup}; torn lines "
          f"repaired: {torn_total + torn}")
    print(f"plug-in rows: {len(rogue)} ({', '.join(f'{s}: {st}' for s, st in rogue_statuses)}); "
          f"{plugin_differ} differ in status or reason from the uninterrupted run")
    print(f"total rows {len(rows)} (uninterrupted: {len(reference)}); work folder {work.name}")
    ok = final.returncode == 0 and missing == differ == lost_max == dup == 0 and len(rows) == len(reference)
    ok = ok and all(st == "error" for _, st in rogue_statuses)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
