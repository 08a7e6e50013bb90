"""Corpus loaders and corpora: checksums, download, corrupt files, duplicate groups, answer labels."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path

import pytest

from packbench.algorithms import pack
from packbench.algorithms.tokens import count_tokens
from packbench.experiments.corpora import CORPORA, data, nq_open
from packbench.experiments.corpora.data import DataError, DataFile, fetch, read_jsonl_gz
from packbench.experiments.corpora.nq_open import NQOpen, build_pool, has_answer, normalize_answer
from packbench.experiments.corpora.python_docs import PythonDocs

UNREACHABLE = "http://127.0.0.1:9/nq.jsonl.gz"  # discard port: connection refused at once


def row(question, answers, title, ctx, long_answer):
    return {"question": question, "answers": answers,
            "ctxs": [{"title": title, "text": ctx, "hasanswer": True, "isgold": True}],
            "nq_annotated_gold": {"title": title, "long_answer": long_answer, "chunked_long_answer": ctx,
                                  "short_answers": answers}}


ROWS = [
    row("who wrote the river book", ["The Author Jane Roe"], "River Book",
        "The River Book was written by the author Jane Roe in 1901.",
        "The River Book was written by the author, Jane Roe, in 1901. It sold well in France."),
    row("when was the river book written", ["1901"], "River Book",
        "The River Book was written by the author Jane Roe in 1901.",  # same passage as row 0
        "The River Book, a novel, was written in 1901 by Jane Roe."),
    row("what is the capital of france", ["Paris"], "France",
        "France is a country in Europe. Its capital is Paris, on the Seine.",
        "France is a country in western Europe; the capital city is Paris."),
    row("which fruit is yellow", ["a kiwi"], "Fruit",
        "Bananas are yellow when ripe and grow in bunches.",
        "Many fruits are yellow, for example lemons."),
]


def write_gz(path: Path, rows) -> str:
    payload = gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode("utf-8"))
    path.write_bytes(payload)
    return hashlib.sha256(payload).hexdigest()


@pytest.fixture
def fake_nq(tmp_path, monkeypatch):
    digest = write_gz(tmp_path / "nq.jsonl.gz", ROWS)
    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(nq_open, "NQ_OPEN_FILE", DataFile("nq.jsonl.gz", UNREACHABLE, digest))
    return tmp_path


def test_registered():
    assert CORPORA["nq_open"] is NQOpen and CORPORA["python_docs"] is PythonDocs


def test_data_dir_from_env_and_default(monkeypatch, tmp_path):
    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path))
    assert data.data_dir() == tmp_path
    monkeypatch.delenv(data.DATA_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert data.data_dir() == tmp_path / "cache" / "packbench"


def test_missing_file_and_no_network_is_a_clear_error(tmp_path):
    df = DataFile("nq.jsonl.gz", UNREACHABLE, "0" * 64)
    with pytest.raises(DataError, match=r"nq.jsonl.gz is not in .* downloading it from http://127.0.0.1:9/.* "
                                        r"set PACKBENCH_DATA_DIR"):
        fetch(df, tmp_path, timeout=2, download=True)
    assert list(tmp_path.iterdir()) == []  # no partial file left behind


def test_a_run_time_read_never_downloads(tmp_path, monkeypatch):
    import urllib.request

    def no_network(*args, **kwargs):
        raise AssertionError("a run-time read reached the network")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    src = tmp_path / "upstream"
    src.mkdir()
    digest = write_gz(src / "file.gz", ROWS)
    with pytest.raises(DataError, match=r"file.gz is not in .*run `packbench fetch` once"):
        fetch(DataFile("file.gz", (src / "file.gz").as_uri(), digest), tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_packbench_fetch_downloads_the_pinned_file_once(tmp_path, monkeypatch, capsys):
    from packbench.cli import main

    src = tmp_path / "upstream"
    src.mkdir()
    digest = write_gz(src / "nq.jsonl.gz", ROWS)
    monkeypatch.setattr(data, "NQ_OPEN_FILE", DataFile("nq.jsonl.gz", (src / "nq.jsonl.gz").as_uri(), digest))
    assert main(["fetch", "--dir", str(tmp_path / "data")]) == 0
    assert (tmp_path / "data" / "nq.jsonl.gz").read_bytes() == (src / "nq.jsonl.gz").read_bytes()
    out = capsys.readouterr().out
    assert "nq.jsonl.gz" in out and "SHA-256 verified" in out


def test_download_verifies_and_caches(tmp_path):
    src = tmp_path / "upstream"
    src.mkdir()
    digest = write_gz(src / "file.gz", ROWS)
    cache = tmp_path / "cache"
    path = fetch(DataFile("file.gz", (src / "file.gz").as_uri(), digest), cache, download=True)
    assert path == cache / "file.gz" and path.read_bytes() == (src / "file.gz").read_bytes()
    assert [p.name for p in cache.iterdir()] == ["file.gz"]


def test_download_with_wrong_checksum_saves_nothing(tmp_path):
    src = tmp_path / "upstream"
    src.mkdir()
    write_gz(src / "file.gz", ROWS)
    cache = tmp_path / "cache"
    with pytest.raises(DataError, match="has SHA-256 .*, expected f{64}; nothing was saved"):
        fetch(DataFile("file.gz", (src / "file.gz").as_uri(), "f" * 64), cache, download=True)
    assert list(cache.iterdir()) == []


def test_present_file_with_wrong_checksum_is_an_error(tmp_path):
    write_gz(tmp_path / "nq.jsonl.gz", ROWS)
    with pytest.raises(DataError, match="corrupt or truncated; delete it"):
        fetch(DataFile("nq.jsonl.gz", UNREACHABLE, "0" * 64), tmp_path)


def test_truncated_gzip_is_an_error_not_a_partial_corpus(tmp_path):
    path = tmp_path / "cut.gz"
    write_gz(path, ROWS * 50)
    path.write_bytes(path.read_bytes()[:-40])
    with pytest.raises(DataError, match="corrupt or truncated gzip"):
        read_jsonl_gz(path)
    path.write_bytes(b"not gzip at all")
    with pytest.raises(DataError, match="corrupt or truncated gzip"):
        read_jsonl_gz(path)


def test_bad_json_line(tmp_path):
    path = tmp_path / "bad.gz"
    path.write_bytes(gzip.compress(b'{"a": 1}\n[1, 2]\n'))
    with pytest.raises(DataError, match=r"bad.gz:2: expected a JSON object"):
        read_jsonl_gz(path)


@pytest.mark.parametrize("answer, passage, expected", [
    ("The Author Jane Roe", "was written by the author, Jane Roe, in 1901", True),  # article + punctuation
    ("U.S.", "the US army", True),
    ("a banana", "Bananas are yellow", True),  # article dropped, then a substring hit, as in Lost in the Middle
    ("green banana", "Bananas are yellow", False),
    ("Paris", "Its capital is Lyon.", False),
    ("the", "the the the", False),               # an answer that normalises to nothing never matches
])
def test_has_answer(answer, passage, expected):
    assert has_answer(passage, [answer]) is expected


def test_normalize_answer():
    assert normalize_answer("  The  Röntgen, Wilhelm!  ") == "röntgen wilhelm"
    assert normalize_answer("an apple a day") == "apple day"
    assert normalize_answer("Banana") == "banana"  # articles only as whole words


def test_pool_groups_by_hand():
    pool = build_pool(ROWS)
    assert pool.ids == ("q0/ctx", "q0/long", "q1/ctx", "q1/long", "q2/ctx", "q2/long", "q3/ctx", "q3/long")
    groups = dict(zip(pool.ids, pool.groups))
    # rows 0 and 1 share a ctx passage, so all four of their passages are one source paragraph
    assert {groups[i] for i in ("q0/ctx", "q0/long", "q1/ctx", "q1/long")} == {"nq0"}
    assert groups["q2/ctx"] == groups["q2/long"] == "nq2" and groups["q3/ctx"] == groups["q3/long"] == "nq3"
    assert pool.texts[4] == "France\nFrance is a country in Europe. Its capital is Paris, on the Seine."


def test_instances_labels_and_tokens_by_hand(fake_nq):
    src = NQOpen(n_questions=4, top_k=8)
    insts = {i.key: i for i in src.instances(0)}
    assert set(insts) == {"q=0", "q=1", "q=2", "q=3"}
    paris = insts["q=2"]
    assert paris.answers == {"q2/ctx", "q2/long"}
    assert [it.id for it in paris.items if it.pinned] == ["system", "question"]
    assert paris.items[1].text == "Question: what is the capital of france"
    cands = [it for it in paris.items if not it.pinned]
    assert len(cands) == 8 and cands[0].id.startswith("q2/")
    assert all(it.tokens == count_tokens(it.text) for it in paris.items)
    assert [it.score for it in cands] == sorted((it.score for it in cands), reverse=True)
    assert paris.groups == {it.id: {"q0": "nq0", "q1": "nq0", "q2": "nq2", "q3": "nq3"}[it.id.split("/")[0]]
                            for it in cands}
    # "1901" occurs in all four River Book passages; "kiwi" in none
    assert insts["q=1"].answers == {"q0/ctx", "q0/long", "q1/ctx", "q1/long"}
    assert insts["q=3"].answers == frozenset()
    assert insts["q=0"].answers == {"q0/ctx", "q0/long", "q1/ctx"}


def test_seed_picks_questions_deterministically(fake_nq):
    a = [i.key for i in NQOpen(n_questions=2).instances(1)]
    assert a == [i.key for i in NQOpen(n_questions=2).instances(1)]
    picks = {tuple(i.key for i in NQOpen(n_questions=2).instances(s)) for s in range(10)}
    assert len(picks) > 1


def test_index_built_once_per_source(fake_nq, monkeypatch):
    built = []
    real = nq_open.BM25Index.__init__

    def counting(self, texts):
        built.append(len(texts))
        real(self, texts)

    monkeypatch.setattr(nq_open.BM25Index, "__init__", counting)
    src = NQOpen(n_questions=4)
    list(src.instances(0))
    list(src.instances(1))
    assert built == [8]


def test_missing_corpus_without_network(tmp_path, monkeypatch):
    monkeypatch.setenv(data.DATA_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(nq_open, "NQ_OPEN_FILE", DataFile("nq.jsonl.gz", UNREACHABLE, "0" * 64))
    with pytest.raises(DataError, match="set PACKBENCH_DATA_DIR"):
        list(NQOpen(n_questions=1).instances(0))


def test_python_docs_chunks_and_answers():
    src = PythonDocs(n_queries=3, top_k=10, chunk_tokens=128, overlap=16)
    insts = list(src.instances(0))
    assert len(insts) == 3 and insts == list(PythonDocs(n_queries=3, top_k=10, chunk_tokens=128,
                                                        overlap=16).instances(0))
    for inst in insts:
        topic = inst.meta["topic"]
        cands = [it for it in inst.items if not it.pinned]
        assert all(it.tokens <= 128 for it in cands)
        assert inst.answers == {it.id for it in cands if it.source == topic}
        assert inst.groups is None
    with pytest.raises(ValueError, match="overlap=64 must be < chunk_tokens=64"):
        PythonDocs(chunk_tokens=64, overlap=64)


REAL = os.environ.get(data.DATA_DIR_ENV)
real_data = pytest.mark.skipif(not REAL or not (Path(REAL) / data.NQ_OPEN_FILE.name).exists(),
                               reason="set PACKBENCH_DATA_DIR to the folder holding nq-open-oracle.jsonl.gz")


@real_data
def test_real_file_verifies_and_labels_agree_with_upstream():
    rows = read_jsonl_gz(fetch(data.NQ_OPEN_FILE))
    assert len(rows) == 2655
    # Every ctx passage is flagged answer-bearing upstream; our normalised match agrees on all rows.
    assert all(has_answer(r["ctxs"][0]["text"], r["answers"]) == r["ctxs"][0]["hasanswer"] for r in rows)
    pool = build_pool(rows)
    groups = dict(zip(pool.ids, pool.groups))
    assert all(groups[f"q{r}/ctx"] == groups[f"q{r}/long"] for r in range(len(rows)))
    assert 2_500 < len(set(pool.groups)) < 2_655  # shared passages merge some rows


@real_data
def test_real_instances_pack():
    src = NQOpen(n_questions=5, top_k=20)
    insts = list(src.instances(3))
    assert len(insts) == 5
    for inst in insts:
        cands = [it for it in inst.items if not it.pinned]
        assert len(cands) == 20 and inst.answers <= {it.id for it in cands}
        p = pack(inst.items, 1024, strategy="greedy")
        assert p.tokens <= 1024
