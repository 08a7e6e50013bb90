"""The fixed benchmark suite: cases, what each one times, and the quality figures it must keep.

A case builds its input untimed (`setup`), times `run` (median of `repeats`),
and reduces the result to `quality`: figures that must match the committed
baseline exactly (scores, optimality, dedupe results). Cases marked
``quick=True`` form ``packbench bench --quick``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from packbench.algorithms import STRATEGIES, pack
from packbench.algorithms.dedupe import dedupe_indexed, dedupe_minhash
from packbench.algorithms.dedupe.minhash import lsh_params
from packbench.algorithms.strategies.exact_dp import ExactDP

from .reference import pure_python_dp, reference_pack, regex_word_count
from .workloads import pisinger_arrays, pisinger_problem, random_candidates, realistic_candidates

__all__ = ["BenchCase", "build_suite", "digest", "dedupe_agreement", "reference_for"]


@dataclass(frozen=True)
class BenchCase:
    """One benchmark case.

    Attributes:
        name: Unique name, ``group/what``.
        quick: Part of the quick suite.
        repeats: Timed runs (the median is reported).
        setup: Builds the input (not timed).
        run: The timed work, given the input.
        quality: Result -> figures that must equal the baseline's exactly.
        pair: Name of a case timed side by side that this one is compared with
            (the table shows the speedup of this case over it).
        reference: True for a fixed reference implementation (seed 000's pack,
            seed 001's DP, ...): it measures the machine, not the library, so
            the paired speed check does not time it against REF.
    """

    name: str
    quick: bool
    repeats: int
    setup: Callable[[], Any]
    run: Callable[[Any], Any]
    quality: Callable[[Any], dict[str, Any]]
    pair: str | None = None
    reference: bool = False


def digest(obj: Any) -> str:
    """Short stable hash of a JSON-serialisable object (for long id lists)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def _packing_quality(p) -> dict[str, Any]:
    return {"score": round(p.score, 9), "ids": digest(p.ids), "n_dropped": len(p.dropped),
            "dropped": digest(sorted(p.dropped.items())), "optimal": p.optimal}


def dedupe_agreement(approx: dict[str, str], exact: dict[str, str]) -> dict[str, float]:
    """Recall and precision of an approximate dropped set against the exact join's."""
    hit = len(set(approx) & set(exact))
    return {"recall": round(hit / len(exact), 6) if exact else 1.0,
            "precision": round(hit / len(approx), 6) if approx else 1.0}


def _minhash_case(n: int, quick: bool) -> BenchCase:
    def setup():
        items = random_candidates(n, seed=3)
        return items, dedupe_indexed(items, [], 0.8)[1]

    def quality(result):
        (kept, dropped), exact = result
        bands, rows = lsh_params(0.8)
        return {"bands": bands, "rows": rows, "n_dropped": len(dropped), "exact_dropped": len(exact),
                **dedupe_agreement(dropped, exact)}

    return BenchCase(f"dedupe/minhash_{n // 1000}k", quick, 1 if n > 20_000 else 3, setup,
                lambda s: (dedupe_minhash(s[0], [], 0.8), s[1]), quality, pair=None)


def _pack_cases(n: int, quick: bool, repeats: int) -> list[BenchCase]:
    """Default `pack` on the realistic workload (the main case) and on the easy one (`random_candidates`)."""
    label = f"{n // 1000}k" if n >= 1000 else str(n)

    def setup():
        from packbench.algorithms.dedupe.kernels import warm_up

        warm_up()  # compiled (or loaded from the cache) here, untimed: never inside a measured run
        return realistic_candidates(n, seed=1)

    return [BenchCase(f"pack/realistic_{label}", quick, repeats, setup,
                      lambda items: pack(items, 4_096), _packing_quality),
            BenchCase(f"pack/easy_{label}", quick, repeats, lambda: random_candidates(n, seed=1),
                      lambda items: pack(items, 16_384), _packing_quality)]


def _seed000_case(n: int, quick: bool) -> list[BenchCase]:
    """Seed 000's pack and the library's pack on the same candidates (side by side)."""
    def setup():
        return random_candidates(n, seed=2)

    ours = BenchCase(f"dedupe/pack_{n}", quick, 3, setup, lambda items: pack(items, 16_384),
                lambda p: {"ids": digest(p.ids), "n": len(p)}, pair=f"dedupe/seed000_{n}")
    ref = BenchCase(f"dedupe/seed000_{n}", quick, 1, setup, lambda items: reference_pack(items, 16_384),
                    lambda out: {"ids": digest([it.id for it in out]), "n": len(out)}, reference=True)
    return [ref, ours]


def _dp_cases() -> list[BenchCase]:
    def problem(n):
        return lambda: pisinger_problem(1, n, 32_768, seed=5)

    def arrays(n):
        def setup():
            w, p = pisinger_arrays(1, n, seed=5)
            return w.tolist(), [float(x) for x in p]
        return setup

    def sel_quality(sel):
        return {"indices": digest(list(sel.indices)), "optimal": sel.optimal, "bound": sel.upper_bound}

    cases = []
    for n, quick in ((50, True), (1000, False)):
        cases.append(BenchCase(f"dp/pure_python_{n}x32768", quick, 1, arrays(n),
                               lambda a: pure_python_dp(a[0], a[1], 32_768), lambda v: {"best": v},
                               reference=True))
        cases.append(BenchCase(f"dp/exact_dp_{n}x32768", True, 3, problem(n), ExactDP().select, sel_quality,
                          pair=f"dp/pure_python_{n}x32768"))
    return cases


def _selection_quality(result) -> dict[str, Any]:
    prob, sel = result
    return {"score": sum(prob.candidates[k].score for k in sel.indices), "optimal": sel.optimal}


def _solver_cases() -> list[BenchCase]:
    """The exact solvers on Pisinger cells where each one proves optimality within its limit."""
    cells = [(1, 1000, 32_768, ("exact", "bnb", "exact_dp"), True),
             (2, 1000, 32_768, ("exact", "bnb", "exact_dp"), True),
             (3, 100, 4_096, ("exact", "exact_dp"), True),
             (3, 1000, 32_768, ("exact", "exact_dp"), True),
             (5, 1000, 32_768, ("exact", "exact_dp"), True),
             (6, 1000, 32_768, ("exact", "bnb", "exact_dp"), True),
             (1, 10_000, 131_072, ("exact", "bnb"), False),
             (3, 10_000, 32_768, ("exact", "exact_dp"), False)]
    cases = []
    for cls, n, budget, solvers, quick in cells:
        for name in solvers:
            strategy = STRATEGIES[name]()

            cases.append(BenchCase(f"solver/{name}/c{cls}_n{n}_b{budget}", quick, 3 if n <= 1000 else 1,
                              lambda cls=cls, n=n, budget=budget: pisinger_problem(cls, n, budget, seed=11),
                              lambda prob, strategy=strategy: (prob, strategy.select(prob)),
                              _selection_quality))
    return cases


def _strategy_cases() -> list[BenchCase]:
    """Every registered strategy end to end through `pack` on 200 candidates."""
    cases = []
    for name in sorted(STRATEGIES):
        def run(items, name=name):
            try:
                return pack(items, 2_048, strategy=name)
            except (ValueError, TypeError, RuntimeError) as exc:
                return exc

        def quality(p):
            if isinstance(p, Exception):
                return {"error": type(p).__name__}
            return {"score": round(p.score, 9), "ids": digest(p.ids)}

        cases.append(BenchCase(f"strategy/{name}", True, 3,
                          lambda: random_candidates(200, seed=4, words=30), run, quality))
    return cases


def _token_cases() -> list[BenchCase]:
    def setup():
        return [it.text for it in random_candidates(1000, seed=6, words=60)]

    def run(texts):
        from packbench.algorithms.tokens import count_tokens_batch
        return count_tokens_batch(texts)

    return [BenchCase("tokens/regex_words_1k", True, 3, setup, regex_word_count, lambda total: {"words": total},
                      reference=True),
            BenchCase("tokens/count_1k", True, 3, setup, run, lambda counts: {"total": sum(counts)},
                      pair="tokens/regex_words_1k")]


# Group prefix -> the fixed reference case of the same kind of work, timed beside each case of
# the group when there is no git history to compare with.
_REFERENCE_OF_GROUP = {"pack/": "dedupe/seed000_300", "dedupe/": "dedupe/seed000_300",
                       "dp/": "dp/pure_python_50x32768", "solver/": "dp/pure_python_50x32768",
                       "strategy/": "dp/pure_python_50x32768", "tokens/": "tokens/regex_words_1k"}


def reference_for(name: str) -> str | None:
    """The quick reference case paired with case `name` in the no-history mode (None: no such group)."""
    return next((ref for group, ref in _REFERENCE_OF_GROUP.items() if name.startswith(group)), None)


def build_suite(quick: bool) -> list[BenchCase]:
    """The cases to run: the quick subset, or everything.

    Args:
        quick: Only the cases marked quick (about 20 s on a loaded 2-core machine).

    Returns:
        The cases in run order.
    """
    cases: list[BenchCase] = []
    cases += _pack_cases(1000, True, 5)
    cases += _pack_cases(10_000, True, 3)
    cases += _pack_cases(100_000, False, 1)
    cases += _seed000_case(300, True)
    cases += _seed000_case(1000, False)
    cases += _seed000_case(3000, False)
    cases.append(_minhash_case(10_000, True))
    cases.append(_minhash_case(100_000, False))
    cases += _dp_cases()
    cases += _solver_cases()
    cases += _strategy_cases()
    cases += _token_cases()
    return [c for c in cases if c.quick or not quick]
