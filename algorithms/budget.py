"""Model context limits and the context budget left for retrieved items.

budget = context limit - system prompt - query - output reserve - safety margin

The limits below were checked on 2026-11-29 (`LIMITS_CHECKED`) against public
model pages; each entry names the page it came from. Providers change limits and
beta flags (e.g. 1M-token windows) often: pass ``limit=`` explicitly for anything
not in the table or when a larger window is enabled.
"""

from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any

from .tokens import DEFAULT_ENCODING, count_tokens, encoding_name

__all__ = ["LIMITS_CHECKED", "ModelLimit", "MODEL_LIMITS", "context_limit", "BudgetBreakdown", "context_budget",
           "model_encoding"]

LIMITS_CHECKED = "2026-11-29"


@dataclass(frozen=True)
class ModelLimit:
    """Token limits of one model.

    Attributes:
        context: Context window (prompt + output) in tokens.
        max_output: Largest output the API allows.
        source: Where the figures were read.
    """

    context: int
    max_output: int
    source: str


_OPENAI = "https://platform.openai.com/docs/models"
_VERCEL = "https://vercel.com/ai-gateway/models"
_ANTHROPIC = "https://docs.anthropic.com/en/docs/about-claude/models (and support article 8606395)"
_GOOGLE = "https://cloud.google.com/vertex-ai/generative-ai/docs/models"

MODEL_LIMITS: MappingProxyType[str, ModelLimit] = MappingProxyType({
    "gpt-3.5-turbo": ModelLimit(16_385, 4_096, _OPENAI),
    "gpt-4": ModelLimit(8_192, 8_192, _OPENAI),
    "gpt-4o": ModelLimit(128_000, 16_384, _OPENAI),
    "gpt-4o-mini": ModelLimit(128_000, 16_384, _OPENAI),
    "gpt-4.1": ModelLimit(1_047_576, 32_768, _OPENAI),
    "gpt-5": ModelLimit(400_000, 128_000, f"{_VERCEL}/gpt-5"),
    "gpt-5.1": ModelLimit(400_000, 128_000, "github.com/continuedev/openai-continue-hub blocks/public/gpt-5.1.yaml"),
    "gpt-5.2": ModelLimit(400_000, 128_000, f"{_VERCEL}/openai/gpt-5.2-fast"),
    "gpt-5.4": ModelLimit(1_050_000, 128_000, f"{_VERCEL}/gpt-5.4"),
    "gpt-5.5": ModelLimit(1_000_000, 128_000, f"{_VERCEL}/openai/gpt-5.5 (272K output there; docs.venice.ai says 128K: "
                                              f"the smaller is kept)"),
    "claude-opus-4-1": ModelLimit(200_000, 32_000, _ANTHROPIC),
    "claude-sonnet-4-5": ModelLimit(200_000, 64_000, f"{_ANTHROPIC}; 1M with the context-1m beta"),
    "claude-haiku-4-5": ModelLimit(200_000, 64_000, _ANTHROPIC),
    "claude-opus-4-6": ModelLimit(200_000, 128_000, f"{_ANTHROPIC}; 1M with the context-1m beta"),
    "claude-sonnet-4-6": ModelLimit(200_000, 128_000, f"{_ANTHROPIC}; 1M with the context-1m beta"),
    "gemini-2.0-flash": ModelLimit(1_048_576, 8_192, f"{_GOOGLE}/gemini/2-0-flash"),
    "gemini-2.5-pro": ModelLimit(1_048_576, 65_535, f"{_GOOGLE}/gemini/2-5-pro"),
})


def context_limit(model: str) -> int:
    """Context window of a model in `MODEL_LIMITS`.

    Raises:
        ValueError: Unknown model (the message lists the known ones and says to pass ``limit=``).
    """
    if not isinstance(model, str) or model not in MODEL_LIMITS:
        raise ValueError(f"unknown model {model!r} (limits checked {LIMITS_CHECKED}); known: "
                         f"{', '.join(sorted(MODEL_LIMITS))}; or pass limit= explicitly")
    return MODEL_LIMITS[model].context


@dataclass(frozen=True)
class BudgetBreakdown:
    """Where the context window goes.

    Attributes:
        limit: The context window.
        system: Tokens of the system prompt.
        query: Tokens of the user query.
        output_reserve: Tokens kept free for the answer.
        safety_margin: Extra tokens kept free (framing, tokenizer drift).
        context: What is left for retrieved items or history.
        encoding: The tiktoken encoding that counted the text arguments.
    """

    limit: int
    system: int
    query: int
    output_reserve: int
    safety_margin: int
    context: int
    encoding: str = DEFAULT_ENCODING

    def to_dict(self) -> dict[str, int | str]:
        """The breakdown as a plain dict."""
        return asdict(self)


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative int, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative int, got {value!r}")
    return int(value)


def model_encoding(model: str | None) -> str:
    """The tiktoken encoding of a model: tiktoken's own model table (``gpt-4o`` -> ``o200k_base``).

    Models whose tokenizer tiktoken does not have (Claude, Gemini) and no model
    get `DEFAULT_ENCODING` as a stand-in: their counts are then approximate, so
    keep a safety margin or pass exact counts.
    """
    if isinstance(model, str):
        try:
            return encoding_name(model)
        except ValueError:
            pass
    return DEFAULT_ENCODING


def _tokens_of(name: str, value: str | int, encoding: str) -> int:
    if isinstance(value, str):
        return count_tokens(value, encoding)
    return _count(name, value)


def context_budget(model: str | None = None, *, limit: int | None = None, system: str | int = 0,
                   query: str | int = 0, output_reserve: int = 1_000, safety_margin: int = 50,
                   encoding: str | None = None) -> BudgetBreakdown:
    """Token budget left for context after the fixed parts of a prompt.

    Args:
        model: A model in `MODEL_LIMITS` (or None with `limit`).
        limit: Context window, overriding the table.
        system: The system prompt text (counted with `encoding`) or its token count.
        query: The query text or its token count.
        output_reserve: Tokens reserved for the answer.
        safety_margin: Extra tokens kept free.
        encoding: Encoding or model name that counts text arguments; None (default):
            the model's own encoding (`model_encoding`: o200k_base for gpt-4o).

    Returns:
        The `BudgetBreakdown`.

    Raises:
        ValueError: Unknown model, neither model nor limit given, a negative count,
            the output reserve plus margin alone over the limit, or system and query
            leaving no room.
        TypeError: A count of the wrong type.
    """
    if limit is None:
        if model is None:
            raise ValueError("give a model name or limit=")
        limit = context_limit(model)
    limit = _count("limit", limit)
    output_reserve = _count("output_reserve", output_reserve)
    safety_margin = _count("safety_margin", safety_margin)
    reserve = output_reserve + safety_margin
    if reserve > limit:
        raise ValueError(f"output_reserve ({output_reserve}) + safety_margin ({safety_margin}) = {reserve} "
                         f"exceeds the context limit of {limit} on its own")
    if isinstance(model, str) and model in MODEL_LIMITS and output_reserve > MODEL_LIMITS[model].max_output:
        raise ValueError(f"output_reserve ({output_reserve}) exceeds {model}'s maximum output of "
                         f"{MODEL_LIMITS[model].max_output}")
    enc = encoding_name(encoding) if encoding is not None else model_encoding(model)
    system_tokens = _tokens_of("system", system, enc)
    query_tokens = _tokens_of("query", query, enc)
    context = limit - reserve - system_tokens - query_tokens
    if context < 0:
        raise ValueError(f"system ({system_tokens}) + query ({query_tokens}) + reserve ({reserve}) = "
                         f"{limit - context} tokens exceed the context limit of {limit}")
    return BudgetBreakdown(limit, system_tokens, query_tokens, output_reserve, safety_margin, context, enc)
