"""The compiled lazy greedy of `submodular` against the numpy rounds it replaced, bit for bit.

`lazy_greedy` runs compiled for a `SubmodularObjective`; wrapped in an object that offers only the
duck-typed interface (``n``, ``state``, ``gains``, ``add``) it runs the numpy rounds, which were the
strategy's code before. The picks must agree exactly, on pools with many equal items (equal bounds
at a refresh's batch edge, where the compiled loop hands the choice back to numpy) and cosine
near-repeats; the pairwise sum must match numpy's sum to the bit (a gain that differs in its last
bit could flip a near-tie).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item
from packbench.algorithms.strategies import submodular_greedy
from packbench.algorithms.strategies.submodular import SubmodularObjective, lazy_greedy
from packbench.algorithms.strategies.submodular_kernel import pairwise_sum

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class NumpyOnly:
    """`f` without its arrays: `lazy_greedy` then runs the numpy rounds."""

    def __init__(self, f: SubmodularObjective) -> None:
        self.n, self.state, self.gains, self.add = f.n, f.state, f.gains, f.add


@pytest.mark.parametrize("n", [1, 5, 7, 8, 9, 16, 17, 100, 127, 128, 129, 200, 255, 256, 257, 1000, 1001, 4099])
def test_pairwise_sum_is_numpys_sum(n):
    rng = np.random.default_rng(n)
    rows = np.maximum(rng.standard_normal((3, n)) * 10.0 ** rng.uniform(-4, 4, (3, n)), 0.0)
    sums = rows.sum(axis=1)
    for i in range(3):
        assert pairwise_sum(rows[i], 0, n) == sums[i]  # exact: the same additions in the same order


@st.composite
def embedded_pools(draw):
    """Candidates drawn from a few base vectors (many exact and near repeats), scores from few values."""
    n = draw(st.integers(1, 60))
    dim = draw(st.sampled_from([3, 8, 40]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    bases = rng.standard_normal((draw(st.integers(1, 5)), dim))
    noise = draw(st.sampled_from([0.0, 1e-9, 1e-3, 0.3]))
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.7]), min_size=n, max_size=n))
    tokens = draw(st.lists(st.integers(1, 4) if draw(st.booleans()) else st.just(2), min_size=n, max_size=n))
    return [Item(f"c{k}", "t", scores[k], tokens[k], source=draw(st.sampled_from([None, "s1", "s2"])),
                 embedding=bases[k % len(bases)] + noise * rng.standard_normal(dim)) for k in range(n)]


@SETTINGS
@given(cands=embedded_pools(), room=st.integers(0, 200), lam=st.sampled_from([0.0, 0.5, 2.0]),
       r=st.sampled_from([0.0, 0.5, 1.0]), batch=st.sampled_from([1, 2, 5, 16]),
       objective=st.sampled_from(["sqrt", "linear"]))
def test_compiled_rounds_pick_what_the_numpy_rounds_pick(cands, room, lam, r, batch, objective):
    f = SubmodularObjective(cands, lam=lam, similarity="cosine", objective=objective)
    tokens = [c.tokens for c in cands]
    assert lazy_greedy(f, tokens, room, r, batch=batch) == lazy_greedy(NumpyOnly(f), tokens, room, r, batch=batch)


def test_equal_bounds_at_the_batch_edge_go_to_numpy(monkeypatch):
    # 40 copies of one item and 40 of another: after the first pick every copy of each has the same
    # stale bound, so a batch of 16 cuts through equal bounds and numpy's argpartition chooses.
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(16), rng.standard_normal(16)
    cands = [Item(f"c{k:02d}", "t", 1.0 if k % 2 else 0.9, 1, embedding=a if k % 2 else b) for k in range(80)]
    f = SubmodularObjective(cands, lam=0.5, similarity="cosine")
    tokens = [1] * 80
    calls = []
    real = submodular_greedy._refresh
    monkeypatch.setattr(submodular_greedy, "_refresh", lambda *args: calls.append(1) or real(*args))
    got = lazy_greedy(f, tokens, 30, 1.0)
    assert calls, "the batch edge never cut through equal bounds: the hand-back is untested"
    monkeypatch.setattr(submodular_greedy, "_refresh", real)
    assert got == lazy_greedy(NumpyOnly(f), tokens, 30, 1.0)
    assert len(got) == 30
