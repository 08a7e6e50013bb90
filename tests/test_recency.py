"""The `recency` strategy: newest messages first, tool pairs whole, latest user turn kept."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import STRATEGIES, pack
from packbench.algorithms.chat import items_from_messages
from packbench.algorithms.strategies.recency import Recency
from packbench.experiments.families.conversation import chat_messages


def chat():
    return [
        {"role": "system", "content": "Support bot."},
        {"role": "user", "content": "Old question about invoices and billing periods?"},
        {"role": "assistant", "content": "Old answer about invoices, monthly billing."},
        {"role": "user", "content": "Where is parcel 7?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "track", "arguments": "{\"id\": 7}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Parcel 7 is in transit at the Lyon hub since Monday."},
        {"role": "assistant", "content": "Parcel 7 is in Lyon."},
        {"role": "user", "content": "And when does it arrive?"},
    ]


def test_registered():
    assert STRATEGIES["recency"] is Recency


def test_keeps_newest_suffix():
    items = items_from_messages(chat())
    pinned = sum(it.tokens for it in items if it.pinned)
    by_id = {it.id: it for it in items}
    budget = pinned + by_id["m0006-assistant"].tokens + 1
    p = pack(items, budget, None, strategy="recency")
    assert set(p.ids) == {"m0000-system", "m0007-user", "reply-primer", "m0006-assistant"}


def test_tool_pair_kept_or_dropped_together_at_every_budget():
    items = items_from_messages(chat())
    total = sum(it.tokens for it in items)
    pinned = sum(it.tokens for it in items if it.pinned)
    for budget in range(pinned, total + 1):
        for contiguous in (True, False):
            ids = set(pack(items, budget, None, strategy="recency", contiguous=contiguous).ids)
            assert ("m0004-assistant" in ids) == ("m0005-tool" in ids), (budget, contiguous)
            assert "m0007-user" in ids


def test_contiguous_stops_at_first_misfit_and_skip_mode_looks_further():
    items = items_from_messages(chat())
    by_id = {it.id: it for it in items}
    pinned = sum(it.tokens for it in items if it.pinned)
    # Room for the newest reply and the old user question, not for the tool pair in between.
    room = by_id["m0006-assistant"].tokens + by_id["m0003-user"].tokens
    assert room < by_id["m0006-assistant"].tokens + by_id["m0004-assistant"].tokens + by_id["m0005-tool"].tokens
    stop = pack(items, pinned + room, None, strategy="recency")
    skip = pack(items, pinned + room, None, strategy="recency", contiguous=False)
    assert "m0003-user" not in stop.ids and "m0006-assistant" in stop.ids
    assert "m0003-user" in skip.ids and "m0004-assistant" not in skip.ids


def test_latest_user_turn_never_dropped_even_when_long():
    msgs = chat()
    msgs[-1] = {"role": "user", "content": "When does it arrive? " * 30}
    items = items_from_messages(msgs)
    pinned = sum(it.tokens for it in items if it.pinned)
    p = pack(items, pinned, None, strategy="recency")
    assert "m0007-user" in p.ids and p.tokens == pinned
    with pytest.raises(ValueError, match="pinned items need"):
        pack(items, pinned - 1, None, strategy="recency")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), extra=st.integers(0, 3000), contiguous=st.booleans())
def test_random_chats_keep_pairs_and_recency(seed, extra, contiguous):
    msgs, _, _ = chat_messages(np.random.default_rng(seed), 8, 0.5, 3, 12)
    items = items_from_messages(msgs)
    pinned = sum(it.tokens for it in items if it.pinned)
    p = pack(items, pinned + extra, None, strategy="recency", contiguous=contiguous)
    kept = set(p.ids)
    assert p.tokens <= pinned + extra
    last_user = max(k for k, m in enumerate(msgs) if m["role"] == "user")
    assert f"m{last_user:04d}-user" in kept
    for key, members in itertools.groupby(sorted((it.source, it.id) for it in items if it.source),
                                          key=lambda t: t[0]):
        flags = {mid in kept for _, mid in members}
        assert len(flags) == 1, key
    if contiguous:  # kept history is a suffix: nothing older than a dropped message survives
        cands = [it.id for it in items if not it.pinned]
        flags = [c in kept for c in cands]
        assert flags == sorted(flags)


def test_document_sources_do_not_group_unless_asked():
    from packbench.algorithms import Item
    # Retrieval chunks carry their document as source: recency must not treat a document as a tool exchange.
    items = [Item(f"c{k}", f"chunk {k} of the manual", 1.0, 10, source="manual.pdf") for k in range(5)]
    assert pack(items, 30, None, strategy="recency").ids == ["c2", "c3", "c4"]
    assert pack(items, 30, None, strategy="recency", group_by="source").ids == []
    assert pack(items, 50, None, strategy="recency", group_by="source").ids == [f"c{k}" for k in range(5)]
