"""Density greedy: the production baseline with no constant guarantee."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..bounds import dantzig_bound, dantzig_bound_arrays
from ..columns import take_in_order
from ..items import Item, Problem, Selection
from ..ties import equal_runs, id_ranks
from .base import Strategy

__all__ = ["Greedy", "density_order", "density_order_arrays", "density_orders", "greedy_fill", "fill_arrays",
           "bounded_selection"]

# Below this many candidates the plain Python loops are faster than numpy's per-call overhead.
_VECTOR_MIN = 256
# Token counts and rooms up to this fit int64 arithmetic with room to spare (the validator's total cap).
_INT64_SAFE = 2**62
_WINDOW = 64  # first window of the blockwise scans; doubles while nothing is found


def _python_density_order(candidates: Sequence[Item]) -> list[int]:
    return sorted(range(len(candidates)),
                  key=lambda k: (-candidates[k].score / candidates[k].tokens, -candidates[k].score,
                                 candidates[k].id))


def density_order(candidates: Sequence[Item]) -> list[int]:
    """Candidate indices by score/tokens descending, ties by score descending, then id."""
    n = len(candidates)
    if n < _VECTOR_MIN:
        return _python_density_order(candidates)
    # The densities are Python's own divisions, so the keys are the same floats as the reference's.
    neg_density = np.fromiter((-it.score / it.tokens for it in candidates), dtype=np.float64, count=n)
    neg_score = np.fromiter((-it.score for it in candidates), dtype=np.float64, count=n)
    return _order_by_keys(candidates, neg_density, neg_score)[0].tolist()


def density_order_arrays(candidates: Sequence[Item], scores: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """`density_order` from the candidates' scores (float64) and tokens (int64), as an array."""
    return density_orders(candidates, scores, tokens)[0]


def density_orders(candidates: Sequence[Item], scores: np.ndarray, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(`density_order_arrays`, the same order with equal densities by index) from one sort.

    The second is what a stable sort of the densities gives: the order `dantzig_bound_arrays` takes.
    """
    neg_score = np.negative(scores)
    # -score / tokens as Python computes it: the int rounds to the nearest float, then one IEEE division.
    return _order_by_keys(candidates, neg_score / tokens.astype(np.float64), neg_score)


def _order_by_keys(candidates: Sequence[Item], neg_density: np.ndarray, neg_score: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    # One float sort (the unstable default is the fastest): equal densities are rare, and their
    # runs are put in (score, id) order below, so the result does not depend on the sort.
    order = np.argsort(neg_density)
    runs = equal_runs(neg_density[order])
    if runs is None:
        return order, order
    # All runs in one sort: by run, then score, then id, then position (for equal ids). A loop over
    # runs costs a Python call per run, and with many items the runs grow faster than the items.
    in_run, run = runs
    pos = order[in_run]
    by_index = order.copy()
    by_index[in_run] = pos[np.lexsort((pos, run))]
    order[in_run] = pos[np.lexsort((pos, id_ranks(candidates, pos), neg_score[pos], run))]
    return order, by_index


def _python_fill(candidates: Sequence[Item], room: int, chosen: list[int], taken: set[int], used: int,
                 order: Iterable[int]) -> list[int]:
    for k in order:
        if k not in taken and used + candidates[k].tokens <= room:
            chosen.append(k)
            taken.add(k)
            used += candidates[k].tokens
    return chosen


def _first_fit(tok: np.ndarray, pos: int, left: int) -> int:
    """The first position >= pos whose tokens are <= left (len(tok) if none), scanning in growing windows."""
    width = _WINDOW
    while pos < len(tok):
        hit = np.flatnonzero(tok[pos:pos + width] <= left)
        if len(hit):
            return pos + int(hit[0])
        pos += width
        width *= 2
    return len(tok)


def _vector_fill(tok: np.ndarray, idx: np.ndarray, skip: np.ndarray, left: int) -> list[int]:
    """The loop of `_python_fill` over order `idx` (tokens `tok`, already-taken mask `skip`), by runs.

    An item that does not fit never fits later (the room only shrinks), so the
    greedy is: find the next item that fits, take the longest run from there
    whose running total fits, repeat. Taken items count 0 tokens and are not
    output, which leaves every run's total unchanged.
    """
    eff = np.where(skip, 0, tok)
    out: list[int] = []
    pos, n = 0, len(eff)
    while left > 0 and pos < n:
        pos = _first_fit(eff, pos, left)
        width = _WINDOW
        while pos < n:
            run = np.cumsum(eff[pos:pos + width])
            r = int(np.searchsorted(run, left, side="right"))
            if r:
                out.extend(idx[pos:pos + r][~skip[pos:pos + r]].tolist())
                left -= int(run[r - 1])
                pos += r
            if r < len(run):
                break
            width *= 2
    return out


def greedy_fill(candidates: Sequence[Item], room: int, start: Iterable[int] = (),
                order: Sequence[int] | None = None) -> list[int]:
    """Take `start`, then every candidate in density order that still fits.

    Args:
        candidates: The candidates.
        room: Token budget.
        start: Indices taken first (must fit together).
        order: A precomputed `density_order`, to share it between calls.

    Returns:
        Chosen indices: `start` first, then the greedy additions in the order taken.
    """
    chosen = list(start)
    taken = set(chosen)
    used = sum(candidates[k].tokens for k in chosen)
    seq = density_order(candidates) if order is None else order
    n = len(candidates)
    if len(seq) < _VECTOR_MIN or not 0 <= room <= _INT64_SAFE:
        return _python_fill(candidates, room, chosen, taken, used, seq)
    idx = np.asarray(seq, dtype=np.int64)
    if idx.ndim != 1 or idx.min() < 0 or idx.max() >= n or np.bincount(idx, minlength=n).max() > 1:
        return _python_fill(candidates, room, chosen, taken, used, seq)  # repeats or odd indices: the loop
    all_tok = [it.tokens for it in candidates]
    if sum(all_tok) > _INT64_SAFE:
        return _python_fill(candidates, room, chosen, taken, used, seq)
    tok = np.array(all_tok, dtype=np.int64)[idx]
    skip = np.isin(idx, np.fromiter(taken, dtype=np.int64, count=len(taken)))
    return chosen + _vector_fill(tok, idx, skip, room - used)


def fill_arrays(tokens: np.ndarray, order: np.ndarray, room: int, start: Sequence[int] = ()) -> list[int]:
    """`greedy_fill` on arrays: all tokens (int64, total within 2**62), a density order, 0 <= room <= 2**62.

    Args:
        tokens: Tokens of every candidate.
        order: Candidate indices in density order, each at most once.
        room: Token budget.
        start: Indices taken first (must fit together).

    Returns:
        Chosen indices, as `greedy_fill` returns them.
    """
    chosen = list(start)
    used = int(tokens[chosen].sum()) if chosen else 0
    taken = take_in_order(tokens, order, chosen, room - used)
    if taken is not None:
        return chosen + taken
    skip = np.zeros(len(order), dtype=bool)
    if chosen:
        skip = np.isin(order, np.array(chosen, dtype=np.int64))
    return chosen + _vector_fill(tokens[order], order, skip, room - used)


def bounded_selection(problem: Problem, chosen: Sequence[int], bound: float | None = None) -> Selection:
    """A heuristic's Selection with the Dantzig bound, optimal=True when it meets the bound.

    Args:
        problem: The problem.
        chosen: The chosen candidate indices.
        bound: `dantzig_bound` of the problem when the caller has it already.
    """
    if bound is None:
        bound = dantzig_bound(problem.candidates, problem.room)
    score = sum(problem.candidates[k].score for k in chosen)
    # Rounding in the bound's float sums must not make a proven optimum look unproven; relative, so
    # that tiny scores (1e-56) are not all "within rounding" of their bound.
    optimal = True if score >= bound - 1e-9 * abs(bound) else None
    return Selection(tuple(chosen), optimal=optimal, upper_bound=max(bound, score))


class Greedy(Strategy):
    """Density greedy: by score/tokens descending, skip what does not fit, go on.

    No constant approximation guarantee: with budget W, items (score 2, 1 token)
    and (W, W), it takes the small item and scores 2 against an optimum of W.
    """

    name = "greedy"

    def select(self, problem: Problem) -> Selection:
        cands, room = problem.candidates, problem.room
        arrays = problem.arrays() if len(cands) >= _VECTOR_MIN and 0 <= room <= _INT64_SAFE else None
        if arrays is None:
            return bounded_selection(problem, greedy_fill(cands, room))
        scores, tokens = arrays
        order, by_index = density_orders(cands, scores, tokens)
        return bounded_selection(problem, fill_arrays(tokens, order, room),
                                 dantzig_bound_arrays(scores, tokens, room, by_index))
