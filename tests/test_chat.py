"""Chat message counting (seed 003 overhead) and Items built from messages."""

from __future__ import annotations

import pytest

from packbench.algorithms import Item, pack
from packbench.algorithms.chat import (REPLY_PRIMER_ID, count_message_tokens, items_from_messages, message_tokens,
                             messages_from_packing, tool_groups)
from packbench.algorithms.tokens import count_tokens

# The worked example of OpenAI's cookbook "How to count tokens with tiktoken": the API reported
# 129 prompt tokens for it on gpt-3.5-turbo-0613 / gpt-4-0613 (cl100k_base, 3 per message, 1 per name).
COOKBOOK = [
    {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate "
                                  "jargon into plain English."},
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
    {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch "
                                                          "base on opportunities for increased leverage."},
    {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to "
                                                               "do better."},
    {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client "
                                "deliverable."},
]


def test_cookbook_example_matches_api_count():
    assert count_message_tokens(COOKBOOK) == 129


def test_small_example_by_hand():
    # "system" 1 + "Be brief." 3 + 3 framing = 7; "user" 1 + "Hi" 1 + "bob" 1 + 3 framing + 1 name = 7;
    # plus 3 to prime the reply = 17.
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi", "name": "bob"}]
    assert [count_tokens(s) for s in ("system", "Be brief.", "user", "Hi", "bob")] == [1, 3, 1, 1, 1]
    assert message_tokens(msgs[0]) == 7
    assert message_tokens(msgs[1]) == 7
    assert count_message_tokens(msgs) == 17


def chat_with_tools():
    return [
        {"role": "system", "content": "You are a support bot."},
        {"role": "user", "content": "Where is my parcel?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "track", "arguments": "{\"id\": 7}"}},
            {"id": "c2", "type": "function", "function": {"name": "eta", "arguments": "{\"id\": 7}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "In transit, Lyon hub."},
        {"role": "tool", "tool_call_id": "c2", "content": "Arrives Tuesday."},
        {"role": "assistant", "content": "It is in Lyon and arrives Tuesday."},
        {"role": "user", "content": "Thanks! Can I change the address?"},
    ]


def test_items_sum_to_message_count_and_pin_the_right_ones():
    msgs = chat_with_tools()
    items = items_from_messages(msgs)
    assert sum(it.tokens for it in items) == count_message_tokens(msgs)
    pinned = [it.id for it in items if it.pinned]
    assert pinned == ["m0000-system", "m0006-user", REPLY_PRIMER_ID]
    assert [it.id for it in items][:3] == ["m0000-system", "m0001-user", "m0002-assistant"]


def test_tool_call_and_results_share_a_group():
    items = items_from_messages(chat_with_tools())
    by_id = {it.id: it for it in items}
    assert by_id["m0002-assistant"].source == by_id["m0003-tool"].source == by_id["m0004-tool"].source == "tools@2"
    assert by_id["m0005-assistant"].source is None and by_id["m0001-user"].source is None


def test_tool_calls_are_counted():
    msgs = chat_with_tools()
    without = dict(msgs[2])
    del without["tool_calls"]
    assert message_tokens(msgs[2]) > message_tokens(without)


def test_default_scores_grow_with_recency():
    items = items_from_messages(chat_with_tools(), prime_reply=False)
    scores = [it.score for it in items]
    assert scores == sorted(scores) and len(set(scores)) == len(scores)


def test_orphan_tool_result_is_an_error():
    msgs = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "zz", "content": "x"}]
    with pytest.raises(ValueError, match=r"messages\[1\]: tool_call_id 'zz' answers no earlier tool call"):
        tool_groups(msgs)


@pytest.mark.parametrize("msgs, err, match", [
    ([{"role": "wizard", "content": "x"}], ValueError, r"messages\[0\]: role must be one of"),
    ([{"role": "user", "content": 3}], TypeError, r"messages\[0\]: field 'content' must be a str"),
    (["hello"], TypeError, r"messages\[0\] must be a mapping"),
    ([{"role": "tool", "content": "x"}], ValueError, "needs a non-empty 'tool_call_id'"),
    # Used to escape as json's "Object of type set is not JSON serializable" without the message position.
    ([{"role": "assistant", "tool_calls": [{"id": "c1", "args": {1, 2}}]}], TypeError,
     r"messages\[0\]: tool_calls must be JSON data"),
    ([{"role": "assistant", "tool_calls": [{"id": "c1", 1: "x"}]}], TypeError,
     r"messages\[0\]: tool_calls must be JSON data"),
])
def test_bad_messages(msgs, err, match):
    with pytest.raises(err, match=match):
        count_message_tokens(msgs)


def test_scores_length_checked():
    with pytest.raises(ValueError, match="scores has 1 entries for 7 messages"):
        items_from_messages(chat_with_tools(), scores=[1.0])
    # A number, a generator or a str used to fail inside len() or build items from characters.
    for bad in (5, (x for x in range(7)), "abcdefg"):
        with pytest.raises(TypeError, match="scores must be a sequence of numbers"):
            items_from_messages(chat_with_tools(), scores=bad)


@pytest.mark.parametrize("call_id", [5, ["a"], ""])
def test_tool_call_ids_must_be_non_empty_str(call_id):
    # A list id was an "unhashable type" error; an int id could never be answered by a str tool_call_id.
    msgs = [{"role": "assistant", "tool_calls": [{"id": call_id, "function": {"name": "f", "arguments": "{}"}}]}]
    with pytest.raises(ValueError, match=r"messages\[0\]: every tool call needs a non-empty str 'id'"):
        items_from_messages(msgs)


def test_messages_from_packing_restores_conversation_order():
    msgs = chat_with_tools()
    items = items_from_messages(msgs)
    pinned_tokens = sum(it.tokens for it in items if it.pinned)
    by_id = {it.id: it for it in items}
    budget = pinned_tokens + by_id["m0005-assistant"].tokens
    res = pack(items, budget, None, strategy="recency")
    assert res.ids[:2] == ["m0000-system", "m0006-user"]  # pinned first inside the Packing
    kept = messages_from_packing(res, msgs)
    assert kept == [msgs[0], msgs[5], msgs[6]]
    with pytest.raises(ValueError, match="item 'x': id is not a message id"):
        messages_from_packing([Item("x", "t", 1.0, 1)], msgs)
