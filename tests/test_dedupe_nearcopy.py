"""The near-copy rule: its indexed join equals its pairwise definition, and it drops the copies seed 000 misses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import (
    dedupe_nearcopy,
    dedupe_pairwise,
    pairwise_nearcopy,
)
from packbench.algorithms.dedupe import nearcopy as nearcopy_module
from packbench.algorithms.dedupe.nearcopy import BIGRAM_SHARE
from packbench.algorithms.dedupe.nearcopy import PAIRWISE_BELOW as SMALL
from test_dedupe import dedupe_inputs
from test_dedupe_rules import _split, _summary
from test_dedupe_unicode import mixed_inputs

PARA = ("the eiffel tower was built for the world fair of 1889 in paris and was at the time the tallest "
        "structure in the world until the chrysler building in new york was finished in 1930 after which "
        "it remained the tallest in europe for decades")
WORDS = PARA.split()
CUT = " ".join(WORDS[:26])                                   # the first 60% of the paragraph
EDIT = " ".join(w.upper() if k == 3 else w for k, w in enumerate(WORDS) if k not in (5, 17, 30)) + " - updated"
OTHER = "bananas are rich in potassium and are eaten raw or cooked in many tropical countries around the world"


@settings(max_examples=300, deadline=None)
@given(st.one_of(dedupe_inputs(), mixed_inputs()), st.booleans())
def test_indexed_join_equals_the_pairwise_definition(case, prefer_container):
    items, threshold = case
    cands, pinned = _split(items)
    nearcopy_module.PAIRWISE_BELOW = 0  # the index on every size (restored below)
    try:
        indexed = _summary(dedupe_nearcopy(cands, pinned, threshold, prefer_container))
    finally:
        nearcopy_module.PAIRWISE_BELOW = SMALL
    assert indexed == _summary(pairwise_nearcopy(cands, pinned, threshold, prefer_container))
    assert _summary(dedupe_nearcopy(cands, pinned, threshold, prefer_container)) == indexed


@settings(max_examples=200, deadline=None)
@given(dedupe_inputs(), st.booleans())
def test_partners_are_kept_or_pinned_and_every_candidate_is_accounted_for(case, prefer_container):
    items, threshold = case
    cands, pinned = _split(items)
    kept, dropped = dedupe_nearcopy(cands, pinned, threshold, prefer_container)
    alive = {it.id for it in kept} | {it.id for it in pinned}
    assert set(dropped.values()) <= alive
    assert {it.id for it in kept}.isdisjoint(dropped)
    assert {it.id for it in kept} | set(dropped) == {it.id for it in cands}


def test_drops_the_cut_and_the_edit_that_seed_000s_rule_keeps():
    items = [Item("full", PARA, 3.0, 50), Item("cut", CUT, 2.0, 30), Item("edit", EDIT, 1.0, 48),
             Item("other", OTHER, 0.5, 20)]
    jaccard_kept, _ = dedupe_pairwise(items, [], 0.8)
    assert [it.id for it in jaccard_kept] == ["full", "cut", "edit", "other"]
    kept, dropped = dedupe_nearcopy(items, [], 0.8)
    assert [it.id for it in kept] == ["full", "other"]
    assert dropped == {"cut": "full", "edit": "full"}


def test_the_higher_ranked_copy_is_kept_and_the_container_variant_keeps_the_whole():
    items = [Item("cut", CUT, 3.0, 30), Item("full", PARA, 2.0, 50), Item("edit", EDIT, 1.0, 48)]
    kept, dropped = dedupe_nearcopy(items, [], 0.8)
    assert [it.id for it in kept] == ["cut"] and dropped == {"full": "cut", "edit": "cut"}
    kept, dropped = dedupe_nearcopy(items, [], 0.8, prefer_container=True)
    # The paragraph replaces the cut; the edit is then a copy of the paragraph.
    assert [it.id for it in kept] == ["full"] and dropped == {"cut": "full", "edit": "full"}


def test_a_passage_quoting_the_pinned_question_is_kept():
    question = Item("q", "when was the eiffel tower built", 0.0, 8, pinned=True)
    passage = Item("p", "when was the eiffel tower built is a common question " + OTHER, 1.0, 30)
    copy_of_question = Item("c", "When was the Eiffel tower built?", 0.5, 8)
    kept, dropped = dedupe_nearcopy([passage, copy_of_question], [question], 0.8)
    assert [it.id for it in kept] == ["p"] and dropped == {"c": "q"}


def test_the_bigram_test_scales_with_near_dup():
    # 3 of the cut's 26 words replaced break 6 of its 25 bigrams: containment 0.76, caught at
    # near_dup 0.8 (b = 0.7) but not at 1.0 (b = 0.875).
    cut = CUT.split()
    cut[4] = cut[12] = cut[20] = "zzz"
    items = [Item("full", PARA, 2.0, 50), Item("cut", " ".join(cut), 1.0, 30)]
    assert BIGRAM_SHARE * 1.0 > 19 / 25 > BIGRAM_SHARE * 0.8
    assert dedupe_nearcopy(items, [], 0.8)[1] == {"cut": "full"}
    assert dedupe_nearcopy(items, [], 1.0)[1] == {}


def test_seed_000s_cases_give_seed_000s_answers_under_the_near_copy_rule():
    sys_p = Item("sys", "You are a helpful assistant.", 0, 10, pinned=True)
    a = Item("A", "the refund window is thirty days from delivery for all orders", 10, 100)
    b = Item("B", "shipping is free", 2, 1)
    dup = Item("A2", "The refund window is thirty days from delivery for all orders!", 9, 5)
    near = Item("A3", "the refund window is thirty days from delivery for all orders today", 8, 5)
    assert [i.id for i in pack([a, dup, near, b], 200, dedupe="nearcopy")] == ["A", "B"]
    echo = Item("echo", "You are a helpful assistant", 5, 3)
    assert [i.id for i in pack([sys_p, echo], 50, dedupe="nearcopy")] == ["sys"]
