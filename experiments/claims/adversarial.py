"""Seeded local search for the small instances on which a heuristic does worst.

The search keeps one instance (n <= 12 items, small budget), mutates scores,
token counts, the budget, item count and, when asked, sources and texts, and
keeps a mutation when the heuristic's ratio to the exact optimum does not get
worse (with a small, decreasing chance of accepting a worse one, so it can
leave a plateau). It restarts from a fresh random instance several times and
returns the worst instance seen. Same seed, same space, same steps: same result.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from .core import Case, items_of

__all__ = ["SearchSpace", "SearchResult", "RatioFn", "adversarial_search", "random_case"]

# (heuristic value, exact optimum), or None when the case is degenerate (optimum 0).
RatioFn = Callable[[Case], "tuple[float, float] | None"]

_T0 = 0.02  # initial temperature, in ratio units: accept a 0.02-worse ratio with probability 1/e


@dataclass(frozen=True)
class SearchSpace:
    """Which instances the search may visit.

    Attributes:
        n_min: Fewest items.
        n_max: Most items (<= 12 keeps brute force at 4,096 subsets).
        budget_max: Largest budget.
        score_max: Largest score of a freshly drawn item.
        sources: Source labels to assign (empty: items have no source).
        texts: Pool of texts to assign (empty: each item's text is its id).
    """

    n_min: int = 2
    n_max: int = 12
    budget_max: int = 48
    score_max: float = 10.0
    sources: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.n_min <= self.n_max <= 16:
            raise ValueError(f"need 1 <= n_min <= n_max <= 16, got n_min={self.n_min}, n_max={self.n_max}")
        if self.budget_max < 2:
            raise ValueError(f"budget_max must be >= 2, got {self.budget_max}")


@dataclass(frozen=True)
class SearchResult:
    """The worst case found, its ratio, and the search's history.

    Attributes:
        case: The worst instance.
        ratio: value / optimum on it.
        value: The heuristic's value on it.
        optimum: The exact optimum on it.
        tried: Instances evaluated (degenerate ones included).
        trace: Worst ratio so far after each evaluation (for the convergence plot).
    """

    case: Case
    ratio: float
    value: float
    optimum: float
    tried: int
    trace: tuple[float, ...]


@dataclass(frozen=True)
class _State:
    scores: tuple[float, ...]
    tokens: tuple[int, ...]
    budget: int
    texts: tuple[int, ...]
    sources: tuple[int, ...]

    def case(self, space: SearchSpace) -> Case:
        texts = [space.texts[t] for t in self.texts] if space.texts else None
        sources = [space.sources[s] for s in self.sources] if space.sources else None
        return Case(items_of(self.scores, self.tokens, texts, sources), self.budget)


def _score(x: float) -> float:
    # Three decimals keep saved instances readable; the ratio is computed on the rounded values.
    return max(0.001, round(float(x), 3))


def _fresh_item(rng: np.random.Generator, space: SearchSpace, budget: int) -> tuple[float, int, int, int]:
    return (_score(rng.uniform(0.05, space.score_max)), int(rng.integers(1, budget + 1)),
            int(rng.integers(len(space.texts))) if space.texts else 0,
            int(rng.integers(len(space.sources))) if space.sources else 0)


def _random_state(rng: np.random.Generator, space: SearchSpace) -> _State:
    n = int(rng.integers(space.n_min, space.n_max + 1))
    budget = int(rng.integers(2, space.budget_max + 1))
    rows = [_fresh_item(rng, space, budget) for _ in range(n)]
    return _State(tuple(r[0] for r in rows), tuple(r[1] for r in rows), budget,
                  tuple(r[2] for r in rows), tuple(r[3] for r in rows))


def random_case(rng: np.random.Generator, space: SearchSpace) -> Case:
    """A fresh random instance of the space."""
    return _random_state(rng, space).case(space)


def _set(seq: tuple, k: int, value) -> tuple:
    return seq[:k] + (value,) + seq[k + 1:]


def _mutate(state: _State, rng: np.random.Generator, space: SearchSpace) -> _State:
    n = len(state.scores)
    k = int(rng.integers(n))
    move = int(rng.integers(10))
    if move <= 1:  # rescale one score
        return replace(state, scores=_set(state.scores, k, _score(state.scores[k] * math.exp(rng.normal(0, 0.4)))))
    if move == 2:  # tie or near-tie with another item: ties are where tie-breaking rules bite
        j = int(rng.integers(n))
        return replace(state, scores=_set(state.scores, k, _score(state.scores[j] + rng.choice([-0.001, 0, 0.001]))))
    if move == 3:  # nudge one token count
        t = int(np.clip(state.tokens[k] + rng.integers(-3, 4), 1, state.budget + 2))
        return replace(state, tokens=_set(state.tokens, k, t))
    if move == 4:  # redraw one token count, sometimes exactly the budget
        t = state.budget if rng.random() < 0.3 else int(rng.integers(1, state.budget + 1))
        return replace(state, tokens=_set(state.tokens, k, t))
    if move == 5:  # move the budget
        b = int(np.clip(state.budget + rng.integers(-4, 5), 2, space.budget_max))
        return replace(state, budget=b)
    if move == 6 and n < space.n_max:  # add an item (often a copy of another)
        j = int(rng.integers(n))
        row = ((state.scores[j], state.tokens[j], state.texts[j], state.sources[j]) if rng.random() < 0.5
               else _fresh_item(rng, space, state.budget))
        return _State(state.scores + (row[0],), state.tokens + (row[1],), state.budget,
                      state.texts + (row[2],), state.sources + (row[3],))
    if move == 7 and n > space.n_min:  # drop an item
        cut = lambda seq: seq[:k] + seq[k + 1:]  # noqa: E731
        return _State(cut(state.scores), cut(state.tokens), state.budget, cut(state.texts), cut(state.sources))
    if move == 8 and space.sources:
        return replace(state, sources=_set(state.sources, k, int(rng.integers(len(space.sources)))))
    if move == 9 and space.texts:
        return replace(state, texts=_set(state.texts, k, int(rng.integers(len(space.texts)))))
    row = _fresh_item(rng, space, state.budget)  # redraw one item entirely
    return _State(_set(state.scores, k, row[0]), _set(state.tokens, k, row[1]), state.budget,
                  _set(state.texts, k, row[2]), _set(state.sources, k, row[3]))


def adversarial_search(ratio_fn: RatioFn, space: SearchSpace, rng: np.random.Generator,
                       restarts: int, steps: int, samples: int = 0) -> SearchResult:
    """Minimise value / optimum over the space: random sampling, then restarted local search.

    Args:
        ratio_fn: Maps a case to (heuristic value, exact optimum), or None to skip it.
        space: The instances allowed.
        rng: The seeded generator (the whole search is a function of its state).
        restarts: Independent starts from random instances.
        steps: Mutations tried per start.
        samples: Independent random instances evaluated first.

    Returns:
        The worst case found.

    Raises:
        ValueError: restarts or steps < 1, or no non-degenerate case was found.
    """
    if restarts < 1 or steps < 1:
        raise ValueError(f"restarts and steps must be >= 1, got {restarts} and {steps}")
    best: tuple[float, float, float, Case] | None = None
    tried = 0
    trace: list[float] = []

    def evaluate(state: _State) -> float | None:
        nonlocal best, tried
        case = state.case(space)
        tried += 1
        got = ratio_fn(case)
        ratio = None
        if got is not None and got[1] > 0:
            value, opt = got
            ratio = value / opt
            if best is None or ratio < best[0]:
                best = (ratio, value, opt, case)
        trace.append(best[0] if best is not None else math.nan)
        return ratio

    for _ in range(samples):
        evaluate(_random_state(rng, space))
    for _ in range(restarts):
        state = _random_state(rng, space)
        current = evaluate(state)
        for step in range(steps):
            candidate = _mutate(state, rng, space)
            ratio = evaluate(candidate)
            if ratio is None:
                continue
            temp = _T0 * (1.0 - step / steps)
            if current is None or ratio <= current or (temp > 0 and rng.random() < math.exp((current - ratio) / temp)):
                state, current = candidate, ratio
    if best is None:
        raise ValueError("adversarial search found no case with a positive optimum")
    ratio, value, opt, case = best
    return SearchResult(case, ratio, value, opt, tried, tuple(trace))
