"""MinHash dedupe side by side: the library's numpy MinHash, datasketch's, and the exact join.

Run ``python3 -m packbench.experiments.bench.minhash_compare 10000 100000``. Every method
sees the same candidates (`random_candidates`, seed 3, threshold 0.8) and the
same (bands, rows); the table gives the median seconds and the recall and
precision of each method's dropped set against the exact join's. datasketch is
only needed here (imported lazily).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from packbench.algorithms import Item
from packbench.algorithms.dedupe import dedupe_indexed, dedupe_minhash, dedupe_order, jaccard, shingles, words
from packbench.algorithms.dedupe.minhash import NUM_PERM, lsh_params

from .suite import dedupe_agreement
from .workloads import random_candidates

__all__ = ["dedupe_datasketch", "compare", "main"]


def dedupe_datasketch(candidates: Sequence[Item], pinned: Sequence[Item],
                      threshold: float) -> tuple[list[Item], dict[str, str]]:
    """The MinHash dedupe written with datasketch's MinHash and MinHashLSH (same order, exact verification).

    Raises:
        ImportError: datasketch is not installed.
    """
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError as exc:  # only this comparison uses it
        raise ImportError("the datasketch comparison needs the bench extra: pip install 'packbench[bench]'") from exc
    visit = dedupe_order(candidates)
    texts = list(pinned) + visit
    word_lists = [words(it.text) for it in texts]
    sets = [shingles(ws) for ws in word_lists]
    encoded = [[" ".join(sh).encode() for sh in s] for s in sets]
    hashes = MinHash.bulk(encoded, num_perm=NUM_PERM)
    lsh = MinHashLSH(num_perm=NUM_PERM, params=lsh_params(threshold))
    anchors: list[int] = []
    first_with_words: dict[tuple[str, ...], int] = {}
    dropped: dict[str, str] = {}

    def add_anchor(pos: int) -> None:
        first_with_words.setdefault(word_lists[pos], len(anchors))
        lsh.insert(len(anchors), hashes[pos])
        anchors.append(pos)

    for pos in range(len(pinned)):
        add_anchor(pos)
    for pos in range(len(pinned), len(texts)):
        match = first_with_words.get(word_lists[pos], len(anchors))
        for a in sorted(lsh.query(hashes[pos])):
            if a >= match:
                break
            if jaccard(sets[pos], sets[anchors[a]]) >= threshold:
                match = a
                break
        if match < len(anchors):
            dropped[texts[pos].id] = texts[anchors[match]].id
            continue
        add_anchor(pos)
    return [it for it in visit if it.id not in dropped], dropped


def _time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def compare(sizes: Sequence[int], methods: Sequence[str], threshold: float = 0.8,
            repeats: int = 3) -> list[dict[str, Any]]:
    """Time each method on `random_candidates(n, seed=3)` for each n; one row per (n, method).

    Methods are "exact", "minhash" (the library's) and "datasketch"; runs of
    more than 20 s are not repeated.
    """
    funcs = {"exact": dedupe_indexed, "minhash": dedupe_minhash, "datasketch": dedupe_datasketch}
    rows = []
    for n in sizes:
        items = random_candidates(n, seed=3)
        exact = dedupe_indexed(items, [], threshold)[1]
        for name in methods:
            once, (_, dropped) = _time(lambda: funcs[name](items, [], threshold), 1)
            seconds = once if once > 20 or repeats <= 1 else \
                statistics.median([once, *(_time(lambda: funcs[name](items, [], threshold), 1)[0]
                                           for _ in range(repeats - 1))])
            rows.append({"n": n, "method": name, "seconds": seconds, "n_dropped": len(dropped),
                         "exact_dropped": len(exact), **dedupe_agreement(dropped, exact)})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Print the comparison table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000])
    parser.add_argument("--methods", default="exact,minhash,datasketch")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    bands, rows = lsh_params(0.8)
    print(f"threshold 0.8, num_perm {NUM_PERM}, bands {bands} x rows {rows}")
    print(f"{'n':>8} {'method':12} {'median s':>9} {'dropped':>8} {'exact':>7} {'recall':>8} {'precision':>9}")
    for r in compare(args.sizes, args.methods.split(","), repeats=args.repeats):
        print(f"{r['n']:8d} {r['method']:12} {r['seconds']:9.3f} {r['n_dropped']:8d} {r['exact_dropped']:7d} "
              f"{r['recall']:8.4f} {r['precision']:9.4f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
