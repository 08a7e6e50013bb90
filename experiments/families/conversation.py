"""Synthetic multi-turn support chats with tool calls, for chat-history packing.

Each chat has a system prompt, ``turns`` user turns on a few topics, assistant
replies, and with probability ``tool_rate`` per turn a tool exchange (an
assistant message calling a lookup tool, the tool's result, then the
assistant's reply). The last user turn asks again about a topic seen earlier
(the target). Items follow `algorithms.chat.items_from_messages`: system prompt
and last user turn pinned, tool call and result sharing a `source` group key,
tiktoken counts with the chat overhead.

Scores model a relevance signal: messages on the target topic score U(0.6, 1),
others U(0, 0.4). Ground truth: `answers` are the tool results on the target
topic (or, when no tool was called on it, the assistant replies on it);
`groups` puts each message in its own group (the chats hold no duplicates).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import numpy as np

from packbench.algorithms.chat import items_from_messages
from packbench.algorithms.params import Param, int_in, real_in
from packbench.algorithms.tokens import DEFAULT_ENCODING, check_encoding_param

from ..instances import Instance, Source
from .pinned import word_text

__all__ = ["Conversation", "chat_messages"]

TOPICS = ("refund", "shipping", "invoice", "password", "subscription", "warranty", "delivery", "account",
          "discount", "installation")
SYSTEM = "You are a support assistant. Use the conversation and tool results to answer the customer."


def _words(rng: np.random.Generator, median: int) -> str:
    n = max(3, int(round(rng.lognormal(np.log(median), 0.5))))
    return word_text(rng, n)


def chat_messages(rng: np.random.Generator, turns: int, tool_rate: float, n_topics: int,
                  words: int) -> tuple[list[dict[str, Any]], str, list[str]]:
    """One synthetic chat.

    Args:
        rng: The seeded generator.
        turns: User turns before the final question (>= 1).
        tool_rate: Probability that a turn uses a tool.
        n_topics: Distinct topics in the chat.
        words: Median words per message.

    Returns:
        (messages oldest first, the target topic, the topic of each message).
    """
    topics = [TOPICS[k] for k in rng.choice(len(TOPICS), size=min(n_topics, len(TOPICS)), replace=False)]
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    about = [""]
    for t in range(turns):
        topic = topics[int(rng.integers(len(topics)))]
        messages.append({"role": "user", "content": f"About my {topic}: {_words(rng, words)}?"})
        about.append(topic)
        if rng.random() < tool_rate:
            call_id = f"call_{t}"
            args = json.dumps({"topic": topic, "turn": t})
            messages.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": f"lookup_{topic}", "arguments": args}}]})
            code = f"{topic[:3].upper()}-{int(rng.integers(1000, 10000))}"
            messages.append({"role": "tool", "tool_call_id": call_id,
                             "content": f"{topic} record {code}: {_words(rng, 2 * words)}"})
            about += [topic, topic]
        messages.append({"role": "assistant", "content": f"On your {topic}: {_words(rng, words)}."})
        about.append(topic)
    target = about[1 + int(rng.integers(len(about) - 1))]
    messages.append({"role": "user", "content": f"Going back to my {target}: {_words(rng, words)}?"})
    about.append(target)
    return messages, target, about


class Conversation(Source):
    """Synthetic multi-turn chats with tool calls (see the module docstring).

    Params:
        turns: User turns before the final question.
        tool_rate: Probability that a turn uses a tool.
        topics: Distinct topics per chat.
        words: Median words per message (tool results are twice as long).
        instances: Chats per seed.
        encoding: tiktoken encoding or model name for the token counts.
    """

    name = "conversation"
    kind = "family"
    DOMAIN = "chat"
    PARAMS = MappingProxyType({
        "turns": Param(12, int_in(1, 10_000), "user turns before the final question"),
        "tool_rate": Param(0.35, real_in(0.0, 1.0), "probability that a turn calls a tool"),
        "topics": Param(4, int_in(1, len(TOPICS)), "distinct topics per chat"),
        "words": Param(30, int_in(1, 10_000), "median words per message"),
        "instances": Param(1, int_in(1, 10_000), "chats per seed"),
        "encoding": Param(DEFAULT_ENCODING, check_encoding_param, "tiktoken encoding or model name"),
    })

    def instance_keys(self, seed: int) -> list[str]:
        return [f"seed={seed}/i={k}" for k in range(self.params["instances"])]

    def instances(self, seed: int) -> Iterator[Instance]:
        for k in range(self.params["instances"]):
            yield self._one(seed, k)

    def _one(self, seed: int, index: int) -> Instance:
        p = self.params
        rng = np.random.default_rng([int(seed), 7, index])
        messages, target, about = chat_messages(rng, p["turns"], p["tool_rate"], p["topics"], p["words"])
        scores = [float(rng.uniform(0.6, 1.0)) if a == target else float(rng.uniform(0.0, 0.4)) for a in about]
        scores = [0.0 if m["role"] == "system" else round(s, 6) for m, s in zip(messages, scores)]
        items = items_from_messages(messages, p["encoding"], scores=scores)
        cands = [it for it in items if not it.pinned]
        roles = [m["role"] for m in messages]
        on_target = [it.id for it, a, r in zip(items, about, roles) if a == target and not it.pinned]
        tool_hits = [i for i in on_target if i.endswith("-tool")]
        answers = tool_hits or [i for i in on_target if i.endswith("-assistant")]
        return Instance(key=f"seed={seed}/i={index}", items=tuple(items), groups={it.id: it.id for it in cands},
                        answers=frozenset(answers),
                        meta={"target": target, "messages": len(messages),
                              "tool_pairs": sum(1 for m in messages if m.get("tool_calls"))})
