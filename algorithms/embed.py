"""Text embedders for `Item.embedding`: a deterministic hashing embedder and WordLlama, with a disk cache.

* ``"hashing"`` (no model, no extra; the fallback and the test default):
  feature hashing of the dedupe words (`dedupe.words`, Unicode-aware) and of
  word bigrams into `dim` signed buckets, weights ``1 + log(count)``, rows of
  unit length. Deterministic on every machine; similar wording gives similar
  vectors, but it knows no synonyms.
* ``"wordllama"`` (extra ``pip install 'packbench[embed]'``): the WordLlama
  model that ships inside the `wordllama` wheel (256 dimensions, optionally
  truncated), loaded from the package folder with downloads disabled, so it
  works with no network.

`embed_texts` caches each batch on disk, keyed by the embedder's description
and a hash of the texts: ``<cache_dir>/<embedder key>/<content hash>.npz``, which
also holds a digest of both; a cached file is used only when that digest, its
shape (one row per text), its dtype (float) and its values (all finite) are
right, else it is recomputed.
The cache folder is `cache_dir`, else ``$PACKBENCH_CACHE_DIR/embeddings``,
else ``~/.cache/packbench/embeddings``. The hashing embedder is not cached by
default (it is faster than reading the file).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from .component import Component, Registry
from .dedupe.tokenise import MULTIPLIERS, word_codes
from .items import Item
from .params import Param, int_in, one_of
from .vectors import normalised_rows

__all__ = ["Embedder", "HashingEmbedder", "WordLlamaEmbedder", "EMBEDDERS", "embed_texts", "embed_items",
           "default_cache_dir"]


class Embedder(Component):
    """Base class: declare `name` and `PARAMS`, implement `embed`.

    Args:
        **params: Values for the names declared in `PARAMS`.
    """

    kind: ClassVar[str] = "embedder"
    cache_by_default: ClassVar[bool] = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """A (len(texts), dim) float array, one row per text."""
        raise NotImplementedError

    def key(self) -> str:
        """What identifies this embedder's output (name, parameters, model version) in the cache."""
        params = ",".join(f"{k}={v!r}" for k, v in sorted(self.params.items()))
        return f"{self.name}({params})"


def _mix(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint64(31))
    h = h * MULTIPLIERS[4]
    h = h ^ (h >> np.uint64(29))
    return h * MULTIPLIERS[5]


class HashingEmbedder(Embedder):
    """Feature hashing of words and word bigrams into signed buckets (no model; deterministic)."""

    name = "hashing"
    cache_by_default = False
    PARAMS = MappingProxyType({
        "dim": Param(256, int_in(8, 1 << 16), "number of hash buckets (the embedding dimension)"),
    })

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        dim = self.params["dim"]
        out = np.zeros((len(texts), dim))
        if not len(texts):
            return out
        codes, lens = word_codes(list(texts), exact=False)
        owner = np.repeat(np.arange(len(texts), dtype=np.int64), lens)
        ends = np.cumsum(lens)
        pair = np.ones(len(codes), dtype=bool)
        pair[ends - 1] = False  # a bigram starts at every word but the last of its text
        features = np.concatenate([_mix(codes), _mix(codes[:-1][pair[:-1]] * MULTIPLIERS[0] ^ codes[1:][pair[:-1]])
                                   if len(codes) > 1 else np.zeros(0, np.uint64)])
        owners = np.concatenate([owner, owner[:-1][pair[:-1]]])
        cell = owners * dim + (features >> np.uint64(40)).astype(np.int64) % dim
        counts = np.bincount(cell, minlength=len(texts) * dim).reshape(len(texts), dim)
        signs = np.bincount(cell, weights=np.where(features >> np.uint64(63), -1.0, 1.0),
                            minlength=len(texts) * dim).reshape(len(texts), dim)
        # Sublinear weight of the net count per bucket, with the sign of the majority.
        np.copyto(out, np.sign(signs) * (1.0 + np.log(np.maximum(np.abs(signs), 1.0))), where=counts > 0)
        return normalised_rows(out)


class WordLlamaEmbedder(Embedder):
    """The WordLlama model shipped in the wordllama wheel, offline (extra: packbench[embed])."""

    name = "wordllama"
    PARAMS = MappingProxyType({
        "dim": Param(256, one_of(64, 128, 256), "truncate the 256-dimensional model to this many (matryoshka)"),
    })

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self._model = None

    def _load(self):
        if self._model is None:
            try:
                import wordllama
            except ImportError:
                raise ImportError("the 'wordllama' embedder needs the wordllama package: "
                                  "pip install 'packbench[embed]'") from None
            folder = Path(wordllama.__file__).parent  # the wheel ships weights/ and tokenizers/ here
            trunc = None if self.params["dim"] == 256 else self.params["dim"]
            self._model = wordllama.WordLlama.load(cache_dir=folder, disable_download=True, dim=256,
                                                   trunc_dim=trunc)
        return self._model

    def key(self) -> str:
        try:
            from importlib.metadata import version
            return f"{super().key()}-wordllama{version('wordllama')}"
        except Exception:  # no metadata: the parameters alone still key the cache
            return super().key()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, self.params["dim"]))
        return np.asarray(self._load().embed(list(texts), norm=False), dtype=np.float64)


EMBEDDERS: Registry[Embedder] = Registry("embedder", [HashingEmbedder, WordLlamaEmbedder], group="packbench.embedders")


def default_cache_dir() -> Path:
    """``$PACKBENCH_CACHE_DIR/embeddings``, else ``~/.cache/packbench/embeddings``."""
    root = os.environ.get("PACKBENCH_CACHE_DIR")
    return Path(root) / "embeddings" if root else Path.home() / ".cache" / "packbench" / "embeddings"


def _embedder(embedder: str | Embedder, params: dict[str, Any]) -> Embedder:
    if isinstance(embedder, Embedder):
        if params:
            raise ValueError("pass parameters to the Embedder instance, not to embed_texts")
        return embedder
    return EMBEDDERS.lookup(embedder)(**params)


def embed_texts(texts: Sequence[str], embedder: str | Embedder = "hashing", *, cache: bool | None = None,
                cache_dir: str | os.PathLike | None = None, **params: Any) -> np.ndarray:
    """Embeddings of `texts`, read from or written to the disk cache.

    Args:
        texts: The texts.
        embedder: A name in `EMBEDDERS` or an `Embedder` instance.
        cache: Use the disk cache (default: the embedder's `cache_by_default`).
        cache_dir: Cache folder (default: `default_cache_dir`).
        **params: Parameters of the named embedder.

    Returns:
        A (len(texts), dim) float64 array.

    Raises:
        ValueError: Unknown embedder or parameter, or the embedder returned a matrix of the wrong
            shape or with non-finite values.
        ImportError: The embedder's extra is not installed (the message names it).
    """
    model = _embedder(embedder, params)
    use_cache = model.cache_by_default if cache is None else cache
    if not use_cache:
        return _checked(model, model.embed(texts), len(texts))
    digest = hashlib.sha256()
    for t in texts:
        data = t.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    path = folder / hashlib.sha256(model.key().encode()).hexdigest()[:16] / f"{digest.hexdigest()[:32]}.npz"
    # Stored with the vectors and compared on reading: a file renamed, copied from another cache or
    # written by another embedder is recomputed, not returned.
    stamp = hashlib.sha256(model.key().encode() + b"\0" + digest.digest()).hexdigest()
    if path.exists():
        found = _read_cached(path, stamp, len(texts), model.params.get("dim"))
        if found is not None:
            return found
    vectors = _checked(model, model.embed(texts), len(texts))
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(tmp, vectors=vectors, stamp=np.array(stamp), content=np.array(_content(vectors)))
        os.replace(tmp, path)  # atomic: a concurrent reader sees the whole file or none
    except OSError:  # a read-only or full cache folder costs the next run a recomputation, nothing else
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    return vectors


def _content(vectors: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(vectors, dtype=np.float64).tobytes()).hexdigest()


def _read_cached(path: Path, stamp: str, n: int, dim: Any) -> np.ndarray | None:
    """The cached vectors at `path` when they are what was asked for, else None (then recomputed)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            vectors, found, content = data["vectors"], str(data["stamp"]), str(data["content"])
    except (OSError, ValueError, KeyError, EOFError):  # damaged or not ours
        return None
    if found != stamp or vectors.ndim != 2 or vectors.shape[0] != n or vectors.shape[1] < 1:
        return None
    if (isinstance(dim, int) and vectors.shape[1] != dim) or vectors.dtype != np.float64:
        return None
    if not np.isfinite(vectors).all() or _content(vectors) != content:
        return None
    return vectors


def _checked(model: Embedder, vectors: Any, n: int) -> np.ndarray:
    """`vectors` from `model.embed` as a (n, dim) finite float64 array, or a ValueError naming the embedder."""
    try:
        arr = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"embedder {model.key()!r} returned something that is not a float matrix ({exc})") from None
    if arr.ndim != 2 or arr.shape[0] != n:
        raise ValueError(f"embedder {model.key()!r} returned shape {arr.shape} for {n} texts; expected ({n}, dim)")
    if not np.isfinite(arr).all():
        row = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise ValueError(f"embedder {model.key()!r} returned a non-finite value in row {row} (text {row})")
    return arr


def embed_items(items: Sequence[Item], embedder: str | Embedder = "hashing", **kwargs: Any) -> list[Item]:
    """Copies of `items` with `embedding` set from their texts (see `embed_texts` for the arguments)."""
    vectors = embed_texts([it.text for it in items], embedder, **kwargs)
    return [dataclasses.replace(it, embedding=v) for it, v in zip(items, vectors)]
