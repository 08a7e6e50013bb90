"""Claim 7: MinHash estimator spread and the LSH candidate curve, measured against theory.

Pairs of id sets with an exact, known Jaccard similarity J are hashed with the
project's own `minhash_signatures` (fixed hash seed, as in production; the
randomness is over the inputs: each trial draws fresh ids from a small range,
like the shingle ranks dedupe hashes). Theory for ideal min-wise hashing:

* the fraction of equal signature entries estimates J with standard deviation
  sqrt(J (1 - J) / k) for k hashes (Broder 1997);
* with b bands of r rows, a pair becomes an LSH candidate with probability
  1 - (1 - J**r)**b (Leskovec, Rajaraman & Ullman, Mining of Massive Datasets,
  Ch. 3.4), for the (b, r) that `lsh_params` picks for the dedupe threshold.

Acceptance (documented sampling tolerances, not exact bounds): the measured
std must be within 4 standard errors of the sample std (~1/sqrt(2(T-1))
relative for T trials) plus 5 % of theory; the candidate rate within 4 binomial
standard errors plus 0.02 of theory. The extra allowance covers the hash family
being multiply-shift rather than truly min-wise independent.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..checks import GroupOutput, PlotSpec, Settings
from ..core import HOLDS, VIOLATED, ClaimResult, derive_rng

__all__ = ["jaccard_pairs", "std_experiment", "lsh_experiment", "minhash_claims"]

BRODER = "Broder (1997), 'On the resemblance and containment of documents'"
MMDS = "Leskovec, Rajaraman & Ullman, Mining of Massive Datasets (2014), Sec. 3.4.2"
UNION = 200  # |A ∪ B| of every pair, so J = |A ∩ B| / 200 exactly


def jaccard_pairs(rng: np.random.Generator, j: float, trials: int) -> list[list[int]]:
    """2 * trials id sets: pair t is (sets[2t], sets[2t+1]) with Jaccard exactly round(j * UNION) / UNION."""
    common = int(round(j * UNION))
    only = UNION - common
    sets: list[list[int]] = []
    for _ in range(trials):
        ids = rng.choice(20 * UNION, size=UNION, replace=False)
        shared, rest = ids[:common], ids[common:]
        split = only // 2
        sets.append(sorted(int(x) for x in np.concatenate([shared, rest[:split]])))
        sets.append(sorted(int(x) for x in np.concatenate([shared, rest[split:]])))
    return sets


def std_experiment(j: float, k: int, trials: int, seed: int) -> dict[str, Any]:
    """Mean and std of the MinHash estimate of J over `trials` pairs, with theory."""
    from packbench.algorithms.dedupe.minhash import minhash_signatures

    rng = derive_rng(seed, f"minhash-std:{j}:{k}")
    sigs = minhash_signatures(jaccard_pairs(rng, j, trials), num_perm=k)
    est = (sigs[0::2] == sigs[1::2]).mean(axis=1)
    jt = round(j * UNION) / UNION
    theory = math.sqrt(jt * (1 - jt) / k)
    std = float(est.std(ddof=1))
    slack = 4 * theory / math.sqrt(2 * (trials - 1)) + 0.05 * theory
    return {"J": jt, "k": k, "trials": trials, "seed": seed, "mean": float(est.mean()), "std": std,
            "theory_std": theory, "ratio": std / theory, "ok": abs(std - theory) <= slack,
            "bias_ok": abs(float(est.mean()) - jt) <= 4 * theory / math.sqrt(trials) + 0.01}


def lsh_experiment(s: float, bands: int, rows: int, trials: int, seed: int) -> dict[str, Any]:
    """Fraction of pairs with Jaccard s sharing at least one band, with theory."""
    from packbench.algorithms.dedupe.minhash import minhash_signatures

    rng = derive_rng(seed, f"lsh:{s}:{bands}x{rows}")
    # Full-length signatures sliced to the first bands * rows columns, as dedupe bands them.
    sigs = minhash_signatures(jaccard_pairs(rng, s, trials))[:, :bands * rows]
    equal = sigs[0::2] == sigs[1::2]
    hit = equal.reshape(trials, bands, rows).all(axis=2).any(axis=1)
    st = round(s * UNION) / UNION
    theory = 1 - (1 - st ** rows) ** bands
    rate = float(hit.mean())
    slack = 4 * math.sqrt(max(theory * (1 - theory), 1e-4) / trials) + 0.02
    return {"s": st, "bands": bands, "rows": rows, "trials": trials, "seed": seed, "rate": rate,
            "theory": theory, "ok": abs(rate - theory) <= slack}


def minhash_claims(settings: Settings) -> GroupOutput:
    """Claims 7a (estimator std) and 7b (LSH candidate curve at the default threshold 0.8)."""
    out = GroupOutput()
    from packbench.algorithms.dedupe.minhash import NUM_PERM, lsh_params
    trials = 300 if settings.quick else 2000
    js = (0.1, 0.3, 0.5, 0.7, 0.9)
    ks = (32, 64, NUM_PERM)
    std_runs = [std_experiment(j, k, trials, settings.seed) for k in ks for j in js]
    worst = max(std_runs, key=lambda r: abs(r["ratio"] - 1))
    bad = [r for r in std_runs if not (r["ok"] and r["bias_ok"])]
    out.rows.append(ClaimResult(
        "7a", "MinHash estimate of J (fraction of equal signature entries) has std ~ sqrt(J(1-J)/k).", BRODER,
        "measured std / theory ~ 1 (4 s.e. + 5 %)", worst["ratio"], "claim7a_minhash_std.json",
        len(std_runs) * trials, VIOLATED if bad else HOLDS,
        f"{len(std_runs)} (J, k) cells x {trials} pairs, J in {list(js)}, k in {list(ks)}; worst cell "
        f"J={worst['J']:g}, k={worst['k']}: std {worst['std']:.4f} vs {worst['theory_std']:.4f}"
        + ("; outside tolerance: " + ", ".join(f"J={r['J']:g} k={r['k']}" for r in bad) if bad else ""),
        family="-", search="-", records={"claim7a_minhash_std.json": {"claim": "7a", "runs": std_runs}}))
    bands, rows = lsh_params(0.8)
    grid = [round(x, 2) for x in np.arange(0.3, 1.0, 0.05)]
    lsh_runs = [lsh_experiment(s, bands, rows, trials, settings.seed) for s in grid]
    worst_l = max(lsh_runs, key=lambda r: abs(r["rate"] - r["theory"]))
    bad_l = [r for r in lsh_runs if not r["ok"]]
    out.rows.append(ClaimResult(
        "7b", f"LSH candidate probability is 1-(1-s^r)^b for the (b, r) = ({bands}, {rows}) dedupe uses at "
        "near_dup 0.8.", MMDS, "measured rate - theory ~ 0 (4 s.e. + 0.02)",
        worst_l["rate"] - worst_l["theory"], "claim7b_lsh_curve.json", len(lsh_runs) * trials,
        VIOLATED if bad_l else HOLDS,
        f"worst s={worst_l['s']:g}: rate {worst_l['rate']:.4f} vs theory {worst_l['theory']:.4f}; "
        "the worst-ratio column is measured minus theory"
        + ("; outside tolerance at s = " + ", ".join(f"{r['s']:g}" for r in bad_l) if bad_l else ""),
        family="-", search="-", records={"claim7b_lsh_curve.json": {"claim": "7b", "runs": lsh_runs}}))
    out.plots.append(PlotSpec("claim7a_minhash_std", "MinHash estimator std vs sqrt(J(1-J)/k)", "J", "std",
                              [(f"k={k} measured", list(js), [r["std"] for r in std_runs if r["k"] == k], "o")
                               for k in ks] +
                              [(f"k={k} theory", list(js), [r["theory_std"] for r in std_runs if r["k"] == k], "-")
                               for k in ks]))
    out.plots.append(PlotSpec("claim7b_lsh_curve", f"LSH candidate probability, b={bands}, r={rows}",
                              "Jaccard s", "P(candidate)",
                              [("measured", grid, [r["rate"] for r in lsh_runs], "o"),
                               ("1-(1-s^r)^b", grid, [r["theory"] for r in lsh_runs], "-")], hline=None))
    return out
