"""Text-layer speed side by side: pack at 10k vs 100k, each dedupe rule at 10k, MMR and submodular per call.

Run ``python -m packbench.experiments.bench.text_speed`` (``--quick`` for fewer
rounds). Every section interleaves its cases round by round, so machine load
hits them alike, and prints medians (and ratios where two cases are compared).
Nothing here asserts a speed; the figures are for reading.

Sections:

0. The word-trigram distinct share of the workloads beside real NQ-Open
   passages (the embedded sample; the full file when the data directory has it).
   With ``--against DIR`` only the side-by-side table of `text_ab` follows.
1. ``pack`` with the default dedupe ("jaccard" at 0.8, greedy_best_single,
   budget 4096) and with dedupe off, on 1,000, 10,000 and 100,000 candidates
   of the realistic workload (`realistic_candidates`) and of the easy one
   (`random_candidates`): medians, the kernel's share of each (fresh pages for
   large arrays: the allocator's doing, not the algorithm's), and the 100k /
   10k ratios.
2. Each dedupe method on the same 10,000 candidates (hashing embeddings of
   256 dimensions, precomputed, for "semantic").
3. ``mmr`` and ``submodular`` with ``similarity="cosine"`` on precomputed
   embeddings, at 200 and 1,000 candidates (tokens 1, budget 20: 20 picks),
   next to a plain numpy MMR over a precomputed similarity matrix and
   LangChain's ``maximal_marginal_relevance`` (when ``langchain_community`` is
   installed) on the same vectors, with the query cosine as relevance.
4. 100,000 candidates: ``mmr`` (cosine) gives a result; ``submodular``
   refuses with the memory cap's message (printed), never a MemoryError.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import DEDUPE_METHODS
from packbench.algorithms.embed import embed_texts
from packbench.algorithms.vectors import normalised_rows

from .text_ab import speed_table
from .workloads import random_candidates, realistic_candidates

try:
    import resource
except ImportError:  # not on Windows
    resource = None

__all__ = ["interleaved", "interleaved_split", "numpy_mmr", "workload_shares", "main"]


def _kernel_seconds() -> float:
    """System CPU seconds of this process (getrusage's microseconds where there is one, else clock ticks)."""
    if resource is None:
        return os.times().system
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def interleaved(cases: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds per case, the cases run one after another in each round."""
    return {name: wall for name, (wall, _) in interleaved_split(cases, rounds).items()}


def interleaved_split(cases: dict[str, Callable[[], object]], rounds: int) -> dict[str, tuple[float, float]]:
    """Per case, the median wall seconds and the median seconds the kernel spent for the process.

    The kernel's share is mostly zeroing fresh pages for large arrays: it depends
    on the allocator's policy (glibc hands blocks over 32 MiB back to the system
    when freed), not on the algorithm, so it is reported apart.
    """
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            before, start = _kernel_seconds(), time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start, _kernel_seconds() - before))
    return {name: (statistics.median(w for w, _ in ts), statistics.median(k for _, k in ts))
            for name, ts in times.items()}


def numpy_mmr(query: np.ndarray, docs: np.ndarray, lam: float, k: int) -> list[int]:
    """Textbook MMR over unit vectors: argmax lam * sim(q, d) - (1 - lam) * max sim(d, chosen)."""
    rel = docs @ query
    sim = docs @ docs.T
    chosen = [int(np.argmax(rel))]
    redundancy = sim[:, chosen[0]].copy()
    live = np.ones(len(docs), dtype=bool)
    live[chosen[0]] = False
    while len(chosen) < min(k, len(docs)):
        value = np.where(live, lam * rel - (1 - lam) * redundancy, -np.inf)
        pick = int(np.argmax(value))
        chosen.append(pick)
        live[pick] = False
        np.maximum(redundancy, sim[:, pick], out=redundancy)
    return chosen


def _diversity_items(n: int, seed: int = 0, dim: int = 256) -> tuple[list[Item], np.ndarray, np.ndarray]:
    texts = [it.text for it in random_candidates(n, seed=seed, words=80)]
    vecs = normalised_rows(embed_texts(texts, dim=dim))
    query = normalised_rows(embed_texts([" ".join(texts[0].split()[:12])], dim=dim))[0]
    rel = np.maximum(vecs @ query, 0.0)
    items = [Item(f"c{k}", t, float(rel[k]), 1, embedding=vecs[k]) for k, t in enumerate(texts)]
    return items, vecs, query


def workload_shares() -> list[tuple[str, int, float, float | None]]:
    """(what, texts, workload's word-trigram distinct share, the real passages' share) at equal text counts.

    Real: the embedded sample's 300 passages (held out from the fit) and, when
    the full NQ-Open file is in the data directory, its 2,587 distinct passages.
    """
    from packbench.algorithms.dedupe import words
    from packbench.experiments.corpora.data import NQ_OPEN_FILE, NQ_OPEN_SAMPLE, DataError, data_dir, \
        read_jsonl_gz, sample_path
    from packbench.experiments.corpora.word_stats import passage_words, trigram_distinct_share

    reals = {"sample": passage_words(read_jsonl_gz(sample_path(NQ_OPEN_SAMPLE)))}
    if (data_dir() / NQ_OPEN_FILE.name).is_file():
        try:
            from packbench.experiments.corpora.data import fetch

            reals["full"] = passage_words(read_jsonl_gz(fetch(NQ_OPEN_FILE)))
        except DataError:
            pass
    rows = []
    for label, real in reals.items():
        n, real_share = len(real), trigram_distinct_share(real)
        for name, items in (("realistic", realistic_candidates(n, seed=0, dup_share=0.0)),
                            ("realistic + 10% copies", realistic_candidates(n, seed=0)),
                            ("easy (random_candidates)", random_candidates(n, seed=0))):
            rows.append((f"{name} vs {label}", n, trigram_distinct_share(words(it.text) for it in items), real_share))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--against", metavar="DIR", help="print only the side-by-side table with the packbench "
                        "that DIR (first on PYTHONPATH) provides, e.g. a git archive of the previous main")
    parser.add_argument("--against-python", metavar="EXE", help="the other side's interpreter (default: this one)")
    parser.add_argument("--seed", type=int, default=3, help="the --against workloads' seed (default 3; others "
                        "are held out from the C join's tuning)")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else 7

    print("0. word-trigram distinct share: workload vs real NQ-Open passages, equally many texts")
    for what, n, share, real in workload_shares():
        print(f"   {what:>36} ({n:,} texts): {share:.3f} vs real {real:.3f} ({share - real:+.3f})")

    if args.against:
        print(f"A/B. default pack (budget 4096, jaccard 0.8) vs the code at {args.against}, CPU and wall, "
              f"{rounds} interleaved rounds, medians, workload seed {args.seed}")
        for line in speed_table(args.against, rounds=rounds, python=args.against_python, seed=args.seed):
            print("   " + line)
        return 0

    from packbench.algorithms.dedupe.kernels import warm_up

    warm_up()  # compiled kernels loaded (or compiled) before any timing
    print("1. pack, default dedupe (jaccard 0.8), greedy_best_single, budget 4096: realistic and easy workloads")
    sets = {n: realistic_candidates(n, seed=3) for n in (10_000, 100_000)}
    cases = {}
    for label, make in (("realistic", realistic_candidates), ("easy", random_candidates)):
        for n in (1_000, 10_000, 100_000):
            s = sets[n] if label == "realistic" and n in sets else make(n, seed=3)
            cases[f"{label} {n:,}"] = lambda s=s: pack(s, 4096)
            cases[f"{label} {n:,} no dedupe"] = lambda s=s: pack(s, 4096, near_dup=None)
    split = interleaved_split(cases, rounds)
    for name, (sec, kernel) in split.items():
        print(f"   {name:>28} candidates: median {sec * 1e3:8.1f} ms ({kernel * 1e3:.1f} ms of it in the kernel)")
    med = {name: sec for name, (sec, _) in split.items()}
    for label in ("realistic", "easy"):
        print(f"   {label}: 100k / 10k ratio {med[f'{label} 100,000'] / med[f'{label} 10,000']:.1f}x with dedupe, "
              f"{med[f'{label} 100,000 no dedupe'] / med[f'{label} 10,000 no dedupe']:.1f}x without")

    print("2. dedupe methods, 10,000 candidates, threshold 0.8")
    items = sets[10_000]
    vecs = embed_texts([it.text for it in items])
    embedded = [Item(it.id, it.text, it.score, it.tokens, embedding=v) for it, v in zip(items, vecs)]
    methods = {name: (lambda m=DEDUPE_METHODS[name](): m.dedupe(embedded, [], 0.8))
               for name in ("jaccard", "containment", "minhash", "semantic")}
    for name, sec in interleaved(methods, rounds).items():
        print(f"   {name:>12}: median {sec:.3f} s")

    print("3. diversity with precomputed 256-d embeddings, 20 picks, lam 0.5: median ms per call")
    try:
        from langchain_community.vectorstores.utils import maximal_marginal_relevance
    except ImportError:
        maximal_marginal_relevance = None
    for n in (200, 1000):
        cands, unit, query = _diversity_items(n)
        cases = {
            "mmr": lambda c=cands: pack(c, 20, near_dup=None, strategy="mmr", lam=0.5, similarity="cosine"),
            "submodular": lambda c=cands: pack(c, 20, near_dup=None, strategy="submodular", similarity="cosine"),
            "numpy MMR": lambda u=unit, q=query: numpy_mmr(q, u, 0.5, 20),
        }
        if maximal_marginal_relevance is not None:
            cases["LangChain MMR"] = lambda u=unit, q=query: maximal_marginal_relevance(q, list(u), 0.5, 20)
        med = interleaved(cases, rounds * 3)
        print(f"   {n:>5} candidates: " + ", ".join(f"{k} {v * 1e3:.2f}" for k, v in med.items()))
    if maximal_marginal_relevance is None:
        print("   (LangChain not installed: pip install 'packbench[peers-langchain]')")

    print("4. 100,000 candidates with embeddings")
    big, _, _ = _diversity_items(100_000, seed=1, dim=64)
    start = time.perf_counter()
    out = pack(big, 20, near_dup=None, strategy="mmr", lam=0.5, similarity="cosine")
    print(f"   mmr (cosine): {len(out)} picks in {time.perf_counter() - start:.2f} s")
    try:
        pack(big, 20, near_dup=None, strategy="submodular", similarity="cosine")
        print("   submodular: ran")
    except ValueError as exc:
        print(f"   submodular refuses: {exc}")
    start = time.perf_counter()
    out = pack(big, 20, near_dup=None, strategy="submodular", similarity="cosine", top_k=2000)
    print(f"   submodular top_k=2000: {len(out)} picks in {time.perf_counter() - start:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
