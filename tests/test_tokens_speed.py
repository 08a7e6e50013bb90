"""The token-throughput benchmark counts the same tokens with every method."""

from packbench.algorithms.tokens import count_tokens
from packbench.experiments.bench.tokens_speed import main, measure


def test_every_method_counts_the_same_tokens():
    texts = ["the refund window is thirty days", "shipping is free", "naïve café ☕"] * 40
    results = measure(texts, rounds=1)
    assert len(results) == 3
    expected = sum(count_tokens(t) for t in texts)
    assert {total for _, total in results.values()} == {expected}
    assert all(sec > 0 for sec, _ in results.values())


def test_main_prints_a_row_per_method(capsys, monkeypatch):
    monkeypatch.setattr("packbench.experiments.bench.tokens_speed.chunks", lambda n: (["some words here"] * n, "test"))
    assert main(["--n", "50", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "tokens/s" in out and out.count("\n") >= 4
