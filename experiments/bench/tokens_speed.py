"""Token counting throughput side by side: the library's batched path, tiktoken's batch call, a plain loop.

Run ``python3 -m packbench.experiments.bench.tokens_speed --n 10000``. The chunks are
NQ-Open pool passages when the data is available (``PACKBENCH_DATA_DIR``),
otherwise synthetic word chunks; every method counts the same texts, and
the methods are interleaved in each round so machine load hits them alike.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from packbench.algorithms.tokens import DEFAULT_ENCODING, count_tokens_batch, get_encoding

from .workloads import random_candidates

__all__ = ["chunks", "measure", "main"]


def chunks(n: int) -> tuple[list[str], str]:
    """`n` texts to count and where they came from.

    NQ-Open pool passages cut in two halves (about 60 words each) when the data
    file is available, otherwise synthetic 60-word chunks.
    """
    from packbench.experiments.corpora.data import DataError, fetch, read_jsonl_gz
    from packbench.experiments.corpora.nq_open import NQ_OPEN_FILE, build_pool
    try:
        pool = build_pool(read_jsonl_gz(fetch(NQ_OPEN_FILE)))
    except (DataError, OSError):
        return [it.text for it in random_candidates(n, seed=6, words=60)], "synthetic"
    halves = []
    for text in pool.texts:
        ws = text.split(" ")
        halves += [" ".join(ws[:len(ws) // 2]), " ".join(ws[len(ws) // 2:])]
    return halves[:n], "NQ-Open pool passages, halved"


def measure(texts: list[str], rounds: int = 5, encoding: str = DEFAULT_ENCODING) -> dict[str, tuple[float, int]]:
    """Median seconds and total tokens of each counting method.

    Args:
        texts: The texts.
        rounds: Timed rounds per method (interleaved).
        encoding: Encoding name.

    Returns:
        method name -> (median seconds, tokens counted).
    """
    enc = get_encoding(encoding)
    methods: dict[str, Callable[[], int]] = {
        "count_tokens_batch (library)": lambda: sum(count_tokens_batch(texts, encoding)),
        "tiktoken encode_ordinary_batch": lambda: sum(map(len, enc.encode_ordinary_batch(texts))),
        "per-string encode_ordinary loop": lambda: sum(len(enc.encode_ordinary(t)) for t in texts),
    }
    times: dict[str, list[float]] = {name: [] for name in methods}
    totals: dict[str, int] = {}
    for _ in range(rounds):
        for name, run in methods.items():
            start = time.perf_counter()
            totals[name] = run()
            times[name].append(time.perf_counter() - start)
    if len(set(totals.values())) != 1:
        raise RuntimeError(f"methods disagree on the token total: {totals}")
    return {name: (statistics.median(ts), totals[name]) for name, ts in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="number of chunks")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    texts, origin = chunks(args.n)
    results = measure(texts, args.rounds)
    print(f"{len(texts)} chunks ({origin}), {next(iter(results.values()))[1]} tokens, median of {args.rounds}")
    print(f"{'method':36} {'seconds':>9} {'tokens/s':>12}")
    for name, (sec, total) in results.items():
        print(f"{name:36} {sec:9.4f} {total / sec:12,.0f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
