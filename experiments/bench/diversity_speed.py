"""`mmr`, `dpp` and `submodular` against pyversity on the same vectors: CPU time, both ways a user pays, and picks.

Run ``python -m packbench.experiments.bench.diversity_speed`` (needs the
pyversity extra; ``OPENBLAS_NUM_THREADS=1`` for one-thread figures).
Candidates: the top-n BM25 passages of NQ-Open questions (the full file with
``PACKBENCH_DATA_DIR``, else the embedded sample, which caps n at its pool),
each with its hashing embedding; relevance is the score over the largest score
for both sides.

The budget of each list is the tokens of pyversity's first ``k`` picks, so a
budgeted greedy that takes the best fitting candidate takes exactly those
(each fits while they all do) and both sides do ``k`` greedy steps. Two
figures per method:

* ``pack``: ours is ``pack(items, budget, None, strategy=..., similarity="cosine")``;
  pyversity's is what its user must write for a token budget: stack the
  items' embeddings and scores into arrays, ``diversify(..., k)``, keep the
  picks that fit. (It is told the ``k`` that fills the budget, which a user
  would have to guess.)
* ``select``: the strategy's ``select`` on the `Problem` pack gives it, vs
  ``diversify`` on ready arrays.

``submodular`` (facility location plus per-source relevance) has no pyversity
twin: it is timed against pyversity's ``cover`` (facility location, the same
n x n similarity matrix) and its ratio against ``mmr`` is printed too. Timing
is CPU (`time.process_time`), all cases interleaved, the median per list and
the median over lists. ``same`` counts lists whose picks agree in order. ``--against DIR`` times `pack`'s fixed
overhead on a tiny input against the code at DIR (see `overhead_ab`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np
from packbench.algorithms import Item, pack
from packbench.algorithms.pack import stage_calls

from ..corpora.nq_open import NQOpen

__all__ = ["candidate_lists", "pyversity_pack", "main"]

# (ours, pyversity's strategy, our params, pyversity's params)
METHODS = (("mmr", "mmr", {"lam": 0.5}, {"diversity": 0.5}),
           ("dpp", "dpp", {"theta": 0.5}, {"diversity": 0.5}),
           ("submodular", "cover", {}, {"diversity": 0.5}))


def candidate_lists(n: int, lists: int, seed: int = 0) -> list[list[Item]]:
    """`lists` retrieval lists of `n` candidates each: pinned items and exact repeats dropped.

    The passages come in two copies (a "ctx" and a "long" one, equal score and vector, tokens
    sometimes one apart), between which each side breaks the tie its own way (our lower id,
    pyversity's lower index) and so fills the budget differently: the first copy is kept, and
    twice `n` are retrieved so that `n` remain.
    """
    source = NQOpen(n_questions=lists, top_k=2 * n)
    out = []
    for inst in source.instances(seed):
        seen: set = set()
        distinct = [it for it in inst.items if not it.pinned
                    and not ((it.score, it.embedding.tobytes()) in seen or seen.add((it.score, it.embedding.tobytes())))]
        out.append(distinct[:n])
    return out


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def pyversity_pack(items: Sequence[Item], budget: int, k: int, strategy: str, **params) -> list[Item]:
    """What a pyversity user writes for a token budget: arrays from the items, diversify, keep what fits."""
    import pyversity

    vectors = np.array([it.embedding for it in items], dtype=np.float32)
    scores = np.array([it.score for it in items])
    picked = pyversity.diversify(vectors, scores / scores.max(), k=k, strategy=strategy, **params).indices
    out, used = [], 0
    for i in picked.tolist():
        if used + items[i].tokens <= budget:
            out.append(items[i])
            used += items[i].tokens
    return out


def _case(cands: list[Item], k: int, ours: str, theirs: str, params: dict, their_params: dict):
    """The four timed calls of one list and whether the picks agree."""
    import pyversity

    vectors = np.array([it.embedding for it in cands], dtype=np.float32)
    rel = np.array([it.score for it in cands]) / max(it.score for it in cands)
    ref = pyversity.diversify(vectors, rel, k=k, strategy="mmr" if ours == "submodular" else theirs,
                              **their_params).indices.tolist()
    budget = sum(cands[i].tokens for i in ref)
    kwargs = dict(strategy=ours, similarity="cosine", **params)
    got = pack(cands, budget, None, **kwargs)
    same = None if ours == "submodular" else got.info["pick_order"] == [cands[i].id for i in ref]
    calls = {"pack": (lambda: pack(cands, budget, None, **kwargs),
                      lambda: pyversity_pack(cands, budget, k, theirs, **their_params)),
             "select": (stage_calls(cands, budget, None, **kwargs)["select"],
                        lambda: pyversity.diversify(vectors, rel, k=k, strategy=theirs, **their_params))}
    return calls, same, len(got.ids)


def main(argv: Sequence[str] | None = None) -> None:
    """Print, per n, method and way: CPU medians, the ratio ours / pyversity and pick agreement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--lists", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--k", type=int, default=32, help="pyversity's picks; the budget is their tokens")
    parser.add_argument("--seed", type=int, default=0, help="question sample (the kernels were tuned on seed 0)")
    parser.add_argument("--methods", nargs="+", choices=[m[0] for m in METHODS], default=[m[0] for m in METHODS],
                        help="time only these of ours (submodular's line against mmr needs mmr)")
    parser.add_argument("--against", metavar="DIR", help="also time pack's fixed overhead against the code at DIR")
    args = parser.parse_args(argv)
    print(f"seed {args.seed}; load average {os.getloadavg()[0]:.2f} (1 min); OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"{'n':>5} {'ours':<11} {'vs':<6} {'way':<7} {'picks':>5} {'ours ms':>8} {'theirs ms':>10} {'ratio':>6} "
          f"{'same':>5}")
    from packbench.algorithms.strategies.dpp import DPP
    from packbench.algorithms.strategies.mmr import MMR

    MMR.warm_up(), DPP.warm_up()  # compiled steps load here, not in a timed call
    for n in args.sizes:
        lists = candidate_lists(n, args.lists, args.seed)
        methods = [m for m in METHODS if m[0] in args.methods]
        cases = {m[0]: [_case(c, args.k, *m) for c in lists] for m in methods}
        times = {(m, way, side, i): [] for m, cs in cases.items() for i in range(len(cs))
                 for way in ("pack", "select") for side in (0, 1)}
        for r in range(args.repeats + 1):  # round 0 untimed: warm caches; then every case in turn
            for m, cs in cases.items():
                for i, (calls, _, _) in enumerate(cs):
                    for way, pair in calls.items():
                        for side in ((0, 1) if r % 2 else (1, 0)):
                            t = _cpu(pair[side])
                            if r:
                                times[m, way, side, i].append(t)
        med = {key: statistics.median(v) for key, v in times.items()}
        for m, theirs, _, _ in methods:
            cs = cases[m]
            same = "n/a" if m == "submodular" else f"{sum(bool(c[1]) for c in cs)}/{len(cs)}"
            for way in ("pack", "select"):
                a = statistics.median(med[m, way, 0, i] for i in range(len(cs)))
                b = statistics.median(med[m, way, 1, i] for i in range(len(cs)))
                picks = int(statistics.median(c[2] for c in cs))
                print(f"{n:>5} {m:<11} {theirs:<6} {way:<7} {picks:>5} {1e3 * a:>8.2f} {1e3 * b:>10.2f} "
                      f"{a / b:>6.2f} {same:>5}")
            if m == "submodular" and "mmr" in cases:
                for way in ("pack", "select"):
                    a = statistics.median(med[m, way, 0, i] for i in range(len(cs)))
                    b = statistics.median(med["mmr", way, 1, i] for i in range(len(cases["mmr"])))
                    print(f"{n:>5} {m:<11} {'mmr':<6} {way:<7} {'':>5} {1e3 * a:>8.2f} {1e3 * b:>10.2f} "
                          f"{a / b:>6.2f} {'n/a':>5}")
    if args.against:
        from .overhead_ab import overhead_table

        print(f"pack's fixed overhead vs the code at {args.against} (tiny input, CPU, interleaved, medians)")
        for line in overhead_table(args.against, rounds=args.repeats):
            print("  " + line)


if __name__ == "__main__":
    main()
