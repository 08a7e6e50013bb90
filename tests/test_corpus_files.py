"""File corpora (jsonl, parquet): fields, token counting, ground truth into the metrics, located errors."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from packbench.algorithms.tokens import count_tokens
from packbench.experiments.config import parse_config
from packbench.experiments.corpora import CORPORA
from packbench.experiments.corpora.jsonl import CorpusFileError, JSONLCorpus, ParquetCorpus
from packbench.experiments.runner import run_experiment

RECORDS = [
    {"id": "q1", "query": "who wrote the river book", "budget": 40, "candidates": [
        {"id": "sys", "text": "Answer from the passages.", "score": 0, "pinned": True},
        {"id": "a", "text": "The River Book was written by Jane Roe.", "score": 3.0, "tokens": 10,
         "dup_group": "g1", "has_answer": True, "source": "doc1"},
        {"id": "b", "text": "The River Book was written by Jane Roe!", "score": 2.5, "tokens": 10, "dup_group": "g1"},
        {"id": "c", "text": "Bananas are yellow.", "score": 1.0},
    ]},
    {"query": "capital of france", "candidates": [
        {"id": "a", "text": "Paris is the capital of France.", "score": 2.0, "has_answer": False},
        {"id": "d", "text": "France is in Europe.", "score": 1.0, "tokens": 7},
    ]},
]


def write_jsonl(path: Path, records, gz: bool = False) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in records)
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def load(path: Path, cls=JSONLCorpus, **params):
    return list(cls(path=str(path), **params).instances(0))


def test_registered_as_corpora():
    assert CORPORA["jsonl"] is JSONLCorpus and CORPORA["parquet"] is ParquetCorpus
    assert JSONLCorpus.kind == "corpus"


@pytest.mark.parametrize("gz", [False, True])
def test_fields_tokens_groups_answers(tmp_path, gz):
    path = write_jsonl(tmp_path / ("c.jsonl.gz" if gz else "c.jsonl"), RECORDS, gz=gz)
    first, second = load(path)
    assert first.key == "q1" and second.key == "line=2"
    assert first.meta["query"] == "who wrote the river book" and first.meta["budget"] == 40
    assert "budget" not in second.meta
    items = {it.id: it for it in first.items}
    assert items["sys"].pinned and not items["a"].pinned and items["a"].source == "doc1"
    assert items["a"].tokens == 10
    # Absent tokens are counted with the named encoding, not estimated.
    assert items["c"].tokens == count_tokens("Bananas are yellow.", "cl100k_base")
    # Ground truth is per file: the second record has no dup_group but still gets groups (own group each).
    assert first.groups == {"a": "g1", "b": "g1", "c": "c"}
    assert second.groups == {"a": "a", "d": "d"}
    assert first.answers == {"a"} and second.answers == frozenset()


def test_no_ground_truth_means_none(tmp_path):
    records = [{"candidates": [{"id": "x", "text": "one two", "score": 1.0, "tokens": 2}]}]
    (inst,) = load(write_jsonl(tmp_path / "c.jsonl", records))
    assert inst.groups is None and inst.answers is None


def test_encoding_by_model_name_and_unknown(tmp_path):
    text = "ünïcødé " * 20
    path = write_jsonl(tmp_path / "c.jsonl", [{"candidates": [{"id": "x", "text": text, "score": 1.0}]}])
    (inst,) = load(path, encoding="gpt-4")  # a model name resolves to its encoding (cl100k_base)
    assert inst.items[0].tokens == count_tokens(text, "cl100k_base")
    with pytest.raises(ValueError, match="parameter 'encoding'.*unknown encoding or model 'nope'"):
        JSONLCorpus(path=str(path), encoding="nope")


def test_sample_is_seeded(tmp_path):
    records = [{"id": f"r{k}", "candidates": [{"id": "x", "text": "t", "score": 1.0, "tokens": 1}]}
               for k in range(30)]
    path = write_jsonl(tmp_path / "c.jsonl", records)
    src = JSONLCorpus(path=str(path), sample=5)
    keys = [i.key for i in src.instances(3)]
    assert len(keys) == 5 and keys == [i.key for i in src.instances(3)]
    assert keys != [i.key for i in src.instances(4)]
    assert keys == sorted(keys, key=lambda k: int(k[1:]))  # file order kept


def test_parquet_same_instances(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="parquet corpora need pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(RECORDS), tmp_path / "c.parquet")
    via_parquet = load(tmp_path / "c.parquet", ParquetCorpus)
    via_jsonl = load(write_jsonl(tmp_path / "c.jsonl", RECORDS))
    assert [i.items for i in via_parquet] == [i.items for i in via_jsonl]
    assert [i.groups for i in via_parquet] == [i.groups for i in via_jsonl]
    assert [i.answers for i in via_parquet] == [i.answers for i in via_jsonl]
    assert via_parquet[1].key == "row=1"


BAD = [
    ('{"candidates": [{"id": "x", "text": "t", "score": "high"}]}', r"c\.jsonl:1: candidates\[0\]\.score must be a number"),
    ('{"candidates": [{"id": "x", "score": 1}]}', r"c\.jsonl:1: candidates\[0\]: missing required field 'text'"),
    ('{"candidates": []}', r"c\.jsonl:1: field 'candidates' must be a non-empty list"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1, "tokens": 0}]}', r"c\.jsonl:1: candidates\[0\] \('x'\): tokens must be a positive int"),
    ('{"candidates": [{"id": "x", "text": "", "score": 1}]}', r"c\.jsonl:1: candidates\[0\] \('x'\): text has 0 tokens"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1, "tokens": 1.5}]}', r"candidates\[0\]\.tokens must be a positive int"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1, "pinned": "yes"}]}', r"candidates\[0\]\.pinned must be true or false"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1, "colour": "red"}]}', r"candidates\[0\]: unknown field 'colour'"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1}], "budgt": 3}', r"c\.jsonl:1: unknown field 'budgt'"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1}, {"id": "x", "text": "u", "score": 1}]}', r"candidates\[1\]\.id 'x' is repeated"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1e999}]}', r"c\.jsonl:1: candidates\[0\]: item 'x': score must be finite"),
    ('{"candidates": [{"id": "x", "text": "t", "score": 1}], "budget": -1}', r"c\.jsonl:1: budget must be a non-negative int"),
    ('[1, 2]', r"c\.jsonl:1: expected a JSON object"),
    ('{"candidates": [', r"c\.jsonl:1: not valid JSON"),
]


@pytest.mark.parametrize("line,message", BAD)
def test_errors_name_file_line_and_field(tmp_path, line, message):
    path = tmp_path / "c.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(CorpusFileError, match=message):
        load(path)


def test_error_on_a_later_line_names_it(tmp_path):
    path = tmp_path / "c.jsonl"
    good = json.dumps({"candidates": [{"id": "x", "text": "t", "score": 1, "tokens": 1}]})
    path.write_text(good + "\n\n" + good.replace('"score": 1', '"score": null') + "\n")
    with pytest.raises(CorpusFileError, match=r"c\.jsonl:3: candidates\[0\]: missing required field 'score'"):
        load(path)


def test_repeated_instance_id(tmp_path):
    rec = {"id": "same", "candidates": [{"id": "x", "text": "t", "score": 1, "tokens": 1}]}
    with pytest.raises(CorpusFileError, match=r"c\.jsonl:2: instance id 'same' is used by .*c\.jsonl:1 too"):
        load(write_jsonl(tmp_path / "c.jsonl", [rec, rec]))


def test_missing_file_and_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.jsonl"):
        load(tmp_path / "nope.jsonl")
    with pytest.raises(ValueError, match="needs parameter 'path'"):
        JSONLCorpus()
    with pytest.raises(TypeError, match="parameter 'path'"):
        JSONLCorpus(path=3)
    with pytest.raises(ValueError, match="parameter 'sample'"):
        JSONLCorpus(path="x.jsonl", sample=0)


def test_ground_truth_feeds_leakage_and_recall(tmp_path, monkeypatch):
    """Through the harness: dup_group drives leak metrics, has_answer drives recall, budget drives 'natural'."""
    write_jsonl(tmp_path / "c.jsonl", RECORDS)
    monkeypatch.chdir(tmp_path)
    config = parse_config({
        "name": "files", "seeds": [0], "budgets": ["natural"], "near_dup": ["off"], "reference": "exact_dp",
        "sources": [{"name": "jsonl", "path": "c.jsonl"}],
        "strategies": [{"name": "greedy"}],
    })
    run_experiment(config, tmp_path / "out", progress=False)
    rows = [json.loads(line) for line in (tmp_path / "out" / "runs.jsonl").read_text().splitlines()]
    by_inst = {r["instance"]: r for r in rows}
    q1 = by_inst["q1"]
    assert q1["status"] == "ok" and q1["budget"] == 40
    # With dedupe off, greedy takes a and its duplicate b: ground truth sees b leak.
    assert set(q1["chosen_ids"]) >= {"a", "b"}
    assert q1["leak_detector"] == "ground_truth" and q1["leak_items"] > 0
    assert q1["answer_recall"] == 1.0
    # The second record has no natural budget: a skipped row that says so.
    assert by_inst["line=2"]["status"] == "skipped" and "natural budget" in by_inst["line=2"]["reason"]
