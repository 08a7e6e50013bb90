"""The conversation family: deterministic chats with tool calls and correct ground truth."""

from __future__ import annotations

import numpy as np
import pytest

from packbench.algorithms import pack
from packbench.algorithms.chat import count_message_tokens
from packbench.experiments.families import FAMILIES
from packbench.experiments.families.conversation import Conversation, chat_messages


def test_registered():
    assert FAMILIES["conversation"] is Conversation


def test_deterministic_per_seed():
    a = list(Conversation(instances=3).instances(5))
    b = list(Conversation(instances=3).instances(5))
    c = list(Conversation(instances=3).instances(6))
    assert a == b
    assert [i.items for i in a] != [i.items for i in c]
    assert [i.key for i in a] == ["seed=5/i=0", "seed=5/i=1", "seed=5/i=2"]


def test_instance_structure():
    for inst in Conversation(instances=5, turns=10, tool_rate=0.5).instances(1):
        ids = [it.id for it in inst.items]
        assert len(ids) == len(set(ids))
        pinned = [it.id for it in inst.items if it.pinned]
        assert pinned[0] == "m0000-system" and pinned[-1] == "reply-primer" and pinned[-2].endswith("-user")
        cands = [it.id for it in inst.items if not it.pinned]
        assert set(inst.groups) == set(cands)
        assert inst.answers and inst.answers <= set(cands)
        assert all(inst.meta["target"] in next(it.text for it in inst.items if it.id == a) for a in inst.answers)


def test_token_counts_include_chat_overhead():
    rng = np.random.default_rng([3, 7, 0])
    msgs, _, _ = chat_messages(rng, 12, 0.35, 4, 30)
    inst = next(Conversation().instances(3))
    assert sum(it.tokens for it in inst.items) == count_message_tokens(msgs)


def test_has_tool_pairs_and_recency_keeps_them_whole():
    inst = next(Conversation(turns=20, tool_rate=0.6).instances(2))
    groups = {it.source for it in inst.items if it.source}
    assert groups
    pinned = sum(it.tokens for it in inst.items if it.pinned)
    p = pack(inst.items, pinned + 300, None, strategy="recency")
    kept = set(p.ids)
    for g in groups:
        members = {it.id for it in inst.items if it.source == g}
        assert members <= kept or not members & kept


def test_param_validation():
    with pytest.raises(ValueError, match="tool_rate"):
        Conversation(tool_rate=1.5)
    with pytest.raises(ValueError, match="unknown encoding"):
        Conversation(encoding="nope")
