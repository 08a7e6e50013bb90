"""Package data: the embedded NQ-Open sample and its fallback, the shipped configs and bench baseline."""

from __future__ import annotations

import fnmatch
import gzip
import json
import os
import tomllib
from pathlib import Path

import pytest

from packbench.algorithms import pack
from packbench.experiments.commands.run import resolve_config_path
from packbench.experiments.corpora import data, data_notes, nq_open
from packbench.experiments.corpora.data import (NQ_OPEN_SAMPLE, DataError, DataFile, DataUnavailableError,
                                                load_rows, read_jsonl_gz, sample_path)
from packbench.experiments.corpora.make_sample import sample_rows, write_sample
from packbench.experiments.corpora.nq_open import NQOpen
from packbench.experiments.packaged import config_names, packaged_baseline, packaged_config

ROOT = Path(__file__).resolve().parents[1]
UNREACHABLE = "http://127.0.0.1:9/nq.jsonl.gz"  # discard port: connection refused at once
MISSING = DataFile("nq-open-oracle.jsonl.gz", UNREACHABLE, "0" * 64)


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No data directory set, an empty user cache, and a download that fails."""
    monkeypatch.delenv(data.DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(nq_open, "NQ_OPEN_FILE", MISSING)
    return tmp_path


def test_sample_ships_verified_with_only_the_needed_fields():
    rows = read_jsonl_gz(sample_path(NQ_OPEN_SAMPLE))
    assert len(rows) == NQ_OPEN_SAMPLE.rows == 300
    assert all(set(r) == {"question", "answers", "ctxs", "nq_annotated_gold", "source_row"} for r in rows)
    assert all(set(r["ctxs"][0]) == {"title", "text"} and set(r["nq_annotated_gold"]) == {"title", "long_answer"}
               for r in rows)
    source_rows = [r["source_row"] for r in rows]
    assert source_rows == sorted(set(source_rows)) and source_rows[-1] < NQ_OPEN_SAMPLE.full_rows
    readme = (sample_path(NQ_OPEN_SAMPLE).parent / "README.md").read_text(encoding="utf-8")
    for needed in ("nelson-liu/lost-in-the-middle", data.NQ_OPEN_FILE.url.split("/")[-3], "MIT", "CC BY-SA"):
        assert needed in readme


def test_damaged_sample_is_an_error():
    bad = data.EmbeddedSample(NQ_OPEN_SAMPLE.name, "f" * 64, 300, data.NQ_OPEN_FILE, 2655)
    with pytest.raises(DataError, match="install is damaged; reinstall packbench"):
        sample_path(bad)


def test_auto_falls_back_to_the_sample_offline_and_says_why(offline):
    loaded = load_rows(MISSING, NQ_OPEN_SAMPLE, "auto", timeout=2)
    assert loaded.origin == "sample" and len(loaded.rows) == 300
    assert "embedded sample, 300 of the 2,655 questions" in loaded.note
    assert "PACKBENCH_DATA_DIR is not set and the user cache" in loaded.note and "packbench fetch" in loaded.note


def test_explicit_data_dir_or_full_mode_never_falls_back(offline, monkeypatch):
    with pytest.raises(DataUnavailableError, match="set PACKBENCH_DATA_DIR"):
        load_rows(MISSING, NQ_OPEN_SAMPLE, "full", timeout=2)
    monkeypatch.setenv(data.DATA_DIR_ENV, str(offline))
    with pytest.raises(DataUnavailableError):
        load_rows(MISSING, NQ_OPEN_SAMPLE, "auto", timeout=2)
    with pytest.raises(ValueError, match="unknown data mode 'some'; valid: auto, full, sample"):
        load_rows(MISSING, NQ_OPEN_SAMPLE, "some")


def test_a_corrupt_full_copy_is_an_error_not_a_silent_sample(offline):
    cache = offline / "cache" / "packbench"
    cache.mkdir(parents=True)
    (cache / MISSING.name).write_bytes(b"not the file")
    with pytest.raises(DataError, match="corrupt or truncated; delete it"):
        load_rows(MISSING, NQ_OPEN_SAMPLE, "auto", timeout=2)


def test_full_file_in_the_cache_is_used(offline):
    rows = [{"question": "q", "answers": ["a"], "ctxs": [{"title": "t", "text": "a b"}],
             "nq_annotated_gold": {"title": "t", "long_answer": "a b c"}}]
    cache = offline / "cache" / "packbench"
    digest = write_sample(rows, cache / "full.jsonl.gz")
    loaded = load_rows(DataFile("full.jsonl.gz", UNREACHABLE, digest), NQ_OPEN_SAMPLE, "auto", timeout=2)
    assert loaded.origin == "full" and loaded.rows == rows and "from the user cache" in loaded.note


def test_sample_instances_are_keyed_apart_and_pack(offline):
    src = NQOpen(n_questions=4, top_k=10)
    insts = list(src.instances(0))
    assert len(insts) == 4 and all(i.key.startswith("sample/q=") and i.meta["data"] == "sample" for i in insts)
    assert [i.key for i in insts] == [i.key for i in NQOpen(n_questions=4, top_k=10, data="sample").instances(0)]
    assert any(i.answers for i in insts)  # the sample keeps the answer labels working
    for inst in insts:
        assert pack(inst.items, 512, strategy="greedy").tokens <= 512
    assert "embedded sample" in src.data_note()
    with pytest.raises(ValueError, match="'data' must be one of auto, full, sample"):
        NQOpen(data="tiny")


def test_data_notes_per_corpus_of_a_config(offline):
    from packbench.experiments.config import load_config

    notes = data_notes(load_config(ROOT / "configs" / "default.toml"))
    assert set(notes) == {"nq_open"} and notes["nq_open"].startswith("embedded sample")
    assert data_notes(load_config(ROOT / "configs" / "smoke.toml")) == {}


def test_shipped_configs_are_found_by_name_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert set(config_names()) >= {"default", "smoke", "nq_open", "budget_sweep"}
    for spelling in ("smoke", "smoke.toml", "configs/smoke.toml"):
        assert packaged_config(spelling).read_bytes() == (ROOT / "configs" / "smoke.toml").read_bytes()
        assert resolve_config_path(spelling).read_bytes() == (ROOT / "configs" / "smoke.toml").read_bytes()
    assert packaged_config("other/smoke.toml") is None and packaged_config("nope") is None
    with pytest.raises(FileNotFoundError, match=r"shipped configs \(budget_sweep, default, (.*, )?nq_open, (.*, )?smoke"):
        resolve_config_path("nope")
    assert json.loads(packaged_baseline().read_text())  # the bench baseline ships too


def test_pyproject_ships_every_data_file_the_code_reads():
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {pkg: ROOT / path for pkg, path in setup["package-dir"].items()}

    def shipped(pkg: str, rel: str) -> bool:
        return pkg in setup["packages"] and any(fnmatch.fnmatch(rel, g) for g in setup["package-data"].get(pkg, []))

    assert shipped("packbench.experiments.corpora", f"samples/{NQ_OPEN_SAMPLE.name}")
    assert shipped("packbench.experiments.corpora", "samples/README.md")
    assert shipped("packbench.baselines", "baseline.json") and (folders["packbench.baselines"] / "baseline.json").is_file()
    # PEP 561: type checkers read packbench's hints only when the marker ships.
    assert shipped("packbench", "py.typed") and (folders["packbench"] / "py.typed").is_file()
    for config in (ROOT / "configs").glob("*.toml"):
        assert shipped("packbench.configs", config.name) and folders["packbench.configs"] == config.parent


REAL = os.environ.get(data.DATA_DIR_ENV)


@pytest.mark.skipif(not REAL or not (Path(REAL) / data.NQ_OPEN_FILE.name).exists(),
                    reason="set PACKBENCH_DATA_DIR to the folder holding nq-open-oracle.jsonl.gz")
def test_sample_is_rebuilt_byte_for_byte_from_the_pinned_file(tmp_path):
    full = read_jsonl_gz(data.fetch(data.NQ_OPEN_FILE))
    rebuilt = sample_rows(full, NQ_OPEN_SAMPLE.rows, 0)
    assert write_sample(rebuilt, tmp_path / "s.gz") == NQ_OPEN_SAMPLE.sha256
    for row in rebuilt:
        orig = full[row["source_row"]]
        assert row["question"] == orig["question"] and row["ctxs"][0]["text"] == orig["ctxs"][0]["text"]
        assert row["nq_annotated_gold"]["long_answer"] == orig["nq_annotated_gold"]["long_answer"]
    with gzip.open(tmp_path / "s.gz", "rt", encoding="utf-8") as fh:
        assert sum(1 for _ in fh) == NQ_OPEN_SAMPLE.rows
