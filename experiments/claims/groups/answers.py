"""Claim 9: where the answer-bearing passage lands in packed NQ-Open contexts, per order and budget.

For each question of the `nq_open` corpus (PACKBENCH_DATA_DIR's file, else the
embedded sample; BM25 top 20 as candidates, the corpus's own answer labels)
and each budget, the default strategy chooses the passages once, then every
order arranges them: packbench's (`original`, `score_desc`, `lost_in_middle`,
`curve` with the preset being scored) and the peers' (`langchain_reorder`,
`llamaindex_reorder`, `haystack_reorder`; skipped when not installed). The
answer position is the 0-based index of the answer-bearing passage among the
packed passages (the best-placed one when several bear the answer).

Expected accuracy of a context under one of Liu et al.'s measured curves
(`algorithms.orders.curves.PRESETS`) is the curve's accuracy at the answer
position (`position_weights`, interpolated to the context's length), and 0
when no packed passage bears the answer (the same for every order, since the
order does not change the selection). The claim row names the order with the
highest mean over questions and presets, and its paired margin over the
runner-up with a bootstrap interval over questions (scipy.stats.bootstrap,
seeded).
"""

from __future__ import annotations

import numpy as np

from ..checks import GroupOutput, Settings
from ..core import HOLDS, NOT_APPLICABLE, ClaimResult

__all__ = ["ORDER_NAMES", "answer_weights", "answers_claims"]

SOURCE = "Liu et al. (2024), Lost in the Middle, TACL 12, Tables 5-7 (curves); NQ-Open (Kwiatkowski et al. 2019)"
ORDER_NAMES = ("original", "score_desc", "lost_in_middle", "curve", "langchain_reorder", "llamaindex_reorder",
               "haystack_reorder")


def _arrange(name: str, chosen: list, preset: str) -> list:
    from packbench.algorithms import ORDERS

    order = ORDERS[name](curve=preset) if name == "curve" else ORDERS[name]()
    return order.arrange(chosen)


def answer_weights(chosen: list, bearing: frozenset, name: str, presets: tuple[str, ...]
                   ) -> tuple[int | None, int, np.ndarray]:
    """(answer position or None, passages packed, curve accuracy per preset) of one order on one context."""
    from packbench.algorithms.orders.curves import position_weights

    out = np.zeros(len(presets))
    first_pos = None
    fixed = None if name == "curve" else _arrange(name, chosen, presets[0])  # only `curve` reads the preset
    for p, preset in enumerate(presets):
        ordered = fixed if fixed is not None else _arrange(name, chosen, preset)
        where = [j for j, it in enumerate(ordered) if it.id in bearing]
        if not where:
            continue
        w = position_weights(preset, len(ordered))
        best = max(where, key=lambda j: (w[j], -j))
        out[p] = w[best]
        if p == 0 or name != "curve":
            first_pos = best if first_pos is None else first_pos
    return first_pos, len(chosen), out


def _interval(x: np.ndarray, seed: int, resamples: int) -> tuple[float, float]:
    from scipy.stats import bootstrap

    if len(x) < 2 or np.all(x == x[0]):
        return float(x.mean()), float(x.mean())
    res = bootstrap((x,), np.mean, n_resamples=resamples, method="percentile", random_state=seed)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _contexts(settings: Settings, budgets: tuple[int, ...]):
    from packbench.algorithms import pack
    from packbench.experiments.corpora.nq_open import NQOpen

    source = NQOpen(n_questions=40 if settings.quick else 300, top_k=20)
    rows = []
    for inst in source.instances(settings.seed):
        for budget in budgets:
            packed = pack(list(inst.items), budget)
            chosen = [it for it in packed if not it.pinned]
            rows.append((budget, chosen, inst.answers))
    return rows, source.data_note()


def answers_claims(settings: Settings) -> GroupOutput:
    """One row per budget (the best order and its margin) and the answer-position table."""
    from packbench.algorithms import ORDERS
    from packbench.algorithms.orders.curves import PRESETS

    out = GroupOutput()
    budgets = (1000, 2000) if settings.quick else (1000, 2000, 4000)
    presets = tuple(PRESETS)
    names = [n for n in ORDER_NAMES if not getattr(ORDERS[n], "unavailable", lambda: None)()]
    skipped = [n for n in ORDER_NAMES if n not in names]
    rows, data_note = _contexts(settings, budgets)
    resamples = 400 if settings.quick else 2000
    table = ["## Answer positions in packed NQ-Open contexts", "",
             f"{data_note}; BM25 top 20, default strategy, pinned system prompt and question. Position = "
             "0-based index of the answer-bearing passage among the packed passages (the best-placed one); "
             "accuracy = Liu et al.'s curve at that position, averaged over the 11 presets, 0 without an answer "
             f"passage; 95 % bootstrap interval over questions.{' Skipped (peer not installed): ' + ', '.join(skipped) if skipped else ''}",
             "", "| budget | order | contexts with answer | first | middle | last | mean relative position | "
             "expected accuracy [95 % CI] |", "|---|---|---|---|---|---|---|---|"]
    for budget in budgets:
        ctx = [(c, b) for bud, c, b in rows if bud == budget]
        acc: dict[str, np.ndarray] = {}
        record: dict = {"claim": f"9 budget={budget}", "label": "answer positions", "budget": budget,
                        "data": data_note, "questions": len(ctx), "presets": list(presets), "orders": {}}
        for name in names:
            got = [answer_weights(c, b, name, presets) for c, b in ctx]
            acc[name] = np.array([w.mean() for _, _, w in got])
            pos = [(p, n) for p, n, _ in got if p is not None]
            first = sum(p == 0 for p, _ in pos)
            last = sum(p == n - 1 and n > 1 for p, n in pos)
            rel = np.mean([p / (n - 1) if n > 1 else 0.0 for p, n in pos]) if pos else float("nan")
            lo, hi = _interval(acc[name], settings.seed, resamples)
            k = max(len(pos), 1)
            record["orders"][name] = {"with_answer": len(pos), "first": first, "last": last,
                                      "mean_relative_position": rel, "expected_accuracy": float(acc[name].mean()),
                                      "ci95": [lo, hi]}
            table.append(f"| {budget} | {name} | {len(pos)} / {len(ctx)} | {first / k:.0%} | "
                         f"{(len(pos) - first - last) / k:.0%} | {last / k:.0%} | {rel:.3f} | "
                         f"{acc[name].mean():.4f} [{lo:.4f}, {hi:.4f}] |")
        ranked = sorted(names, key=lambda n: -acc[n].mean())
        best, second = ranked[0], ranked[1]
        diff = acc[best] - acc[second]
        lo, hi = _interval(diff, settings.seed, resamples)
        verdict = HOLDS if ctx else NOT_APPLICABLE
        fname = f"claim9_budget={budget}.json"
        record.update(best=best, runner_up=second, margin=float(diff.mean()), margin_ci95=[lo, hi],
                      ratio=float(acc[best].mean()))
        out.rows.append(ClaimResult(
            f"9 budget={budget}", f"Order maximising expected NQ-Open accuracy under Liu et al.'s curves at "
            f"{budget} tokens (answer-position measure): {best}, ahead of {second} by {diff.mean():+.4f} "
            f"[{lo:+.4f}, {hi:+.4f}] (paired, over questions).", SOURCE, "measured (no bound)",
            float(acc[best].mean()), fname, len(ctx) * len(names), verdict,
            f"{len(ctx)} questions; " + ", ".join(f"{n} {acc[n].mean():.4f}" for n in ranked)
            + (f"; skipped: {', '.join(skipped)}" if skipped else ""),
            family="-", search="-", records={fname: record}))
    out.sections.append("\n".join(table))
    return out
