"""Runs of equal keys in a sorted array, and id ranks to order them: the tie rules of dedupe and greedy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .items import Item

__all__ = ["equal_runs", "id_ranks"]


def equal_runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Where `keys` (in sorted order) has runs of equal neighbours.

    Returns:
        (positions that lie in a run, the run number of each, non-decreasing), or None when no two
        neighbours are equal.
    """
    tied = np.zeros(len(keys) + 1, dtype=bool)
    np.equal(keys[1:], keys[:-1], out=tied[1:-1])
    if not tied.any():
        return None
    in_run = np.flatnonzero(tied[1:] | tied[:-1])
    return in_run, np.cumsum(~tied[in_run])


def id_ranks(candidates: Sequence[Item], positions: np.ndarray) -> np.ndarray:
    """The rank of each candidate at `positions` by id among them (equal ids by their order here).

    One pass reads each candidate once: with many items, every read of an item is a cache miss.
    """
    ids = [candidates[k].id for k in positions.tolist()]
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    return ranks
