"""Truncation at token boundaries and the `truncate` fill of `pack`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import FILLS, Item, pack
from packbench.algorithms.tokens import count_tokens
from packbench.algorithms.truncate import MIDDLE_MARKER, Truncate, truncate_text

TEXT = ("Introduction: this report studies refunds. " + "Body sentence with details and numbers 12345. " * 40
        + "Conclusion: refunds take thirty days.")


@settings(max_examples=80, deadline=None)
@given(text=st.text(max_size=400), limit=st.integers(0, 60), side=st.sampled_from(["head", "tail", "middle"]))
def test_never_over_the_limit_and_count_exact(text, limit, side):
    cut, n = truncate_text(text, limit, side)
    assert n == count_tokens(cut) <= limit
    if count_tokens(text) <= limit:
        assert cut == text


def test_head_tail_middle_keep_the_right_parts():
    head, n_head = truncate_text(TEXT, 20, "head")
    tail, n_tail = truncate_text(TEXT, 20, "tail")
    mid, n_mid = truncate_text(TEXT, 30, "middle")
    assert TEXT.startswith(head) and head.startswith("Introduction") and n_head <= 20
    assert TEXT.endswith(tail) and tail.endswith("thirty days.") and n_tail <= 20
    assert mid.startswith("Introduction") and mid.endswith("thirty days.") and MIDDLE_MARKER in mid and n_mid <= 30
    assert n_head >= 18  # cut at a token boundary, not far short of the limit


def test_cut_inside_multibyte_character_drops_it():
    text = "🚀" * 10  # each rocket is several tokens
    cut, n = truncate_text(text, 5, "head")
    assert set(cut) <= {"🚀"} and n == count_tokens(cut) <= 5


def test_bad_arguments():
    with pytest.raises(ValueError, match="side must be one of"):
        truncate_text("x", 3, "left")
    with pytest.raises(ValueError, match="max_tokens must be >= 0"):
        truncate_text("x", -1)
    with pytest.raises(TypeError, match="max_tokens must be an int"):
        truncate_text("x", 2.5)


def items():
    return [
        Item("sys", "You answer from context.", 0.0, count_tokens("You answer from context."), pinned=True),
        Item("big", TEXT, 9.0, count_tokens(TEXT)),
        Item("small", "Refunds are free of charge.", 2.0, count_tokens("Refunds are free of charge.")),
    ]


def test_registered():
    assert FILLS["truncate"] is Truncate


@pytest.mark.parametrize("side", ["head", "tail", "middle"])
def test_fill_uses_leftover_budget_exactly(side):
    its = items()
    budget = 120
    p = pack(its, budget, strategy="greedy", fill="truncate", truncate_side=side)
    assert p.truncated == "big"
    cut = p[-1]
    assert cut.id == "big" and cut.tokens == count_tokens(cut.text)
    assert cut.text != TEXT and p.tokens <= budget
    assert budget - p.tokens < 5  # the leftover is (nearly) used up: cut at a token boundary
    assert cut.score < 9.0  # scaled by the share kept


def test_no_fill_when_nothing_left():
    its = items()
    p = pack(its, sum(i.tokens for i in its), strategy="greedy", fill="truncate")
    assert p.truncated is None and "big" in p.ids and len(p) == 3
    p = pack(its[:1], 50, fill="truncate")
    assert p.truncated is None


def test_best_unchosen_that_fits_is_added_whole():
    # recency stops at the first message that does not fit ("mid"), leaving the older,
    # better "old" unchosen although it fits: the fill adds it uncut, so nothing is truncated.
    its = [Item("old", "old but relevant", 9.0, 5), Item("mid", "long middle " * 40, 1.0, 100),
           Item("new", "newest", 1.0, 5)]
    p = pack(its, 30, None, strategy="recency", fill="truncate")
    assert p.ids == ["new", "old"] and p.truncated is None and p[-1] is its[0]


def test_fill_param_validation():
    with pytest.raises(ValueError, match="truncate_side"):
        pack(items(), 100, fill="truncate", truncate_side="left")
    with pytest.raises(ValueError, match="unknown encoding or model"):
        pack(items(), 100, fill="truncate", encoding="nope")
    with pytest.raises(ValueError, match="unknown parameter 'truncate_side'"):
        pack(items(), 100, truncate_side="head")


@settings(max_examples=30, deadline=None)
@given(budget=st.integers(6, 900), side=st.sampled_from(["head", "tail", "middle"]),
       strategy=st.sampled_from(["greedy", "prefix", "exact_dp"]))
def test_fill_never_exceeds_budget(budget, side, strategy):
    p = pack(items(), budget, strategy=strategy, fill="truncate", truncate_side=side)
    assert p.tokens <= budget
    assert len(set(p.ids)) == len(p.ids)
    if p.truncated is not None:
        assert p[-1].id == p.truncated and p[-1].tokens == count_tokens(p[-1].text)
