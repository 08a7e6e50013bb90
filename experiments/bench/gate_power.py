"""The user gate's power and false alarms, measured as a user meets them (`python -m packbench.experiments.bench.gate_power`).

Builds a user project outside any packbench checkout: its own git repository,
a JSONL corpus, three plain-function strategies that take about 0.005, 0.5 and
5 ms per call, and a 6-cell config (3 strategies x 2 budgets) with a ``[gate]``
table. The baseline is recorded from the clean commit ``base``; then each
scenario plants slowdowns in some strategies (a working-tree change, measured
in-process before the trials), runs ``packbench gate --against base`` the
given number of times and counts, per planted strategy, the runs that flag it,
and the cells of unplanted strategies that were flagged (false alarms). Cells
are timed independently, so one run can carry several planted strategies;
``clean`` changes nothing.
With ``--busy`` a CPU-bound loop runs beside the trials, as in CI on a shared
machine. The figures are printed and written to ``DIR/power.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["SCENARIOS", "make_project", "calibrate", "run_trials", "main"]

TARGETS_MS = {"fast": 0.005, "mid": 0.5, "slow": 5.0}
# name -> {strategy slowed: factor}; "clean" plants nothing.
SCENARIOS = {"clean": {}, "mixed": {"fast": 1.5, "mid": 1.5, "slow": 1.2}, "slow_1.5x": {"slow": 1.5}}

STRATEGIES = '''"""The project's own packers: density order, after {spin} iterations of other work."""

SPIN = {spin!r}


def _pick(items, budget, spin):
    for _ in range(spin):
        pass
    room, out = budget, []
    for it in sorted(items, key=lambda it: -it.score / it.tokens):
        if it.tokens <= room:
            out.append(it.id)
            room -= it.tokens
    return out


def fast(items, budget):
    return _pick(items, budget, SPIN["fast"])


def mid(items, budget):
    return _pick(items, budget, SPIN["mid"])


def slow(items, budget):
    return _pick(items, budget, SPIN["slow"])
'''

CONFIG = """name = "user_power"
seeds = [0]
repeats = 1
budgets = [0.3, 0.6]
near_dup = [0.8]
reference = "exact_dp"

[[sources]]
name = "jsonl"
path = "corpus.jsonl"

[[strategies]]
name = "strategies:fast"

[[strategies]]
name = "strategies:mid"

[[strategies]]
name = "strategies:slow"

[gate]
ratio_mean = 0.001
"""


def _corpus(n_records: int = 3, n_items: int = 8) -> str:
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi".split()
    lines = []
    for r in range(n_records):
        cands = [{"id": f"d{k}", "text": " ".join(words[(k * 3 + j + r) % len(words)] for j in range(6)) + f" {k}",
                  "score": round(1 + ((k * 37 + r * 11) % 17) / 3, 3), "tokens": 5 + (k * 7 + r) % 13}
                 for k in range(n_items)]
        lines.append(json.dumps({"id": f"q{r}", "query": f"question {r}", "candidates": cands}))
    return "\n".join(lines) + "\n"


def _git(project: Path, *args: str) -> str:
    out = subprocess.run(["git", "-c", "user.name=power", "-c", "user.email=power@example.invalid", *args],
                         cwd=project, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def _write_strategies(project: Path, spin: dict[str, int]) -> None:
    (project / "strategies.py").write_text(STRATEGIES.format(spin=spin))
    for cached in (project / "__pycache__").glob("strategies*"):
        cached.unlink()


def _time_function(project: Path, spin: dict[str, int], name: str, calls: int) -> float:
    """CPU ms per call of strategy `name` with `spin`, in a fresh process (the first corpus record)."""
    code = f"""
import json, time, sys
sys.path.insert(0, {str(project)!r})
from packbench.algorithms import Item
import strategies
strategies.SPIN.update({spin!r})
rec = json.loads(open({str(project / 'corpus.jsonl')!r}).readline())
items = [Item(c["id"], c["text"], c["score"], c["tokens"]) for c in rec["candidates"]]
fn = getattr(strategies, {name!r})
best = float("inf")
for _ in range(5):
    t = time.process_time()
    for _ in range({calls}):
        fn(items, 40)
    best = min(best, (time.process_time() - t) / {calls})
print(best * 1e3)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def calibrate(project: Path) -> dict[str, int]:
    """Spin counts that make each strategy take about its `TARGETS_MS` per call."""
    per_iter = (_time_function(project, {"fast": 200_000}, "fast", 5) - _time_function(project, {"fast": 0}, "fast", 2000)) / 200_000
    base = _time_function(project, {"fast": 0}, "fast", 5000)
    return {name: max(0, round((ms - base) / per_iter)) for name, ms in TARGETS_MS.items()}


def make_project(project: Path) -> dict[str, int]:
    """The user project at commit ``base`` with a recorded baseline; returns the calibrated spins."""
    project.mkdir(parents=True, exist_ok=True)
    (project / "corpus.jsonl").write_text(_corpus())
    (project / "gate.toml").write_text(CONFIG)
    _write_strategies(project, {"fast": 0, "mid": 0, "slow": 0})
    spin = calibrate(project)
    _write_strategies(project, spin)
    _git(project, "init", "-q")
    subprocess.run([sys.executable, "-m", "packbench", "run", "gate.toml", "--out", "baseline", "--yes"],
                   cwd=project, check=True, capture_output=True)
    _git(project, "add", "strategies.py", "corpus.jsonl", "gate.toml", "baseline")
    _git(project, "commit", "-qm", "base")
    _git(project, "tag", "-f", "base")
    return spin


def _spin_ratio(project: Path, spin_a: int, spin_b: int, calls: int, pairs: int = 15) -> float:
    """Median CPU-time ratio of `_pick` with `spin_b` over `spin_a`, timed in turn in one fresh process."""
    code = f"""
import json, time, sys, statistics
sys.path.insert(0, {str(project)!r})
from packbench.algorithms import Item
import strategies
rec = json.loads(open({str(project / 'corpus.jsonl')!r}).readline())
items = [Item(c["id"], c["text"], c["score"], c["tokens"]) for c in rec["candidates"]]
def t(spin):
    s = time.process_time()
    for _ in range({calls}):
        strategies._pick(items, 40, spin)
    return time.process_time() - s
t({spin_a}); t({spin_b})
print(statistics.median(t({spin_b}) / t({spin_a}) for _ in range({pairs})))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def planted(spin: dict[str, int], project: Path, name: str, factor: float) -> tuple[int, float]:
    """(spin of strategy `name` that makes it `factor` times slower, the slowdown measured in-process, paired)."""
    calls = max(3, int(20 / max(TARGETS_MS[name], 0.001)))
    step = round(spin[name] * (factor - 1)) or 1
    ratio = 1.0
    for _ in range(4):  # the spin is only part of the function: correct the step from what it gave
        ratio = _spin_ratio(project, spin[name], spin[name] + step, calls)
        if abs(ratio - factor) < 0.02 * factor or ratio <= 1.0:
            break
        step = max(1, round(step * (factor - 1) / (ratio - 1)))
    return spin[name] + step, ratio


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (and theirs), so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_trials(project: Path, scenario: str, spin: dict[str, int], trials: int, gate_args: list[str]) -> dict:
    """`trials` gate runs of one scenario; per planted strategy the runs that flag it, false alarms, wall times."""
    plan = SCENARIOS[scenario]
    spins, measured = dict(spin), {}
    for name, factor in plan.items():
        spins[name], measured[name] = planted(spin, project, name, factor)
    _write_strategies(project, spins)
    flagged = dict.fromkeys(plan, 0)
    false_cells, walls, cpus, loads, exits, cleared = 0, [], [], [], [], []
    ratios: dict[str, list[float]] = {n: [] for n in TARGETS_MS}
    detects: dict[str, list[float]] = {n: [] for n in TARGETS_MS}
    try:
        for k in range(trials):
            start, cpu0 = time.perf_counter(), _children_cpu()
            done = subprocess.run([sys.executable, "-m", "packbench", "gate", "gate.toml", "--baseline", "baseline",
                                   "--against", "base", "--out", f"gate-out/{scenario}-{k}", *gate_args],
                                  cwd=project, capture_output=True, text=True)
            walls.append(time.perf_counter() - start)
            cpus.append(_children_cpu() - cpu0)
            loads.append(os.getloadavg()[0])
            exits.append(done.returncode)
            doc_path = project / "gate-out" / f"{scenario}-{k}" / "gate.json"
            doc = json.loads(doc_path.read_text()) if doc_path.is_file() else {"speed": {}, "regressions": []}
            hit = {n: any(c.endswith(f"strategies:{n}") for c in doc["regressions"]) for n in plan}
            for n in plan:
                flagged[n] += hit[n]
            wrong = [c for c in doc["regressions"] if not any(c.endswith(f"strategies:{n}") for n in plan)]
            false_cells += len(wrong)
            for cell, fig in doc["speed"].items():
                n = cell.rsplit(":", 1)[-1]
                if "confirmation" in fig and fig["status"] != "slower":
                    cleared.append(cell)  # flagged by the first pass, cleared by the confirmation
                if fig.get("ratio") is not None:
                    ratios[n].append(fig["ratio"])
                    detects[n].append(fig["detectable"])
            print(f"  {scenario} {k + 1}/{trials}: exit {done.returncode}, {walls[-1]:.0f} s wall, "
                  f"{cpus[-1]:.0f} s CPU, load {loads[-1]:.1f}, flagged "
                  f"{[n for n in plan if hit[n]] or '-'}, false alarms {wrong or '-'}", flush=True)
            if done.returncode == 2:
                print(done.stderr[-2000:], flush=True)
    finally:
        _write_strategies(project, spin)
    med = lambda xs: round(statistics.median(xs), 3) if xs else None  # noqa: E731
    return {"scenario": scenario, "planted": plan, "measured_in_process": {n: round(r, 3) for n, r in measured.items()},
            "trials": trials, "flagged": flagged, "false_alarm_cells": false_cells, "exits": exits,
            "wall_median_s": round(statistics.median(walls), 1), "wall_max_s": round(max(walls), 1),
            "wall_s": [round(w, 1) for w in walls], "cpu_s": [round(c, 1) for c in cpus],
            "load_1min": [round(x, 1) for x in loads], "cleared_by_confirmation": cleared,
            "ratio_median": {n: med(v) for n, v in ratios.items()},
            "detectable_median": {n: med(v) for n, v in detects.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True, help="where the user project is made (kept)")
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated, of " + ", ".join(SCENARIOS))
    parser.add_argument("--busy", action="store_true", help="run a CPU-bound loop beside the trials")
    parser.add_argument("--gate-args", default="", help="extra arguments for packbench gate (one string)")
    args = parser.parse_args(argv)
    project = args.dir.resolve()
    spin = make_project(project) if not (project / ".git").is_dir() else json.loads((project / "spin.json").read_text())
    (project / "spin.json").write_text(json.dumps(spin))
    print(f"project {project}; spins {spin}; cores {os.cpu_count()}", flush=True)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    results = []
    try:
        for scenario in args.scenarios.split(","):
            results.append(run_trials(project, scenario, spin, args.trials, args.gate_args.split()))
            print(json.dumps(results[-1]), flush=True)
            # Written after each scenario: a long measurement stopped early keeps what it finished.
            (project / "power.json").write_text(json.dumps({"busy": args.busy, "spin": spin, "results": results},
                                                           indent=1))
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    print(f"{'scenario':10} {'strategy':8} {'planted':>8} {'in-process':>10} {'flagged':>8} {'gate ratio':>10} "
          f"{'detects':>8}")
    for r in results:
        for n in TARGETS_MS:
            planted_x = r["planted"].get(n)
            flagged = f"{r['flagged'][n]}/{r['trials']}" if planted_x else f"({r['false_alarm_cells']} false)"
            print(f"{r['scenario']:10} {n:8} {planted_x or '-':>8} {r['measured_in_process'].get(n, '-'):>10} "
                  f"{flagged:>8} {r['ratio_median'][n] or '-':>10} {r['detectable_median'][n] or '-':>8}")
        print(f"{r['scenario']:10} gate wall median {r['wall_median_s']} s, max {r['wall_max_s']} s; CPU median "
              f"{statistics.median(r['cpu_s']):.1f} s; load {min(r['load_1min'])}-{max(r['load_1min'])}; "
              f"false alarm cells {r['false_alarm_cells']}; cleared by the confirmation "
              f"{len(r['cleared_by_confirmation'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
