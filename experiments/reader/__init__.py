"""A reader in the loop: send each packed context and question to a reader, score its answer against the gold.

Modules: `scoring` (normalised exact match and token F1, as in the NQ-Open / SQuAD literature),
`base` (the reader protocol and the result row), `openai_chat` (an adapter for OpenAI-compatible chat
endpoints, stdlib HTTP, with rate limit, retries, an answer cache and cost accounting; nothing is
called unless the user configures it), `step` (the evaluation step over corpus instances).
"""

from .base import Reader, ReaderRow
from .scoring import exact_match, token_f1
from .step import run_reader

__all__ = ["Reader", "ReaderRow", "exact_match", "token_f1", "run_reader"]
