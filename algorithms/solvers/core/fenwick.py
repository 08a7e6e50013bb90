"""Fenwick-tree pairs over items in a fixed order, shared by the Pareto-list kernels' LP bounds.

A pair (key, value) of 1-based trees holds, for the items still alive, a sum that limits a prefix
(weights, or counts) and a sum to collect over it (profits, or counts). The LP bounds of `lex`,
`witness` and `pareto_kernel` all ask one question of such a pair: the longest prefix of alive
items whose key sum stays within a limit, and what it collects. Dead items weigh nothing, so the
descent passes over them.
"""

from __future__ import annotations

from numba import njit

__all__ = ["add", "descend"]


@njit(cache=True, inline="always")
def add(key, value, at, d_key, d_value):
    """Add (d_key, d_value) at 0-based position `at` of the pair (negative amounts remove an item)."""
    i = at + 1
    while i < len(key):
        key[i] += d_key
        value[i] += d_value
        i += i & -i


@njit(cache=True, inline="always")
def descend(key, value, zero, limit, top, n):
    """(pos, limit left, value collected) of the longest alive prefix whose key sum is within `limit`.

    Args:
        key, value: The pair's trees (length n + 1).
        zero: The collected sum's starting value; its type is the sum's (0 for counts, 0.0 for profits).
        limit: The bound on the prefix's key sum.
        top: The largest power of two <= n.
        n: Items in the trees.

    Returns:
        pos is the number of tree positions the prefix spans (pos < n: position pos, 0-based, is the
        first alive item left out).
    """
    pos, left, acc = 0, limit, zero
    step = top
    while step > 0:
        nxt = pos + step
        if nxt <= n and key[nxt] <= left:
            pos = nxt
            left -= key[nxt]
            acc += value[nxt]
        step >>= 1
    return pos, left, acc
