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
