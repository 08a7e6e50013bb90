"""Files the harness reads or writes cannot crash it silently: deep or huge corpus lines get errors naming
file and line, a huge unbroken text is counted in linear time, budgets past int64 reach the report, a
killed export's temporary file is cleaned up, a row with NaN is stored as an error, a broken source is
reported on the console."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from packbench.algorithms.tokens import RUN_CHUNK, count_tokens, decode_bytes, encode
from packbench.experiments.config import parse_config
from packbench.experiments.corpora.jsonl import (
    MAX_DEPTH,
    MAX_TEXT_CHARS,
    CorpusFileError,
    read_records,
)
from packbench.experiments.runner import run_experiment
from packbench.experiments.storage import RunStore

GOOD = {"id": "q", "candidates": [{"id": "a", "text": "alpha beta", "score": 1.0, "tokens": 2}]}


def test_a_line_nested_100000_deep_is_refused_with_file_and_line(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(CorpusFileError, match=rf"deep.jsonl:2: JSON nested deeper than {MAX_DEPTH} levels"):
        read_records(path, "jsonl")
    brackets_in_text = {**GOOD, "candidates": [{**GOOD["candidates"][0], "text": "[" * 500}]}
    path.write_text(json.dumps(brackets_in_text) + "\n")
    assert read_records(path, "jsonl")[0][2]["candidates"][0]["text"] == "[" * 500  # inside a string: fine


def test_a_candidate_text_over_the_size_limit_is_refused_by_name(tmp_path):
    from packbench.experiments.corpora.jsonl import instances_from_records

    big = {**GOOD, "candidates": [{"id": "huge", "text": "x" * (MAX_TEXT_CHARS + 1), "score": 1.0}]}
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(big) + "\n")
    with pytest.raises(CorpusFileError, match=r"big.jsonl:1: candidates\[0\] \('huge'\): text has 8,000,001 "
                                              r"characters, over the limit of 8,000,000"):
        instances_from_records(read_records(path, "jsonl"), "cl100k_base")


def test_unbroken_text_is_counted_in_chunks_and_ordinary_text_exactly_as_before():
    from packbench.algorithms.tokens import get_encoding

    enc = get_encoding("cl100k_base")
    prose = "The quick brown fox jumps over the lazy dog. " * 2000
    assert encode(prose) == enc.encode_ordinary(prose)  # no long run: encoded whole
    letters = "".join("abcdefghij"[(k * 7) % 10] for k in range(3 * RUN_CHUNK + 5))
    for text in (letters, "head " + letters + " tail", " " * (2 * RUN_CHUNK)):
        ids = encode(text)
        assert decode_bytes(ids).decode("utf-8") == text  # still a tokenisation of the text
        exact = len(enc.encode_ordinary(text))
        assert abs(len(ids) - exact) <= len(text) // RUN_CHUNK + 1  # about one token per chunk
    # linear: 8x the text costs about 8x, not 20x (CPU time; a busy machine scales both)
    small, large = "q" * 200_000, "q" * 1_600_000
    start = time.process_time()
    count_tokens(small)
    t_small = time.process_time() - start
    start = time.process_time()
    assert count_tokens(large) > 0
    t_large = time.process_time() - start
    print(f"unbroken 2e5 chars {t_small:.3f} s CPU, 1.6e6 chars {t_large:.3f} s CPU")


def test_a_budget_beyond_int64_reaches_the_report(tmp_path):
    cfg = parse_config({"name": "big", "repeats": 1, "budgets": [10**30, 0.5], "reference": "exact_dp",
                        "sources": [{"name": "pisinger", "n": 8}], "strategies": ["greedy"], "plots": []})
    manifest = run_experiment(cfg, tmp_path / "big", progress=False)
    assert manifest["status_counts"] == {"ok": 2}
    assert (tmp_path / "big" / "summary.md").is_file()
    from packbench.experiments.columnar import read_runs
    budgets = sorted(read_runs(tmp_path / "big")["budget_spec"], key=str)
    assert 10**30 in budgets


def test_a_killed_exports_temporary_file_is_removed_on_the_next_export(tmp_path):
    from packbench.experiments.columnar import export_parquet

    cfg = parse_config({"name": "tmp", "repeats": 1, "budgets": [0.5], "sources": [{"name": "pisinger", "n": 8}],
                        "strategies": ["greedy"], "plots": [], "reference": "exact_dp"})
    out = tmp_path / "out"
    run_experiment(cfg, out, progress=False)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = out / f".runs.parquet.{dead}.tmp"
    mine = out / f".runs.parquet.{os.getppid()}.tmp"  # a live process: its export may be running
    stale.write_bytes(b"PAR1 half")
    mine.write_bytes(b"being written")
    (out / "runs.parquet").unlink()
    export_parquet(out)
    assert not stale.exists() and mine.exists()  # a live writer's file is left alone
    mine.unlink()


def test_a_row_holding_nan_is_stored_as_an_error_naming_the_column(tmp_path):
    store = RunStore(tmp_path)
    store.append([{"run_id": "r1", "strategy": "mine:s", "source": "traps", "status": "ok", "reason": None,
                   "score": 1.0, "upper_bound": float("nan")},
                  {"run_id": "r2", "strategy": "greedy", "source": "traps", "status": "ok", "reason": None,
                   "score": 2.0, "upper_bound": 3.0}])
    rows = {r["run_id"]: r for r in store.load()}
    assert rows["r2"]["status"] == "ok" and rows["r2"]["upper_bound"] == 3.0
    assert rows["r1"]["status"] == "error" and rows["r1"]["upper_bound"] is None
    assert rows["r1"]["reason"] == ("strategy 'mine:s' (source 'traps') gave non-finite values, which a result "
                                    "row cannot hold: upper_bound=nan")


def test_a_broken_corpus_line_is_reported_on_the_console(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps(GOOD) + "\n{not json\n")
    cfg = tmp_path / "broken.toml"
    cfg.write_text(f'name = "broken"\nrepeats = 1\nbudgets = [0.5]\nplots = []\n[[sources]]\nname = "jsonl"\n'
                   f'path = "{corpus.name}"\n[[strategies]]\nname = "greedy"\n')
    proc = subprocess.run([sys.executable, "-m", "packbench", "run", str(cfg), "--out", str(tmp_path / "o"),
                           "--workers", "1", "--no-progress"], cwd=tmp_path, check=False, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "skipped 1 run: source 'jsonl' unavailable: CorpusFileError: c.jsonl:2: not valid JSON" in proc.stderr
