"""A user's own strategies and corpus, from a directory outside the repository, end to end.

A plain function and a `Strategy` subclass named by import path, a JSONL corpus of 20 queries, next
to `exact` and `greedy_best_single`, run with two spawned workers; then the function is edited and
the rerun redoes exactly the runs of that module's code (its fingerprint is the module file's hash).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

USER_MODULE = '''
from packbench.algorithms import Selection, Strategy


def top_k(items, budget, k=3):
    """The k best-scored candidates that fit beside the pinned items, in score order."""
    out, used = [], sum(it.tokens for it in items if it.pinned)
    for it in sorted((it for it in items if not it.pinned), key=lambda it: -it.score)[:{K}]:
        if used + it.tokens <= budget:
            out.append(it.id)
            used += it.tokens
    return out


class Lightest(Strategy):
    """The lightest candidates first while they fit."""

    name = "lightest"

    def select(self, problem):
        used, chosen = 0, []
        for k in sorted(range(len(problem.candidates)), key=lambda k: problem.candidates[k].tokens):
            if used + problem.candidates[k].tokens <= problem.room:
                chosen.append(k)
                used += problem.candidates[k].tokens
        return Selection(tuple(chosen))
'''

CONFIG = '''
name = "outside"
repeats = 1
budgets = [60, "natural"]
near_dup = ["off"]
reference = "exact_dp"
[[sources]]
name = "jsonl"
path = "corpus.jsonl"
[[strategies]]
name = "mystrat:top_k"
[[strategies]]
name = "mystrat:Lightest"
[[strategies]]
name = "exact"
[[strategies]]
name = "greedy_best_single"
'''

DRIVER = '''
import multiprocessing, os, sys
multiprocessing.set_start_method("spawn", force=True)
# As under the `packbench` console script: the working directory is not on sys.path.
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
from packbench.cli import main
sys.exit(main(["run", "outside.toml", "--workers", "2", "--out", "out", "--no-progress"]))
'''


def corpus(n_queries: int = 20) -> str:
    rng = random.Random(7)
    lines = []
    for q in range(n_queries):
        cands = [{"id": "sys", "text": "Answer from the passages.", "score": 0, "pinned": True}]
        for k in range(8):
            cands.append({"id": f"p{k}", "text": f"passage {k} of query {q} " + "word " * rng.randint(2, 30),
                          "score": round(rng.uniform(0, 10), 3), "tokens": rng.randint(5, 40),
                          "dup_group": f"g{k // 2}", "has_answer": k == rng.randint(0, 7)})
        lines.append(json.dumps({"id": f"q{q}", "query": f"query {q}", "budget": 100, "candidates": cands}))
    return "\n".join(lines) + "\n"


def run(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", DRIVER], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").read_text().splitlines()]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    return rows, manifest, proc.stderr


def test_own_function_class_and_corpus_from_outside_then_an_edit_redoes_exactly_its_runs(tmp_path):
    (tmp_path / "mystrat.py").write_text(USER_MODULE.replace("{K}", "k"))
    (tmp_path / "outside.toml").write_text(CONFIG)
    (tmp_path / "corpus.jsonl").write_text(corpus())
    rows, manifest, _ = run(tmp_path)
    strategies = {"mystrat:top_k", "mystrat:Lightest", "exact", "greedy_best_single"}
    assert len(rows) == 20 * 2 * 4 and {r["strategy"] for r in rows} == strategies
    assert all(r["status"] == "ok" for r in rows), [(r["strategy"], r["reason"]) for r in rows if r["status"] != "ok"]
    assert all(r["score_ratio"] is not None and r["answer_recall"] is not None for r in rows)
    assert all(r["leak_detector"] == "ground_truth" for r in rows)
    assert all(r["score_ratio"] == 1.0 for r in rows if r["strategy"] == "exact")
    assert manifest["runs_resumed"] == 0

    # Edit the function (k best -> k + 1 best). The fingerprint of outside code is its module file's
    # hash, so the runs of both strategies of that module are redone (80), packbench's are kept (80).
    before = {r["run_id"]: r for r in rows}
    (tmp_path / "mystrat.py").write_text(USER_MODULE.replace("{K}", "k + 1"))
    rows2, manifest2, stderr = run(tmp_path)
    assert len(rows2) == len(rows) and manifest2["runs_resumed"] == 80
    assert manifest2["runs_redone_code_changed"] == 80 and "80 redone after a code change" in stderr
    mine = {"mystrat:top_k", "mystrat:Lightest"}
    changed = {r["run_id"] for r in rows2 if r["code"] != before[r["run_id"]]["code"]}
    assert changed == {r["run_id"] for r in rows2 if r["strategy"] in mine}
    assert all(r == before[r["run_id"]] for r in rows2 if r["strategy"] not in mine)
    # The edit shows in the results: with one more candidate allowed, top_k scores at least as well.
    after = {r["run_id"]: r for r in rows2}
    top = [rid for rid, r in after.items() if r["strategy"] == "mystrat:top_k"]
    assert all(after[rid]["score"] >= before[rid]["score"] for rid in top)
    assert any(after[rid]["score"] > before[rid]["score"] for rid in top)
