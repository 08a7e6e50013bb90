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
twin: it is timed against pyversity's ``cover`` (facility location over the
same n x n similarity matrix, a concave coverage gain per step), told to make
as many picks as ours makes on that list, so both do the same number of greedy
steps.

Timing is CPU (`time.process_time`). Each round times every case, ours and
pyversity's back to back on the same list (who goes first alternates by round
and list), so both sides see the same machine state; a round's ratio is our
CPU over pyversity's, summed over the lists. The table gives each side's
median per call, the median of the per-round ratios, their interquartile range
and a bootstrap 95% interval of that median, and a verdict against ``--limit``:
``ok`` when the whole interval is at or under it, ``OVER`` when the whole
interval is above, ``unsure`` otherwise (more rounds). ``--busy N`` runs N
busy-loop processes beside the timing (a loaded machine). ``same`` counts lists
whose picks agree in order. ``--against DIR`` times `pack`'s fixed overhead on
a tiny input against the code at DIR (see `overhead_ab`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
from packbench.algorithms import Item, pack
from packbench.algorithms.pack import stage_calls

from ..corpora.nq_open import NQOpen

__all__ = ["candidate_lists", "pyversity_pack", "ratio_summary", "main"]

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
    """The timed calls of one list ({way: (ours, theirs)}), whether the picks agree, and our picks."""
    import pyversity

    vectors = np.array([it.embedding for it in cands], dtype=np.float32)
    rel = np.array([it.score for it in cands]) / max(it.score for it in cands)
    ref = pyversity.diversify(vectors, rel, k=k, strategy="mmr" if ours == "submodular" else theirs,
                              **their_params).indices.tolist()
    budget = sum(cands[i].tokens for i in ref)
    kwargs = dict(strategy=ours, similarity="cosine", **params)
    got = pack(cands, budget, None, **kwargs)
    same = None if ours == "submodular" else got.info["pick_order"] == [cands[i].id for i in ref]
    # cover makes as many picks as our submodular did (the same number of greedy steps); mmr and dpp: k.
    k_theirs = len(got.ids) if ours == "submodular" else k
    calls = {"pack": (lambda: pack(cands, budget, None, **kwargs),
                      lambda: pyversity_pack(cands, budget, k_theirs, theirs, **their_params)),
             "select": (stage_calls(cands, budget, None, **kwargs)["select"],
                        lambda: pyversity.diversify(vectors, rel, k=k_theirs, strategy=theirs, **their_params))}
    return calls, same, len(got.ids)


def ratio_summary(ours: np.ndarray, theirs: np.ndarray, limit: float, resamples: int = 4000,
                  seed: int = 0) -> dict:
    """The per-round ratios of summed CPU and what the table prints of them.

    Args:
        ours, theirs: CPU seconds, shape (rounds, lists), measured side by side.
        limit: The ratio the verdict is against.
        resamples, seed: Of the bootstrap of the median (its own generator: no global state).

    Returns:
        ``ours``, ``theirs`` (medians over rounds of the mean per call), ``ratio`` (median of the
        per-round ratios), ``q1``, ``q3``, ``lo``, ``hi`` (bootstrap 95% interval of that median),
        ``verdict`` ("ok", "OVER" or "unsure", see the module doc).
    """
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    ratio = ours.sum(axis=1) / theirs.sum(axis=1)
    boot = np.median(np.random.default_rng(seed).choice(ratio, size=(resamples, len(ratio))), axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    q1, q3 = np.percentile(ratio, [25, 75])
    verdict = "ok" if hi <= limit else "OVER" if lo > limit else "unsure"
    return {"ours": float(np.median(ours.mean(axis=1))), "theirs": float(np.median(theirs.mean(axis=1))),
            "ratio": float(np.median(ratio)), "q1": float(q1), "q3": float(q3), "lo": float(lo), "hi": float(hi),
            "verdict": verdict}


def _time_rounds(cases: dict, rounds: int) -> dict:
    """{(method, way, side): (rounds, lists) CPU seconds}; round 0, untimed, warms the caches."""
    times = {(m, way, side): np.zeros((rounds, len(cs))) for m, cs in cases.items() for way in ("pack", "select")
             for side in (0, 1)}
    for r in range(rounds + 1):
        for m, cs in cases.items():
            for i, (calls, _, _) in enumerate(cs):
                for way, pair in calls.items():
                    for side in ((0, 1) if (r + i) % 2 else (1, 0)):
                        t = _cpu(pair[side])
                        if r:
                            times[m, way, side][r - 1, i] = t
    return times


def _busy(count: int) -> list[subprocess.Popen]:
    """`count` child processes that spin until killed (a loaded machine for the timing)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main(argv: Sequence[str] | None = None) -> None:
    """Print, per n, method and way: CPU medians, the median per-round ratio with its spread, and picks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--lists", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=31, help="timed rounds (each: every case, both sides)")
    parser.add_argument("--k", type=int, default=32, help="pyversity's picks; the budget is their tokens")
    parser.add_argument("--seed", type=int, default=0, help="question sample (the kernels were tuned on seed 0)")
    parser.add_argument("--methods", nargs="+", choices=[m[0] for m in METHODS], default=[m[0] for m in METHODS],
                        help="time only these of ours")
    parser.add_argument("--limit", type=float, default=1.2, help="the ratio the verdict is against")
    parser.add_argument("--busy", type=int, default=0, metavar="N", help="run N busy-loop processes beside it")
    parser.add_argument("--against", metavar="DIR", help="also time pack's fixed overhead against the code at DIR")
    args = parser.parse_args(argv)
    spinners = _busy(args.busy)
    try:
        _table(args)
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()


def _table(args: argparse.Namespace) -> None:
    """Time every size and method of `args` and print the table (see the module doc)."""
    print(f"seed {args.seed}; {args.repeats} rounds; {args.busy} busy loops; load average "
          f"{os.getloadavg()[0]:.2f} (1 min); OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"{'n':>5} {'ours':<11} {'vs':<6} {'way':<7} {'picks':>5} {'ours ms':>8} {'theirs ms':>10} {'ratio':>6} "
          f"{'IQR':>11} {'95% CI':>11} {'<=' + format(args.limit, 'g'):>7} {'same':>5}")
    from packbench.algorithms.strategies.dpp import DPP
    from packbench.algorithms.strategies.mmr import MMR
    from packbench.algorithms.strategies.submodular import Submodular

    MMR.warm_up(), DPP.warm_up(), Submodular.warm_up()  # compiled steps load here, not in a timed call
    for n in args.sizes:
        lists = candidate_lists(n, args.lists, args.seed)
        methods = [m for m in METHODS if m[0] in args.methods]
        cases = {m[0]: [_case(c, args.k, *m) for c in lists] for m in methods}
        times = _time_rounds(cases, args.repeats)
        for m, theirs, _, _ in methods:
            cs = cases[m]
            same = "n/a" if m == "submodular" else f"{sum(bool(c[1]) for c in cs)}/{len(cs)}"
            picks = int(statistics.median(c[2] for c in cs))
            for way in ("pack", "select"):
                s = ratio_summary(times[m, way, 0], times[m, way, 1], args.limit)
                print(f"{n:>5} {m:<11} {theirs:<6} {way:<7} {picks:>5} {1e3 * s['ours']:>8.2f} "
                      f"{1e3 * s['theirs']:>10.2f} {s['ratio']:>6.2f} {s['q1']:>5.2f}-{s['q3']:<5.2f} "
                      f"{s['lo']:>5.2f}-{s['hi']:<5.2f} {s['verdict']:>7} {same:>5}")
    if args.against:
        from .overhead_ab import overhead_table

        print(f"pack's fixed overhead vs the code at {args.against} (tiny input, CPU, interleaved, medians)")
        for line in overhead_table(args.against, rounds=args.repeats):
            print("  " + line)


if __name__ == "__main__":
    main()
