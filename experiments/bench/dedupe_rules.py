"""Leakage and answer recall of every dedupe rule on every text corpus, side by side.

Run ``python -m packbench.experiments.bench.dedupe_rules`` (NQ-Open needs
``PACKBENCH_DATA_DIR`` with the full file; without it the embedded sample is
used and the row says so). For each corpus part, rule and budget, every
instance is packed with the default strategy (``greedy_best_single``) at
``near_dup`` 0.8 and the table gives the mean share of packed candidate tokens
that duplicate an earlier packed candidate (by the corpus's ground truth;
python_docs has none, so its column uses the independent 5-gram containment
detector of `metrics.containment_leaks`) and the share of questions whose
context holds an answer-bearing candidate.

Parts: ``tune`` are the seeds and texts the near-copy rule was tuned on
(NQ-Open seed 0, python_docs seed 0, package_docs numpy/pandas seed 0);
``held_out`` were never looked at while tuning (NQ-Open seeds 1-2,
python_docs seeds 1-2, package_docs scipy seeds 0-1).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence

from packbench.algorithms import pack
from packbench.algorithms.dedupe import Containment, Exact, MinHash, Semantic
from packbench.algorithms.dedupe.nearcopy import NearCopy, NearCopyContainer

from ..corpora.nq_open import NQOpen
from ..corpora.package_docs import PackageDocs
from ..corpora.python_docs import PythonDocs
from ..instances import Instance
from ..metrics import answer_recall, duplicate_leakage

__all__ = ["RULES", "CASES", "measure", "main"]

# (column label, dedupe name or None for off); names read off the classes.
RULES: tuple[tuple[str, str | None], ...] = (
    ("jaccard", Exact.name), ("containment", Containment.name), ("semantic", Semantic.name),
    ("minhash", MinHash.name), (NearCopy.name, NearCopy.name),
    ("container", NearCopyContainer.name), ("off", None))

# (corpus label, part, source factory, seeds)
CASES = (
    ("nq_open", "tune", lambda: NQOpen(n_questions=200, top_k=20), (0,)),
    ("nq_open", "held_out", lambda: NQOpen(n_questions=200, top_k=20), (1, 2)),
    ("python_docs", "tune", lambda: PythonDocs(n_queries=40, top_k=20), (0,)),
    ("python_docs", "held_out", lambda: PythonDocs(n_queries=40, top_k=20), (1, 2)),
    ("package_docs", "tune", lambda: PackageDocs(part="tune"), (0,)),
    ("package_docs", "held_out", lambda: PackageDocs(part="held_out"), (0, 1)),
)


def measure(instances: Sequence[Instance], dedupe: str | None, budget: int) -> dict[str, float]:
    """Mean leaked-token share, mean answer recall and mean packed candidates over `instances`.

    Args:
        instances: Instances with ground truth (groups may be None: the 5-gram detector is used).
        dedupe: A dedupe name, or None for dedupe off.
        budget: Token budget.

    Returns:
        ``leak`` (mean share of packed candidate tokens that leak), ``recall`` and ``packed``.
    """
    leaks, recalls, packed = [], [], []
    for inst in instances:
        got = pack(inst.items, budget, None if dedupe is None else 0.8,
                   **({} if dedupe is None else {"dedupe": dedupe}))
        chosen = [it for it in got if not it.pinned]
        leaks.append(duplicate_leakage(chosen, inst.groups)["leak_tokens"])
        recalls.append(answer_recall([it.id for it in got], inst.answers))
        packed.append(len(chosen))
    return {"leak": statistics.fmean(leaks), "recall": statistics.fmean(recalls),
            "packed": statistics.fmean(packed)}


def main(argv: Sequence[str] | None = None) -> None:
    """Print the leakage / recall table (one line per corpus part and budget, one column pair per rule)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[512, 1024])
    parser.add_argument("--corpora", nargs="+", default=sorted({c[0] for c in CASES}))
    args = parser.parse_args(argv)
    head = "corpus        part      budget  n  " + "  ".join(f"{label:>16}" for label, _ in RULES)
    print("leak% (packed tokens duplicating an earlier packed item) / answer recall, greedy_best_single, 0.8")
    print(head)
    for corpus, part, make, seeds in CASES:
        if corpus not in args.corpora:
            continue
        source = make()
        instances = [inst for seed in seeds for inst in source.instances(seed)]
        note = getattr(source, "data_note", lambda: "")()
        for budget in args.budgets:
            cells = []
            for _, name in RULES:
                m = measure(instances, name, budget)
                cells.append(f"{100 * m['leak']:6.2f}% / {m['recall']:.3f}")
            print(f"{corpus:<13} {part:<9} {budget:>6} {len(instances):>3}  " + "  ".join(f"{c:>16}" for c in cells))
        if note:
            print(f"  ({corpus}: {note})")


if __name__ == "__main__":
    main()
