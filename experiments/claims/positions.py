"""Claim 8: Lost in the Middle orders under a Zipf relevance prior, per shipped curve.

For each preset of `algorithms.orders.curves.PRESETS` with k documents, the k
chosen items have Zipf scores 1/i (i = 1..k, the prior of how relevance decays
with retrieval rank), and the expected position-weighted utility
(`curves.expected_utility`) of four orders is compared:

* ``original``: the input order, taken as uniformly random (documents arrive
  in an order unrelated to relevance), so its expected utility is exactly
  mean(weights) * sum(scores); if the input is already ranked it equals
  ``score_desc``;
* ``score_desc``, ``lost_in_middle`` and ``curve`` (with that preset).

`curve` must be the maximum over *all* orders (rearrangement inequality):
checked against every simple order at k, and against every permutation of
the top 6 items (720 orders) with the curve interpolated to 6 positions, plus
random score vectors.
"""

from __future__ import annotations

import itertools

import numpy as np

from .checks import GroupOutput, PlotSpec, Settings, fmt
from .core import HOLDS, VIOLATED, ClaimResult, below, derive_rng

__all__ = ["order_utilities", "positions_claims", "zipf_scores"]

SOURCE = ("Liu et al. (2024), Lost in the Middle, TACL 12, Tables 5-7; rearrangement inequality: "
          "Hardy, Littlewood & Polya (1934), Thm. 368")
SIMPLE = ("original", "score_desc", "lost_in_middle")


def zipf_scores(k: int, exponent: float = 1.0) -> list[float]:
    """Scores 1 / i**exponent for i = 1..k."""
    return [1.0 / (i ** exponent) for i in range(1, k + 1)]


def order_utilities(scores: list[float], preset) -> dict[str, float]:
    """Expected utility of each order for these scores (input order = random for `original`)."""
    from packbench.algorithms import ORDERS, Item
    from packbench.algorithms.orders.curves import expected_utility, position_weights

    items = [Item(f"d{i}", f"d{i}", s, 1) for i, s in enumerate(scores)]
    out = {"original": float(np.mean(position_weights(preset, len(items))) * sum(scores))}
    for name in ("score_desc", "lost_in_middle"):
        out[name] = expected_utility(ORDERS[name]().arrange(items), preset)
    out["curve"] = expected_utility(ORDERS["curve"](curve=preset).arrange(items), preset)
    return out


def _all_permutations_best(scores: list[float], preset) -> float:
    from packbench.algorithms.orders.curves import position_weights

    w = position_weights(preset, len(scores))
    return max(float(np.dot(w, perm)) for perm in itertools.permutations(scores))


def positions_claims(settings: Settings) -> GroupOutput:
    """One row per shipped curve, a utilities table and a bar plot."""
    out = GroupOutput()
    from packbench.algorithms.orders.curves import PRESETS

    randoms = 20 if settings.quick else 200
    table = ["| curve | k | original (random input) | score_desc | lost_in_middle | curve | best simple order |",
             "|---|---|---|---|---|---|---|"]
    bars = []
    for name, preset in PRESETS.items():
        k = preset.documents
        zipf = zipf_scores(k)
        util = order_utilities(zipf, name)
        rng = derive_rng(settings.seed, f"positions:{name}")
        # ratio = curve utility / utility of the other order: the claim is ratio >= 1 on every instance.
        cases = [("zipf", zipf, util)]
        for _ in range(randoms):
            scores = [float(x) for x in np.round(rng.exponential(1.0, k), 4)]
            cases.append(("random", scores, order_utilities(scores, name)))
        worst_ratio, worst_case = 1.0, cases[0]
        for case in cases:
            _, _, u = case
            r = min(u["curve"] / u[o] for o in SIMPLE if u[o] > 0)
            if r < worst_ratio:
                worst_ratio, worst_case = r, case
        top = zipf[:6]
        perm_best = _all_permutations_best(top, name)
        curve6 = order_utilities(top, name)["curve"]
        exhaustive_ratio = curve6 / perm_best
        best_simple = max(SIMPLE, key=lambda o: util[o])
        verdict = VIOLATED if below(worst_ratio, 1.0) or below(exhaustive_ratio, 1.0) else HOLDS
        fname = f"claim8_{name}.json"
        record = {"claim": f"8 {name}", "curve": name, "documents": k, "label": worst_case[0],
                  "scores": worst_case[1], "utilities": worst_case[2],
                  "ratio": worst_ratio, "exhaustive_top6": {"scores": top, "curve": curve6, "best": perm_best}}
        out.rows.append(ClaimResult(
            f"8 {name}", f"curve order maximises expected position-weighted utility ({name}, k={k}); "
            f"best simple order under Zipf: {best_simple}.", SOURCE, "curve / other order >= 1",
            worst_ratio, fname, len(cases) * 4 + 720, verdict,
            "Zipf utilities: " + ", ".join(f"{o} {util[o]:.4f}" for o in SIMPLE + ("curve",)) +
            f"; curve vs all 720 orders of the top 6: {fmt(exhaustive_ratio)}",
            family=f"{fmt(min(util['curve'] / util[o] for o in SIMPLE))} (Zipf, k={k})",
            search=f"{fmt(worst_ratio)} ({randoms} random score vectors + Zipf)",
            records={fname: record}))
        table.append(f"| {name} | {k} | " + " | ".join(f"{util[o]:.4f}" for o in SIMPLE + ("curve",))
                     + f" | {best_simple} |")
        bars.append((name, [util[o] / util["curve"] for o in SIMPLE + ("curve",)]))
    out.sections.append(
        "## Claim 8: expected position-weighted utility under a Zipf prior\n\n"
        "Scores 1/i for the k documents of each curve; utility = sum over positions of weight x score "
        "(`algorithms.orders.curves.expected_utility`), weights = the paper's accuracy at that position. "
        "`original` is the expectation over a uniformly random input order.\n\n" + "\n".join(table) + "\n")
    out.plots.append(PlotSpec(
        "claim8_orders", "Claim 8: utility / curve utility under a Zipf prior (one point per position curve)",
        "order", "fraction of the curve order's utility",
        [(name, list(range(len(fr))), fr, "o") for name, fr in bars], legend_outside=True,
        xticklabels=SIMPLE + ("curve",)))
    return out
