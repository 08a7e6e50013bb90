"""One read of every text of a list of items, as `pack` receives them: the faithful single-pass bound.

`pack` is handed a list of `Item` objects whose ``.text`` are separate str
objects scattered over the heap, not one contiguous buffer. The least any
single pass over those texts can cost is to visit each item, reach its str
and read the bytes the str holds (its length times the 1, 2 or 4 bytes a
character of its kind takes). `text_pass` does exactly that in C
(`text_pass` in ``algorithms/_native/columns.c``), folding every byte into a
checksum so that no read can be dropped; `text_ab.speed_table` times it on
the same candidate lists, interleaved with `pack`'s rounds, and prints it
beside the streaming bound (one read of a contiguous array at the machine's
read bandwidth, the hardware floor).

The checksum: each text's bytes read as native-order 8-byte words, the last
one zero-padded, all words of all texts added modulo 2**64.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

import numpy as np

__all__ = ["native_text_pass", "text_bytes", "text_pass", "text_pass_numpy"]

def _load():
    # By name: the compiled module has no source file for the import-structure checks to read.
    try:
        return getattr(importlib.import_module("packbench.algorithms._columns_native"), "text_pass", None)
    except ImportError:  # not built (no compiler at install time)
        return None


_NATIVE = _load()


def native_text_pass() -> bool:
    """Whether the C pass is built (without it there is no faithful bound to time, only its answer)."""
    return _NATIVE is not None


def text_bytes(text: str) -> bytes:
    """The bytes a str holds in CPython's compact form: 1, 2 or 4 native-order bytes per character."""
    top = ord(max(text)) if text else 0
    if top < 0x100:
        return text.encode("latin-1")
    order = "le" if sys.byteorder == "little" else "be"
    # surrogatepass: a lone surrogate is one 2-byte unit, as the str holds it.
    return text.encode(f"utf-16-{order}" if top < 0x10000 else f"utf-32-{order}", "surrogatepass")


def text_pass_numpy(items: Sequence) -> tuple[int, int]:
    """`text_pass`'s answer without the C kernel: (checksum, bytes read), through numpy."""
    chunks, read = [], 0
    for it in items:
        raw = text_bytes(it if isinstance(it, str) else it.text)
        read += len(raw)
        chunks.append(raw + bytes(-len(raw) % 8))  # the last word zero-padded
    words = np.frombuffer(b"".join(chunks), dtype=np.uint64)
    return int(words.sum(dtype=np.uint64)), read  # numpy's uint64 sum wraps modulo 2**64

def text_pass(items: list) -> tuple[int, int]:
    """One read of every byte of every text: (wrapping 8-byte word sum, bytes read).

    Args:
        items: A list of strs or of objects with a str attribute ``text`` (e.g. `Item`).

    Returns:
        The checksum and the bytes read (the texts' lengths times their kinds' widths); the C
        pass's when it is built, else `text_pass_numpy`'s (same answer, not a bound).

    Raises:
        TypeError: An element's text is not a str.
        AttributeError: An element has no ``text``.
    """
    if _NATIVE is not None:
        return _NATIVE(items if type(items) is list else list(items))
    return text_pass_numpy(items)
