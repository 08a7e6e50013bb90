"""The compiled capacity DP (`solvers.dp_kernel`): numpy's row-by-row DP's answer, the brute-force canonical set."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms.solvers import dp as dp_module
from packbench.algorithms.solvers.dp import canonical_dp, dp_knapsack, dp_memory_bytes, dp_row_length
from packbench.algorithms.solvers.dp_kernel import BLOCK, run_dp, warm_up
from tests.oracles import lex_first as _lex_first


@pytest.fixture(scope="module", autouse=True)
def _compiled():
    warm_up()  # compile time never lands in tracemalloc's count below



def _numpy_dp(tokens, scores, room):
    """The DP as numpy computed it before the kernel: whole-row updates, np.packbits, the same rebuild."""
    n, row = len(tokens), dp_row_length(tokens, room)
    room = row - 1
    dp = np.zeros(row)
    bits, tops, filled = [np.zeros(0, dtype=np.uint8)] * n, [0] * n, 0
    for pos in range(n - 1, -1, -1):
        w, s = tokens[pos], scores[pos]
        top = min(room, filled + w)
        dp[filled + 1:top + 1] = dp[filled]
        filled = max(filled, top)
        tops[pos], span = top, top + 1 - w
        if span > 0:
            cand = dp[:span] + s
            take = cand >= dp[w:top + 1]
            np.maximum(dp[w:top + 1], cand, out=dp[w:top + 1])
            bits[pos] = np.packbits(take)
    chosen, j = [], room
    for pos in range(n):
        w = tokens[pos]
        if j > tops[pos]:
            chosen.append(pos)
            j -= w
        elif j >= w and (bits[pos][(j - w) >> 3] >> (7 - ((j - w) & 7))) & 1:
            chosen.append(pos)
            j -= w
    return chosen, float(dp[room])


# Few distinct scores: many optima, so the tie-break decides. Tokens up to 3 blocks: updates span several.
cases = st.integers(0, 9).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 3 * BLOCK), min_size=n, max_size=n),
    st.lists(st.integers(0, 4), min_size=n, max_size=n),
    st.integers(0, 6 * BLOCK)))


@settings(max_examples=300, deadline=None)
@given(case=cases, unit=st.sampled_from([1.0, 0.5, 3.0]))
def test_compiled_dp_gives_numpy_dps_set_and_the_brute_force_canonical_optimum(case, unit):
    tokens, scores, room = case
    room = max([room] + tokens)
    scores = [s * unit for s in scores]
    chosen, best = dp_knapsack(tokens, scores, room)
    assert (chosen, best) == _numpy_dp(tokens, scores, room)
    assert (best, chosen) == _lex_first(tokens, scores, room)
    # Reading the clock at every block changes nothing but when the deadline is seen.
    row = dp_row_length(tokens, room)
    w = np.asarray(tokens, dtype=np.int64)
    again, value = run_dp(w, np.asarray(scores, dtype=np.float64), row, dp_module._spans(w, row - 1), None, check=8)
    assert (again.tolist(), value) == (chosen, best)


@settings(max_examples=150, deadline=None)
@given(case=cases, scale=st.sampled_from([1, 2**28]))
def test_canonical_dp_on_integral_profits_is_the_lexicographic_optimum(case, scale):
    # scale 1: int32 DP values; 2**28: totals past 2**31 on most cases, the float64 DP.
    tokens, profits, room = case
    room = max([room] + tokens)
    profits = [(p + 1) * scale + p for p in profits]
    assert canonical_dp(np.array(tokens), np.array(profits), room) == _lex_first(tokens, profits, room)[1]


def test_a_passed_deadline_stops_the_compiled_dp():
    rng = np.random.default_rng(3)
    tokens = rng.integers(1, 2000, 300).tolist()
    profits = rng.integers(1, 500, 300)
    with pytest.raises(TimeoutError):
        dp_knapsack(tokens, profits.tolist(), 50_000, deadline=time.perf_counter() - 1e-3)
    with pytest.raises(TimeoutError):
        canonical_dp(np.array(tokens), profits, 50_000, deadline=time.perf_counter() - 1e-3)
    with pytest.raises(ValueError, match="check"):
        run_dp(np.array([1]), np.array([1.0]), 2, np.array([1]), None, check=0)


def test_the_memory_count_covers_the_compiled_dp_on_a_large_row():
    rng = np.random.default_rng(4)
    tokens = rng.integers(100, 5000, 400).tolist()
    scores = rng.integers(1, 900, 400).astype(float).tolist()
    room = sum(tokens) // 4
    tracemalloc.start()
    dp_knapsack(tokens, scores, room)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= dp_memory_bytes(tokens, room)
