"""The lean MMR/DPP loops pick what the float64 definitions pick, on near-ties, odd scales and zero vectors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.items import Problem
from packbench.algorithms.strategies.dpp import DPP
from packbench.algorithms.strategies.mmr import MMR
from packbench.algorithms.vectors import CosineColumns, normalised_rows

from test_diversity_fast import previous_mmr


@st.composite
def near_tie_problems(draw):
    """Embeddings from 3 base directions plus perturbations far below float32's resolution (and some above)."""
    dim = draw(st.sampled_from([4, 16, 64]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    bases = rng.standard_normal((3, dim))
    n = draw(st.integers(1, 12))
    scale = draw(st.sampled_from([1.0, 1e-6, 1e6]))
    items = []
    for k in range(n):
        eps = draw(st.sampled_from([0.0, 1e-12, 1e-9, 1e-7, 1e-5, 1e-2]))
        vec = (bases[draw(st.integers(0, 2))] + eps * rng.standard_normal(dim)) * scale
        if draw(st.integers(0, 9)) == 0:
            vec = np.zeros(dim)
        items.append(Item(f"c{k:02d}", f"t{k}", draw(st.sampled_from([0.5, 1.0, 1.0 + 1e-12, 2.0])),
                          draw(st.integers(1, 6)), embedding=vec))
    pinned = [Item(f"p{k}", "p", 0.0, 1, pinned=True, embedding=bases[k] * scale)
              for k in range(draw(st.integers(0, 2)))]
    return Problem(tuple(items), draw(st.integers(0, 30)), tuple(pinned))


@settings(max_examples=300, deadline=None)
@given(near_tie_problems(), st.sampled_from([0.1, 0.5, 0.9]))
def test_float32_columns_pick_what_the_float64_matrix_picks(problem, lam):
    got = MMR(lam=lam, similarity="cosine").select(problem)
    want = previous_mmr(problem, lam, "cosine")
    assert got.info["pick_order"] == [problem.candidates[k].id for k in want]


@pytest.mark.parametrize("scale", [1e-200, 1e-30, 1e30, 1e200])
def test_scales_float32_cannot_hold_fall_back_to_float64_and_pick_the_same(scale):
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((8, 5))
    cands = tuple(Item(f"c{k}", f"t{k}", float(s), 2, embedding=v * scale)
                  for k, (v, s) in enumerate(zip(vecs, rng.random(8))))
    unscaled = tuple(Item(it.id, it.text, it.score, it.tokens, embedding=v) for it, v in zip(cands, vecs))
    for strategy in (MMR(lam=0.5, similarity="cosine"), DPP(theta=0.5, similarity="cosine")):
        a = strategy.select(Problem(cands, 9, ()))
        b = strategy.select(Problem(unscaled, 9, ()))
        assert a.info["pick_order"] == b.info["pick_order"] and len(a.indices) == 4
    # dpp's float32 path declines such rows itself (whatever the pool size routes to).
    from packbench.algorithms.strategies.dpp import float32_picks

    assert float32_picks(cands, np.ones(8), np.full(8, 2, dtype=np.int64), 9) is None


def test_cosine_columns_match_normalised_rows_and_zero_rows_give_zero():
    rng = np.random.default_rng(5)
    m = rng.standard_normal((6, 7))
    m[2] = 0.0
    m[4] *= 1e180  # squares overflow: the columns come from rescaled rows
    cols = CosineColumns(m)
    units = normalised_rows(m)
    for j in range(6):
        np.testing.assert_allclose(cols.column(j), units @ units[j], atol=1e-12)
    assert not cols.column(2).any() and cols.diagonal.tolist() == [1, 1, 0, 1, 1, 1]
    np.testing.assert_allclose(cols.block(np.array([0, 3]), rows=4), (units @ units[[0, 3]].T)[:4], atol=1e-12)


def test_mmr_and_dpp_name_the_item_without_an_embedding():
    items = [Item("a", "x", 1.0, 1, embedding=[1.0, 0.0]), Item("b", "y", 1.0, 1)]
    for strategy in ("mmr", "dpp"):
        with pytest.raises(ValueError, match="item 'b' has none"):
            pack(items, 5, None, strategy=strategy, similarity="cosine")


def test_compiled_cosine_dpp_picks_those_of_the_numpy_loop_past_its_row_buffer():
    # 150 independent vectors: more picks than the 64 Cholesky rows first allocated (the buffer grows twice);
    # the numpy loop reads the same cosines through a callable similarity.
    rng = np.random.default_rng(7)
    items = [Item(f"c{k:03d}", f"text {k}", float(rng.uniform(0.5, 2.0)), int(rng.integers(1, 5)),
                  embedding=rng.uniform(0.0, 1.0, 200)) for k in range(150)]

    def cos(a: Item, b: Item) -> float:
        return float(np.clip(a.embedding @ b.embedding / np.linalg.norm(a.embedding) / np.linalg.norm(b.embedding),
                             0.0, 1.0))

    fast = pack(items, 10**6, None, strategy="dpp", similarity="cosine", theta=0.5).info["pick_order"]
    slow = pack(items, 10**6, None, strategy="dpp", similarity=cos, theta=0.5).info["pick_order"]
    assert len(fast) > 128 and fast == slow


def _float64_dpp(problem: Problem, theta: float) -> list[str]:
    """The float64 Cholesky loop of `dpp_picks` (the definition the float32 path is certified against)."""
    from packbench.algorithms.strategies.dpp import _Kernel, dpp_picks, quality_weights

    cands = problem.candidates
    q = quality_weights(np.array([it.score for it in cands]), theta)
    tokens = np.array([it.tokens for it in cands], dtype=np.int64)
    picks = dpp_picks(cands, q, tokens, problem.room, _Kernel(cands, "cosine", q)) if cands else []
    return [cands[k].id for k in picks]


@settings(max_examples=300, deadline=None)
@given(near_tie_problems(), st.sampled_from([0.0, 0.5, 2.0]))
def test_float32_dpp_picks_what_the_float64_cholesky_loop_picks(problem, theta):
    # Near-repeats below and above float32's resolution, zero rows and near-equal scores: a step the
    # float32 bounds separate is certified, any other is left to the float64 loop (None), so the picks
    # are the float64 loop's. (`dpp` routes pools this small to the float64 loop: the float32 path is
    # called directly, and through `dpp` with the routing threshold at 0.)
    from packbench.algorithms.strategies import dpp as dpp_module

    cands, want = problem.candidates, _float64_dpp(problem, theta)
    if cands:
        q = dpp_module.quality_weights(np.array([it.score for it in cands]), theta)
        fast = dpp_module.float32_picks(cands, q, np.array([it.tokens for it in cands], dtype=np.int64), problem.room)
        assert fast is None or [cands[k].id for k in fast] == want
    assert DPP(theta=theta, similarity="cosine").select(problem).info["pick_order"] == want
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dpp_module, "FLOAT32_MIN_N", 0)
        assert DPP(theta=theta, similarity="cosine").select(problem).info["pick_order"] == want


def test_float32_dpp_leaves_a_step_float64_computations_cannot_settle_to_the_float64_loop():
    # Found by hypothesis: c03 and c06 are 1e-12 apart and nearly in the span of c00 and c07 (residual
    # 7e-7), so their float64 residuals differ by 1.4e-9 relative through this basis and by less than the
    # 1e-9 tie tolerance through the Cholesky loop. Deciding in float64 here picked c06 where the
    # definition picks c03.
    from packbench.algorithms.strategies.dpp import float32_picks, quality_weights

    def row(*hexes):
        return np.array([float.fromhex(h) for h in hexes])

    zero = np.zeros(4)
    rows = [row("-0x1.9f4852dd927c0p-1", "-0x1.b80f2d02e7b42p-4", "-0x1.a637e7bec83d6p-3", "0x1.08560c1735f9dp+2"),
            zero, zero,
            row("-0x1.a69dd889976e9p-1", "-0x1.b1a09e46bc46fp-4", "-0x1.a558f28533a49p-3", "0x1.09914cdddc7efp+2"),
            zero, zero,
            row("-0x1.a69dd889996adp-1", "-0x1.b1a09e469764dp-4", "-0x1.a558f285301e0p-3", "0x1.09914cdddc94cp+2"),
            row("0x1.24bbcea47831dp+0", "0x1.2774d998d8d23p-3", "-0x1.47d952bb0024ap-4", "0x1.ce5a635c12878p-1")]
    cands = tuple(Item(f"c{k:02d}", f"t{k}", 0.5, 1, embedding=v) for k, v in enumerate(rows))
    problem = Problem(cands, 3, ())
    q = quality_weights(np.full(8, 0.5), 0.0)
    assert _float64_dpp(problem, 0.0) == ["c00", "c07", "c03"]
    assert float32_picks(cands, q, np.ones(8, dtype=np.int64), 3) is None


def test_float32_dpp_certifies_past_its_basis_buffer_and_leaves_out_near_repeats():
    from packbench.algorithms.strategies.dpp import float32_picks, quality_weights

    # 150 picks (the 64-row basis buffer grows twice), residuals shrinking as the span fills 200 dimensions.
    rng = np.random.default_rng(11)
    items = tuple(Item(f"c{k:03d}", f"t{k}", float(rng.uniform(0.5, 2.0)), int(rng.integers(1, 5)),
                       embedding=rng.uniform(0.0, 1.0, 200)) for k in range(150))
    problem = Problem(items, 10**6, ())
    q150 = quality_weights(np.array([it.score for it in items]), 0.5)
    got = [items[k].id for k in float32_picks(items, q150, np.array([it.tokens for it in items]), 10**6)]
    assert len(got) == 150 and got == _float64_dpp(problem, 0.5)
    # A pick that float32 cannot tell from the span of the others (a repeat up to 1e-13) is never made,
    # and the float32 path answers itself (no fallback) with the float64 loop's picks.
    base = rng.standard_normal((3, 8))
    near = tuple(Item(f"n{k}", f"t{k}", 1.0 + k, 1, embedding=base[k % 3] + 1e-13 * rng.standard_normal(8))
                 for k in range(6))
    q = quality_weights(np.array([it.score for it in near]), 0.5)
    fast = float32_picks(near, q, np.ones(6, dtype=np.int64), 6)
    assert fast is not None and [near[k].id for k in fast] == _float64_dpp(Problem(near, 6, ()), 0.5)
    assert len(fast) == 3


def test_problem_embeddings_are_built_once_per_problem_read_only_and_pinned_only_when_asked():
    from packbench.algorithms.vectors import problem_embeddings

    rng = np.random.default_rng(5)
    cands = tuple(Item(f"c{k}", f"t{k}", float(k + 1), 2, embedding=rng.standard_normal(6)) for k in range(8))
    problem = Problem(cands, 9, (Item("p", "question", 0.0, 1, pinned=True),))  # the pinned item has no vector
    rows = problem_embeddings(problem, "strategy 'dpp'", pinned=False)
    assert problem_embeddings(problem, "strategy 'dpp'", pinned=False) is rows and not rows.flags.writeable
    assert np.array_equal(rows, np.array([it.embedding for it in cands]))
    narrow = problem_embeddings(problem, "strategy 'dpp'", np.float32, pinned=False)
    assert narrow.dtype == np.float32 and np.array_equal(narrow, rows.astype(np.float32))
    with pytest.raises(ValueError, match="item 'p' has none"):
        problem_embeddings(problem, "similarity 'cosine'", np.float32)
    # dpp leaves pinned items out of its kernel, so their missing vectors do not matter; a second
    # call on the same problem (reading the kept rows) picks what a fresh problem picks.
    dpp = DPP(theta=0.5, similarity="cosine")
    first, again = dpp.select(problem), dpp.select(problem)
    fresh = dpp.select(Problem(cands, 9, problem.pinned))
    assert first.info["pick_order"] == again.info["pick_order"] == fresh.info["pick_order"]
    assert len(first.indices) == 4
