"""Brute-force oracles shared by the tests (the project's one enumeration oracle, also used by the claims), and
the small tied instances they judge."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

from packbench.algorithms import Item, Problem

from packbench.experiments.claims.core import brute_force_best

__all__ = ["brute_force_best", "lex_first", "lex_first_optimum", "problem_of", "tied_cases"]


def lex_first(tokens, scores, room):
    """(optimal value, the optimal set taking the earliest items as a list), by enumeration."""
    best = None
    for bits in itertools.product((1, 0), repeat=len(tokens)):  # (1, 1, ...) first: lexicographically greatest
        if sum(w for w, b in zip(tokens, bits) if b) <= room:
            value = sum(s for s, b in zip(scores, bits) if b)
            if best is None or value > best[0]:
                best = (value, bits)
    return best[0], [k for k, b in enumerate(best[1]) if b]


def lex_first_optimum(tokens, scores, room):
    """Among the optimal sets, the one taking the earliest items (brute force): `exact`'s canonical set."""
    return tuple(lex_first(tokens, scores, room)[1])


def problem_of(tokens, scores, room):
    """A `Problem` of items i0, i1, ... with these token counts and scores."""
    return Problem(tuple(Item(f"i{k}", "", float(s), w) for k, (w, s) in enumerate(zip(tokens, scores))), room)


def tied_cases(max_n, max_tokens, max_score, max_room):
    """(tokens, scores, room) with few distinct sizes and scores: many optimal sets, so a wrong tie-break shows."""
    return st.integers(2, max_n).flatmap(lambda n: st.tuples(
        st.lists(st.integers(1, max_tokens), min_size=n, max_size=n),
        st.lists(st.integers(1, max_score), min_size=n, max_size=n),
        st.integers(1, max_room)))
