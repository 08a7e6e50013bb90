"""Worst observed approximation ratio per strategy on random small instances, next to the claimed bound.

    python3 -m packbench.experiments.claims.worst_ratios --n 10000 --seed 0

Each instance has 1..`max_items` candidates (scores and tokens drawn from one of
four families: uncorrelated, weakly correlated, strongly correlated, and
"one big item" instances in the style of the greedy counterexample), a budget
between 10% and 100% of the total tokens, and texts from a small vocabulary so
that similarities are non-trivial. The optimum is exact: every subset is
enumerated (at most 2**max_items, vectorised). Knapsack strategies are scored
as score / optimum score; `submodular` as f(S) / max f over feasible sets (its
own objective, with lam = 0.5). The Dantzig row is optimum / bound on the
instances where every candidate fits alone (claimed >= 1/2). Deterministic for
a given seed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

import numpy as np

from packbench.algorithms.bounds import dantzig_bound
from packbench.algorithms.items import Item, Problem
from packbench.algorithms.strategies.best_single import GreedyBestSingle
from packbench.algorithms.strategies.fptas import FPTAS
from packbench.algorithms.strategies.greedy import Greedy
from packbench.algorithms.strategies.mmr import MMR
from packbench.algorithms.strategies.prefix import Prefix
from packbench.algorithms.strategies.submodular import Submodular, SubmodularObjective

from .core import brute_force_best, subset_masks
from .groups.submodular import subset_objective_values

__all__ = ["main", "random_instance", "subset_masks", "knapsack_optimum", "submodular_optimum", "run"]

VOCAB = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa"]
FAMILIES = ("uncorrelated", "weak", "strong", "big_item")
SUBMODULAR_LAM = 0.5


def random_instance(rng: np.random.Generator, max_items: int) -> tuple[tuple[Item, ...], int, str]:
    """One random instance: (candidates, room, family)."""
    n = int(rng.integers(1, max_items + 1))
    family = FAMILIES[int(rng.integers(len(FAMILIES)))]
    tokens = rng.integers(1, 31, size=n)
    if family == "uncorrelated":
        scores = rng.uniform(0, 30, size=n)
    elif family == "weak":
        scores = np.maximum(0.0, tokens + rng.uniform(-5, 5, size=n))
    elif family == "strong":
        scores = tokens + 5.0
    else:  # a dense small item next to big ones: the shape that defeats plain greedy
        scores = tokens.astype(float)
        scores[0] = 2.0
        tokens[0] = 1
    room = max(1, int(rng.uniform(0.1, 1.0) * int(tokens.sum())))
    sources = [None, "s1", "s2", "s3"]
    items = tuple(
        Item(f"i{k}", " ".join(rng.choice(VOCAB, size=int(rng.integers(1, 8)))), float(round(scores[k], 3)),
             int(tokens[k]), source=sources[int(rng.integers(len(sources)))])
        for k in range(n))
    return items, room, family


def knapsack_optimum(items: Sequence[Item], room: int) -> float:
    """Exact best total score within `room`: the shared brute-force oracle `core.brute_force_best`."""
    return brute_force_best([it.score for it in items], [it.tokens for it in items], room)


def submodular_optimum(f: SubmodularObjective, items: Sequence[Item], room: int, masks: np.ndarray) -> float:
    """Exact max of f over feasible subsets, vectorised over all subsets."""
    w = masks @ np.array([it.tokens for it in items], dtype=np.float64)
    return float(subset_objective_values(f, masks)[w <= room].max())


def _knapsack_rows() -> list[tuple[str, str, float | None, Callable[[], object]]]:
    return [
        ("greedy", "none (2/W family)", None, Greedy),
        ("prefix", "none", None, Prefix),
        ("mmr (lam=1)", "none", None, lambda: MMR(lam=1.0)),
        ("greedy_best_single", ">= 1/2", 0.5, GreedyBestSingle),
        ("fptas (eps=0.5)", ">= 1 - eps = 0.5", 0.5, lambda: FPTAS(eps=0.5)),
        ("fptas (eps=0.1)", ">= 1 - eps = 0.9", 0.9, lambda: FPTAS(eps=0.1)),
    ]


def run(n_instances: int, seed: int, max_items: int) -> list[dict]:
    """Measure every row; returns one dict per row (name, claim, bound, worst, instances)."""
    rng = np.random.default_rng(seed)
    rows = _knapsack_rows()
    strategies = [make() for _, _, _, make in rows]
    worst = [1.0] * len(rows)
    counted = [0] * len(rows)
    sub = Submodular(lam=SUBMODULAR_LAM)
    sub_worst, sub_count = 1.0, 0
    dz_worst, dz_count = 1.0, 0
    masks_by_n = {n: subset_masks(n) for n in range(1, max_items + 1)}
    for _ in range(n_instances):
        items, room, _family = random_instance(rng, max_items)
        masks = masks_by_n[len(items)]
        problem = Problem(items, room)
        best = knapsack_optimum(items, room)
        if best > 0:
            for r, strat in enumerate(strategies):
                sel = strat.select(problem)
                worst[r] = min(worst[r], sum(items[k].score for k in sel.indices) / best)
                counted[r] += 1
            if all(it.tokens <= room for it in items):
                dz_worst = min(dz_worst, best / dantzig_bound(items, room))
                dz_count += 1
        f = SubmodularObjective(items, lam=SUBMODULAR_LAM)
        f_best = submodular_optimum(f, items, room, masks)
        if f_best > 0:
            sub_worst = min(sub_worst, sub.select(problem).info["objective"] / f_best)
            sub_count += 1
    out = [{"name": name, "claim": claim, "bound": bound, "worst": w, "instances": c}
           for (name, claim, bound, _), w, c in zip(rows, worst, counted)]
    out.append({"name": "submodular (r=1, lam=0.5; f / max f)", "claim": ">= 0.405 (Tang et al. 2021)",
                "bound": 0.405, "worst": sub_worst, "instances": sub_count})
    out.append({"name": "Dantzig bound (optimum / bound, all fit alone)", "claim": ">= 1/2", "bound": 0.5,
                "worst": dz_worst, "instances": dz_count})
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the markdown table; exit status 1 if any claimed bound is violated."""
    parser = argparse.ArgumentParser(prog="python3 -m packbench.experiments.claims.worst_ratios", description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000, help="number of random instances (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--max-items", type=int, default=10, help="largest instance size, <= 14 (default 10)")
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error(f"--n must be >= 1, got {args.n}")
    if not 1 <= args.max_items <= 14:
        parser.error(f"--max-items must be in [1, 14] (brute force is 2**n), got {args.max_items}")
    start = time.perf_counter()
    rows = run(args.n, args.seed, args.max_items)
    seconds = time.perf_counter() - start
    print(f"Worst observed ratio over {args.n} random instances (seed {args.seed}, "
          f"1..{args.max_items} items, exact optimum by enumeration; {seconds:.1f} s)\n")
    print("| strategy | claimed bound | worst observed | instances |")
    print("|---|---|---|---|")
    violated = False
    for row in rows:
        print(f"| {row['name']} | {row['claim']} | {row['worst']:.4f} | {row['instances']} |")
        if row["bound"] is not None and row["worst"] < row["bound"] - 1e-9:
            violated = True
    return 1 if violated else 0


if __name__ == "__main__":
    raise SystemExit(main())
