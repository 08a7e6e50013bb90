"""`packbench pack`: JSONL in, JSON out, line numbers in errors."""

import json
import re

import pytest

from packbench.experiments.cli import main


def _write(tmp_path, lines):
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_pack_prints_the_packing_as_json(tmp_path, capsys):
    path = _write(tmp_path, [
        json.dumps({"id": "sys", "text": "be brief", "score": 0, "tokens": 3, "pinned": True}),
        json.dumps({"id": "a", "text": "refunds take thirty days", "score": 5, "tokens": 6}),
        json.dumps({"id": "a2", "text": "Refunds take thirty days!", "score": 4, "tokens": 6}),
        "",
        json.dumps({"id": "b", "text": "shipping is free", "score": 1, "tokens": 4}),
    ])
    assert main(["pack", str(path), "--budget", "13", "--strategy", "exact_dp"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ids"] == ["sys", "a", "b"]
    assert out["score"] == 6 and out["tokens"] == 13 and out["optimal"] is True
    assert out["upper_bound"] == pytest.approx(6) and out["dropped"] == {"a2": "a"}


def test_near_dup_none_turns_dedupe_off(tmp_path, capsys):
    path = _write(tmp_path, [json.dumps({"id": i, "text": "same text", "score": 1, "tokens": 1}) for i in "ab"])
    assert main(["pack", str(path), "--budget", "5", "--near-dup", "none"]) == 0
    assert json.loads(capsys.readouterr().out)["ids"] == ["a", "b"]


@pytest.mark.parametrize("bad, message", [
    ("{not json", "items.jsonl:2: not valid JSON"),
    ('[1, 2]', "items.jsonl:2: expected a JSON object"),
    ('{"id": "b", "text": "t", "score": 1}', "items.jsonl:2: .*missing fields \\['tokens'\\]"),
    ('{"id": "b", "text": "t", "score": 1, "tokens": 0}', "items.jsonl:2: item 'b': tokens must be a positive int"),
])
def test_bad_lines_are_reported_with_their_line_number(tmp_path, capsys, bad, message):
    path = _write(tmp_path, [json.dumps({"id": "a", "text": "x", "score": 1, "tokens": 1}), bad])
    assert main(["pack", str(path), "--budget", "5"]) == 2
    assert re.search(message, capsys.readouterr().err)


def test_errors_from_pack_exit_with_status_2(tmp_path, capsys):
    path = _write(tmp_path, [json.dumps({"id": "s", "text": "x", "score": 1, "tokens": 9, "pinned": True})])
    assert main(["pack", str(path), "--budget", "5"]) == 2
    assert "over the budget" in capsys.readouterr().err


def test_bad_near_dup_is_named_by_argparse(tmp_path, capsys):
    path = _write(tmp_path, [json.dumps({"id": "a", "text": "x", "score": 1, "tokens": 1})])
    with pytest.raises(SystemExit) as info:
        main(["pack", str(path), "--budget", "5", "--near-dup", "abc"])
    assert info.value.code == 2
    assert "argument --near-dup: must be a Jaccard threshold in [0, 1] or 'none', got 'abc'" in capsys.readouterr().err


def test_unreadable_files_exit_with_status_2_and_a_message(tmp_path, capsys):
    # A directory used to escape as an IsADirectoryError traceback; bytes that are not UTF-8 lost the path.
    assert main(["pack", str(tmp_path), "--budget", "5"]) == 2
    assert "packbench pack: error:" in capsys.readouterr().err
    binary = tmp_path / "items.jsonl"
    binary.write_bytes(b'{"id": "a"}\n\xff\xfe\n')
    assert main(["pack", str(binary), "--budget", "5"]) == 2
    assert re.search(r"items\.jsonl: not UTF-8 text .*expected JSONL", capsys.readouterr().err)


def test_no_limit_budget_works_with_the_integer_solvers(tmp_path, capsys):
    path = _write(tmp_path, [json.dumps({"id": i, "text": f"text {i}", "score": 1, "tokens": 2}) for i in "ab"])
    assert main(["pack", str(path), "--budget", str(10**25), "--strategy", "cpsat"]) == 0
    assert json.loads(capsys.readouterr().out)["ids"] == ["a", "b"]


def test_param_passes_strategy_parameters_as_toml_values(tmp_path, capsys):
    path = _write(tmp_path, [json.dumps({"id": i, "text": f"text {i}", "score": s, "tokens": 2})
                             for i, s in (("a", 3), ("b", 2), ("c", 1))])
    assert main(["pack", str(path), "--budget", "4", "--strategy", "cpsat", "--param", "time_limit=0.5",
                 "--param", "workers=1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ids"] == ["a", "b"] and out["optimal"] is True
    assert main(["pack", str(path), "--budget", "4", "--strategy", "fptas", "--param", "eps=2"]) == 2
    assert "eps" in capsys.readouterr().err  # the strategy's own range check, naming the parameter
    assert main(["pack", str(path), "--budget", "4", "--param", "bogus=1"]) == 2
    assert "unknown parameter 'bogus'" in capsys.readouterr().err


@pytest.mark.parametrize("text, expected", [
    ("time_limit=0.5", ("time_limit", 0.5)), ("workers=2", ("workers", 2)), ("contiguous=true", ("contiguous", True)),
    ('curve="gpt-3.5-turbo-20"', ("curve", "gpt-3.5-turbo-20")), ("similarity=tfidf", ("similarity", "tfidf")),
    ("curve=[1.0, 0.5, 1.0]", ("curve", [1.0, 0.5, 1.0])),
])
def test_param_values_are_toml_else_plain_strings(text, expected):
    from packbench.experiments.commands.pack import parse_param
    assert parse_param(text) == expected


def test_bad_param_and_unknown_options_print_the_subcommands_usage(tmp_path, capsys):
    path = _write(tmp_path, [json.dumps({"id": "a", "text": "x", "score": 1, "tokens": 1})])
    for argv in (["pack", str(path), "--budget", "5", "--param", "no_equals"],
                 ["pack", str(path), "--budget", "5", "--time_limit", "1"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.startswith("usage: packbench pack ")
    with pytest.raises(SystemExit):
        main(["run", "--bogus"])
    assert capsys.readouterr().err.startswith("usage: packbench run ")
    with pytest.raises(SystemExit):
        main(["--bogus"])
    assert capsys.readouterr().err.startswith("usage: packbench [-h]")


def test_encoding_counts_missing_tokens_and_dash_reads_stdin(monkeypatch, capsys):
    import io

    from packbench.algorithms.tokens import count_tokens

    lines = [{"id": "sys", "text": "be brief", "score": 0, "pinned": True},
             {"id": "a", "text": "refunds take thirty days", "score": 5},
             {"id": "b", "text": "shipping is free", "score": 1, "tokens": 50}]  # a given count is kept
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(json.dumps(x) for x in lines) + "\n"))
    assert main(["pack", "-", "--budget", "20", "--encoding", "cl100k_base"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ids"] == ["sys", "a"]
    assert out["tokens"] == count_tokens("be brief") + count_tokens("refunds take thirty days")
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(lines[1]) + "\n"))
    assert main(["pack", "-", "--budget", "20"]) == 2
    err = capsys.readouterr().err
    assert "<stdin>:1: missing fields ['tokens']" in err and "--encoding" in err and "unknown fields" not in err
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"id": "e", "text": "", "score": 1}) + "\n"))
    assert main(["pack", "-", "--budget", "20", "--encoding", "cl100k_base"]) == 2
    assert "<stdin>:1: text is empty (0 tokens)" in capsys.readouterr().err
    assert main(["pack", "-", "--budget", "20", "--encoding", "nope"]) == 2
    assert "unknown encoding or model 'nope'" in capsys.readouterr().err
