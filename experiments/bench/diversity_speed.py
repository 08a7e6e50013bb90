"""`mmr`, `submodular` and `dpp` against pyversity's MMR and DPP on the same vectors: CPU time and picks.

Run ``python -m packbench.experiments.bench.diversity_speed`` (needs the
pyversity extra). Candidates: the top-n BM25 passages of NQ-Open questions
(the full file with ``PACKBENCH_DATA_DIR``, else the embedded sample, which
caps n at its pool), each with its hashing embedding; relevance is the score
over the largest score for both sides. Our strategies run through `pack`
(dedupe off, everything a user's call costs) with ``similarity="cosine"``;
each is given a budget, and pyversity is asked for as many items as ours
picked (``k``), so both do the same number of greedy steps. Timing is CPU
(`time.process_time`), A and B interleaved, the median over repeats, and the
ratio ours / pyversity is printed with the share of lists where the picks
agree (the same (score, vector) in the same order: retrieved lists hold
repeats, between which the two sides break ties differently; for ``submodular``, which has no
pyversity counterpart, the ratio is against pyversity's MMR) and the mean
share of our picks that pyversity also picks (overlap).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np
from packbench.algorithms import Item, pack

from ..corpora.nq_open import NQOpen

__all__ = ["candidate_lists", "main"]


def candidate_lists(n: int, lists: int) -> list[list[Item]]:
    """`lists` retrieval lists of `n` candidates each (pinned items dropped)."""
    source = NQOpen(n_questions=lists, top_k=n)
    return [[it for it in inst.items if not it.pinned] for inst in source.instances(0)]


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main(argv: Sequence[str] | None = None) -> None:
    """Print CPU medians, ratios and pick agreement per candidate count and method."""
    import pyversity

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--lists", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--budget", type=int, default=4096)
    args = parser.parse_args(argv)
    print(f"{'n':>5} {'ours':<11} {'k':>4} {'ours ms':>9} {'pyversity ms':>13} {'ratio':>6} {'same picks':>11} "
          f"{'overlap':>8}")
    for n in args.sizes:
        cases = candidate_lists(n, args.lists)
        for ours, theirs, params in (("mmr", "mmr", {"lam": 0.5}), ("submodular", "mmr", {}),
                                     ("dpp", "dpp", {"theta": 0.5})):
            a_times, b_times, same, ks, overlap = [], [], 0, [], []
            for cands in cases:
                size = len(cands)
                vectors = np.array([it.embedding for it in cands], dtype=np.float32)
                rel = np.array([it.score for it in cands]) / max(it.score for it in cands)
                def run_a(cands=cands, ours=ours, params=params):
                    return pack(cands, args.budget, None, strategy=ours, similarity="cosine", **params)

                got = run_a()
                order = got.info.get("pick_order", [])
                k = len(order) or len(got.ids)
                ks.append(k)
                def run_b(vectors=vectors, rel=rel, k=k, theirs=theirs):
                    return pyversity.diversify(vectors, rel, k=k, strategy=theirs, diversity=0.5)

                # Compared by (score, vector): retrieved lists hold repeats (equal score and vector, the
                # same words) between which each side breaks ties its own way.
                key = {it.id: (it.score, tuple(it.embedding)) for it in cands}
                theirs_keys = [key[cands[int(i)].id] for i in run_b().indices]
                same += theirs_keys == [key[i] for i in order]
                overlap.append(len(set(theirs_keys) & {key[i] for i in order}) / max(1, len(order)))
                a, b = [], []
                for _ in range(args.repeats):  # interleaved: load changes hit both alike
                    a.append(_cpu(run_a))
                    b.append(_cpu(run_b))
                a_times.append(statistics.median(a))
                b_times.append(statistics.median(b))
            ma, mb = statistics.median(a_times), statistics.median(b_times)
            print(f"{size:>5} {ours:<11} {int(statistics.median(ks)):>4} {1e3 * ma:>9.2f} {1e3 * mb:>13.2f} "
                  f"{ma / mb if mb else float('nan'):>6.2f} " +
                  (f"{same:>5}/{len(cases)} {statistics.fmean(overlap):>8.2f}" if ours != "submodular" else
                   f"{'n/a':>11} {'n/a':>8}"))


if __name__ == "__main__":
    main()
