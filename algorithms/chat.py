"""Chat messages: token counts with the chat-format overhead, and Items built from messages.

Counting follows seed 003 (the ChatML rule of OpenAI's cl100k-era models): every
message costs 3 tokens of framing plus the tokens of each of its string fields
(role, content, name, tool_call_id), a `name` field costs 1 more, and the reply
is primed with 3 tokens. A message's `tool_calls` list is counted as its compact
JSON text: the real wire format differs slightly, but this keeps the count
deterministic and proportional to what the model sees.

Item convention used by the `recency` strategy and the conversation family:
- id ``m{position:04d}-{role}``; the message order is the item order.
- system messages and the latest user message are pinned (never dropped);
  an extra pinned item ``reply-primer`` carries the 3 reply-priming tokens, so the
  Items' tokens sum to `count_message_tokens` of the messages.
- an assistant message with `tool_calls` and the `tool` messages answering
  those calls share ``Item.source == "tools@{position of the call}"``: the group
  key that `recency` keeps or drops as a whole. Other messages have source None.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .items import Item
from .tokens import DEFAULT_ENCODING, count_tokens_batch

__all__ = ["TOKENS_PER_MESSAGE", "TOKENS_PER_NAME", "REPLY_PRIMER_TOKENS", "REPLY_PRIMER_ID", "TOOL_GROUP_PREFIX",
           "message_text",
           "message_tokens", "count_message_tokens", "items_from_messages", "tool_groups",
           "messages_from_packing"]

TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMER_TOKENS = 3
REPLY_PRIMER_ID = "reply-primer"
TOOL_GROUP_PREFIX = "tools@"  # Item.source of a tool call and its results: "tools@{position of the call}"

_ROLES = ("system", "developer", "user", "assistant", "tool")


def _check_message(pos: int, message: Any) -> Mapping[str, Any]:
    if not isinstance(message, Mapping):
        raise TypeError(f"messages[{pos}] must be a mapping, got {type(message).__name__}")
    role = message.get("role")
    if role not in _ROLES:
        raise ValueError(f"messages[{pos}]: role must be one of {list(_ROLES)}, got {role!r}")
    for key, value in message.items():
        if key == "tool_calls":
            if not isinstance(value, Sequence) or isinstance(value, str):
                raise TypeError(f"messages[{pos}]: tool_calls must be a list, got {type(value).__name__}")
            try:
                _calls_json(value)
            except (TypeError, ValueError) as exc:  # a set, an object, or keys of mixed types
                raise TypeError(f"messages[{pos}]: tool_calls must be JSON data (dicts with str keys, lists, "
                                f"str, numbers): {exc}") from None
        elif value is not None and not isinstance(value, str):
            raise TypeError(f"messages[{pos}]: field {key!r} must be a str, got {type(value).__name__}")
    if role == "tool" and not message.get("tool_call_id"):
        raise ValueError(f"messages[{pos}]: a tool message needs a non-empty 'tool_call_id'")
    return message


def _fields(message: Mapping[str, Any]) -> list[str]:
    """The strings that are counted for one message, in field order."""
    out = []
    for key, value in message.items():
        if value is None:
            continue
        out.append(_calls_json(value) if key == "tool_calls" else value)
    return out


def _calls_json(calls: Any) -> str:
    """A message's tool calls as compact JSON (keys sorted, so the count is deterministic)."""
    return json.dumps(calls, sort_keys=True, separators=(",", ":"))


def message_text(message: Mapping[str, Any]) -> str:
    """The text an Item carries for a message: its content, then its tool calls as JSON."""
    parts = [message.get("content") or ""]
    if message.get("tool_calls"):
        parts.append(_calls_json(message["tool_calls"]))
    return "\n".join(p for p in parts if p)


def _per_message(messages: Sequence[Mapping[str, Any]], encoding: str) -> list[int]:
    if isinstance(messages, (str, Mapping)) or not isinstance(messages, Sequence):
        raise TypeError(f"messages must be a list of message mappings, got {type(messages).__name__}")
    checked = [_check_message(pos, m) for pos, m in enumerate(messages)]
    fields = [_fields(m) for m in checked]
    counts = iter(count_tokens_batch([f for fs in fields for f in fs], encoding))
    out = []
    for m, fs in zip(checked, fields):
        n = TOKENS_PER_MESSAGE + sum(next(counts) for _ in fs)
        out.append(n + (TOKENS_PER_NAME if m.get("name") is not None else 0))
    return out


def message_tokens(message: Mapping[str, Any], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens of one message including its framing (not the reply primer).

    Raises:
        TypeError: The message or a field has the wrong type.
        ValueError: Unknown role, or a tool message without tool_call_id.
    """
    return _per_message([message], encoding)[0]


def count_message_tokens(messages: Sequence[Mapping[str, Any]], encoding: str = DEFAULT_ENCODING) -> int:
    """Prompt tokens of a chat request: every message with its framing, plus the reply primer.

    Args:
        messages: Dicts with `role` and `content` (optional `name`, `tool_calls`, `tool_call_id`).
        encoding: Encoding or model name.

    Returns:
        The token count.

    Raises:
        TypeError: A message or field has the wrong type (the message gives its position).
        ValueError: Unknown role, or a tool message without tool_call_id.
    """
    return sum(_per_message(messages, encoding)) + REPLY_PRIMER_TOKENS


def tool_groups(messages: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Group key of every message that belongs to a tool exchange.

    Returns:
        position -> ``"tools@{position of the assistant message that made the call}"``
        for assistant messages with tool calls and the tool messages answering them.

    Raises:
        ValueError: A tool call without a non-empty str id, or a tool message
            answering a call id that no earlier assistant message made.
    """
    owner: dict[str, int] = {}
    out: dict[int, str] = {}
    for pos, m in enumerate(messages):
        for call in m.get("tool_calls") or ():
            call_id = call.get("id") if isinstance(call, Mapping) else None
            if not call_id or not isinstance(call_id, str):
                raise ValueError(f"messages[{pos}]: every tool call needs a non-empty str 'id', got {call_id!r}")
            owner[call_id] = pos
        if m.get("tool_calls"):
            out[pos] = f"{TOOL_GROUP_PREFIX}{pos}"
        if m.get("role") == "tool":
            call_pos = owner.get(m.get("tool_call_id"))
            if call_pos is None:
                raise ValueError(f"messages[{pos}]: tool_call_id {m.get('tool_call_id')!r} answers no earlier "
                                 f"tool call")
            out[pos] = f"{TOOL_GROUP_PREFIX}{call_pos}"
    return out


def items_from_messages(messages: Sequence[Mapping[str, Any]], encoding: str = DEFAULT_ENCODING,
                        scores: Sequence[float] | None = None, prime_reply: bool = True) -> list[Item]:
    """Build packing Items from a chat history (see the module docstring for the convention).

    Args:
        messages: The chat history, oldest first.
        encoding: Encoding or model name for the token counts.
        scores: One score per message; default the recency weight (position + 1) / n.
        prime_reply: Add the pinned ``reply-primer`` item (3 tokens).

    Returns:
        One Item per message (and the primer last), tokens including the framing overhead.

    Raises:
        TypeError: A message, field or score has the wrong type, or `scores` is
            not a sequence.
        ValueError: Unknown role, orphan tool result, a tool call without a str
            id, or `scores` of the wrong length.
    """
    counts = _per_message(messages, encoding)
    n = len(counts)
    if scores is None:
        scores = [(pos + 1) / n for pos in range(n)]
    elif isinstance(scores, (str, bytes, Mapping)) or not isinstance(scores, Sequence) and not hasattr(scores, "__len__"):
        raise TypeError(f"scores must be a sequence of numbers (one per message) or None, got {type(scores).__name__}")
    elif len(scores) != n:
        raise ValueError(f"scores has {len(scores)} entries for {n} messages")
    groups = tool_groups(messages)
    last_user = max((pos for pos, m in enumerate(messages) if m["role"] == "user"), default=None)
    items = []
    for pos, (m, tokens) in enumerate(zip(messages, counts)):
        pinned = m["role"] in ("system", "developer") or pos == last_user
        items.append(Item(f"m{pos:04d}-{m['role']}", message_text(m), scores[pos], tokens, pinned=pinned,
                          source=groups.get(pos)))
    if prime_reply:
        items.append(Item(REPLY_PRIMER_ID, "", 0.0, REPLY_PRIMER_TOKENS, pinned=True))
    return items


def messages_from_packing(packing: Sequence[Item], messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The messages a packing kept, back in conversation order, ready to send.

    `pack` puts pinned items (system prompt, latest user turn) first; a chat API
    needs the history in its original order, so this maps the ``m{position}``
    ids of `items_from_messages` back to the messages and sorts by position.

    Args:
        packing: The result of `pack` over `items_from_messages(messages)`.
        messages: The same chat history.

    Returns:
        The kept messages, oldest first (the reply primer is not a message).

    Raises:
        ValueError: An item id is not one `items_from_messages` made for these messages.
    """
    positions = []
    for item in packing:
        if item.id == REPLY_PRIMER_ID:
            continue
        head = item.id.split("-", 1)[0]
        if not (head.startswith("m") and head[1:].isdigit() and int(head[1:]) < len(messages)):
            raise ValueError(f"item {item.id!r}: id is not a message id of items_from_messages for these messages")
        positions.append(int(head[1:]))
    return [messages[pos] for pos in sorted(positions)]
