"""Brute-force oracles shared by the tests: the project's one enumeration oracle, also used by the claims."""

from __future__ import annotations

import itertools

from packbench.experiments.claims.core import brute_force_best

__all__ = ["brute_force_best", "lex_first_optimum"]


def lex_first_optimum(tokens, scores, room):
    """Among the optimal sets, the one taking the earliest items (brute force): `exact`'s canonical set."""
    best = None
    for bits in itertools.product((1, 0), repeat=len(tokens)):  # (1, 1, ...) first: lexicographically greatest
        if sum(w for w, b in zip(tokens, bits) if b) <= room:
            value = sum(s for s, b in zip(scores, bits) if b)
            if best is None or value > best[0]:
                best = (value, bits)
    return tuple(k for k, b in enumerate(best[1]) if b)
