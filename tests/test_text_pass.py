"""The faithful single-pass bound: the C pass reads every byte of every text once, and the bench prints it."""

from __future__ import annotations

import sys

import pytest

from packbench.algorithms import Item
from packbench.experiments.bench import text_ab
from packbench.experiments.bench.text_pass import native_text_pass, text_bytes, text_pass, text_pass_numpy

# Kind 1 (ASCII and Latin-1 beyond it), kind 2 (BMP, a lone surrogate too), kind 4 (astral), and lengths
# on and off the 8-byte words.
TEXTS = ["", "a", "abcdefgh", "abcdefghi", "café " * 7, "\u00ff" * 3, "€ euro", "naïve \u4e2d\u6587 text",
         "\ud800 lone", "\U0001f600x" * 3, "mixed é € \U0001f600 " * 40]


def _kind(text: str) -> int:
    """CPython's kind of a str: the bytes per character its widest character needs."""
    top = max(map(ord, text), default=0)
    return 1 if top < 0x100 else 2 if top < 0x10000 else 4


def _reference(texts: list[str]) -> tuple[int, int]:
    """Pure Python: each character as `kind` native-order bytes, 8-byte words (last zero-padded) summed mod 2**64."""
    total, read = 0, 0
    for text in texts:
        kind = _kind(text)
        raw = b"".join(ord(ch).to_bytes(kind, sys.byteorder) for ch in text)
        read += len(raw)
        raw += bytes(-len(raw) % 8)
        total += sum(int.from_bytes(raw[k:k + 8], sys.byteorder) for k in range(0, len(raw), 8))
    return total % (1 << 64), read


def test_the_reference_sees_all_three_kinds():
    assert {_kind(t) for t in TEXTS} == {1, 2, 4}
    assert all(len(text_bytes(t)) == len(t) * _kind(t) for t in TEXTS)


@pytest.mark.skipif(not native_text_pass(), reason="the C extension is not built")
def test_the_c_pass_reads_every_byte_of_every_text_once():
    items = [Item(f"i{k}", t, 1.0, 1) for k, t in enumerate(TEXTS)]
    checksum, read = text_pass(items)
    assert read == sum(len(t) * _kind(t) for t in TEXTS)
    assert (checksum, read) == _reference(TEXTS) == text_pass_numpy(items)
    assert text_pass(list(TEXTS)) == (checksum, read)  # strs as they are
    # Each text alone: a byte dropped or read twice anywhere would change some text's sum.
    for text in TEXTS:
        assert text_pass([Item("x", text, 1.0, 1)]) == _reference([text])


@pytest.mark.skipif(not native_text_pass(), reason="the C extension is not built")
def test_the_c_pass_reads_other_objects_through_getattr_and_refuses_a_non_str():
    class Other:
        def __init__(self, text):
            self.text = text

    mixed = [Item("a", TEXTS[4], 1.0, 1), TEXTS[6], Other(TEXTS[9]), Item("b", TEXTS[10], 1.0, 1)]
    assert text_pass(mixed) == _reference([TEXTS[4], TEXTS[6], TEXTS[9], TEXTS[10]]) == text_pass_numpy(mixed)
    assert text_pass([]) == (0, 0)
    with pytest.raises(TypeError, match="not a str"):
        text_pass([Other(b"bytes")])
    with pytest.raises(AttributeError):
        text_pass([object()])


def test_the_numpy_answer_matches_the_reference_and_stands_in_without_the_extension(monkeypatch):
    from packbench.experiments.bench import text_pass as module

    assert text_pass_numpy(TEXTS) == _reference(TEXTS)
    monkeypatch.setattr(module, "_NATIVE", None)  # as if the extension were not built
    assert not module.native_text_pass()
    assert module.text_pass([Item("a", TEXTS[7], 1.0, 1), TEXTS[9]]) == _reference([TEXTS[7], TEXTS[9]])


def test_the_bound_lines_name_both_bounds_and_say_when_the_faithful_one_is_not_measured():
    med = {(s, f"easy 100 {d}"): (0.002, 0.002) for s in ("new", "old") for d in ("on", "join")}
    lines = text_ab._bound_lines("easy", 100, 10_000_000, 1e10, med, [[0.001, 0.001, 10_000_000, True]] * 3)
    assert "streaming bound" in lines[1] and "2x" in lines[1]  # 2 ms over 1 ms
    assert "faithful single-pass bound" in lines[2] and "median 1.0 ms" in lines[2] and "2x" in lines[2]
    lines = text_ab._bound_lines("easy", 100, 10_000_000, 1e10, med, [[0.5, 0.5, 10_000_000, False]])
    assert "not measured" in lines[-1]


def test_speed_table_prints_both_bounds_beside_pack(tmp_path, monkeypatch):
    # The smallest run: one size, one round, both sides this code (an empty folder first on PYTHONPATH).
    monkeypatch.setattr(text_ab, "read_bandwidth", lambda: 1e10)
    lines = text_ab.speed_table(str(tmp_path), sizes=(300,), rounds=1)
    for workload in ("realistic", "easy"):
        at = next(k for k, line in enumerate(lines) if line.startswith(f"{workload} 300: "))
        assert "MB of text" in lines[at] and "new pack" in lines[at]
        assert "streaming bound" in lines[at + 1] and "new pack" in lines[at + 1]
        faithful = lines[at + 2]
        if native_text_pass():
            assert "faithful single-pass bound" in faithful and "median" in faithful and "new pack" in faithful
        else:
            assert "not measured" in faithful
