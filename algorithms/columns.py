"""`pack`'s one pass over the items: every check of the whole list, the totals, and the columns later steps read.

Reading a field of each of 10^5 items costs a few milliseconds per pass in CPython (each read goes
through the attribute machinery, and the items lie scattered in memory), and `pack` used to make a
pass per check and per step. `read_items` makes one: the C kernel `_native/columns.c` (built by the
package's own ``setup.py``, optional) reads each item's id, score, tokens, pinned flag and
embedding slot once, checks ids for repeats with its own hash table, adds up the totals and fills
the score and token arrays that the strategy then reads through `Problem.arrays`, and checks that
the embeddings that are set have one length. It runs at every size: on a few hundred items the
Python checks cost more than a diversity strategy's picks. Whenever an error is possible, or an
item is not exactly an `Item`, the kernel declines and the Python checks of `validation` run as
they always did, so every error and its message stay theirs.
``PACKBENCH_NATIVE=0`` switches the pass off, as it does the dedupe join's (the fill, `take_in_order`,
gives the numpy loop's answer either way).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from .items import Item
from .validation import check_totals, item_list, validate_items

__all__ = ["ARRAYS_MIN", "Columns", "read_items", "native_columns_available", "take_in_order", "embedding_rows"]


def _load():
    # By name: the compiled module has no source file for the import-structure checks to read.
    try:
        return importlib.import_module(f"{__package__}._columns_native")
    except ImportError:  # not built (no compiler at install time): the Python path runs
        return None


_NATIVE = _load()


def native_columns_available() -> bool:
    """Whether the C pass is built and not switched off (``PACKBENCH_NATIVE=0``)."""
    return _NATIVE is not None and os.environ.get("PACKBENCH_NATIVE", "1") != "0"


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


# Below this many items no strategy reads the arrays (their loops beat numpy's per-call cost there,
# `strategies.greedy._VECTOR_MIN`), so `read_items` hands on none (the kernel's checks still run).
ARRAYS_MIN = 256


class Columns(NamedTuple):
    """The checked items and what every later step of `pack` reads of them, read once.

    A named tuple: `pack` builds one per call, and a frozen dataclass costs several times more
    to build, which a call on a handful of items would notice.

    Attributes:
        items: The items, as a list.
        scores: Each item's score, float64, read-only (None under `ARRAYS_MIN` items).
        tokens: Each item's tokens, int64, read-only, their total at most 2**62 (None under `ARRAYS_MIN`).
        pinned: Each item's pinned flag (a read-only bool array; a list under `ARRAYS_MIN`), or None
            when no item is pinned.
        total_tokens: The items' total tokens.
        min_score: The lowest score (0.0 for no items).
    """

    items: list[Item]
    scores: np.ndarray
    tokens: np.ndarray
    pinned: np.ndarray | None
    total_tokens: int
    min_score: float


def read_items(items: Iterable[Item]) -> Columns:
    """`validate_items` and `check_totals` in one pass, with the columns they read.

    Raises:
        TypeError, ValueError: As `validate_items`, then `check_totals`, raise them.
    """
    out = item_list(items)
    found = _NATIVE.item_columns(out, Item) if native_columns_available() else None
    if found is None:
        return _python_columns(out)
    scores, tokens, pinned, total, low, _dim = found
    flags = None if pinned is None else np.frombuffer(pinned, dtype=bool)
    if len(out) < ARRAYS_MIN:
        return Columns(out, None, None, None if flags is None else flags.tolist(), total, low)
    # Views of the kernel's bytes: read-only, as bytes are immutable.
    return Columns(out, np.frombuffer(scores, dtype=np.float64), np.frombuffer(tokens, dtype=np.int64),
                   flags, total, low)


def _python_columns(out: list[Item]) -> Columns:
    """`read_items` without the kernel (or where it declined): the checks of `validation`, then the columns."""
    validate_items(out)
    total, low = check_totals(out)
    if len(out) < ARRAYS_MIN:
        flags = list(map(attrgetter("pinned"), out)) if any(map(attrgetter("pinned"), out)) else None
        return Columns(out, None, None, flags, total, low)
    flags = list(map(attrgetter("pinned"), out))
    pinned = _readonly(np.array(flags, dtype=bool)) if any(flags) else None
    scores = _readonly(np.fromiter(map(attrgetter("score"), out), dtype=np.float64, count=len(out)))
    tokens = _readonly(np.fromiter(map(attrgetter("tokens"), out), dtype=np.int64, count=len(out)))
    return Columns(out, scores, tokens, pinned, total, low)


def take_in_order(tokens: np.ndarray, order: np.ndarray, taken: Sequence[int], left: int) -> list[int] | None:
    """The greedy fill's additions: each index of `order` not in `taken` whose tokens fit in what is left.

    Args:
        tokens: Tokens of every candidate (int64).
        order: Candidate indices in the order to try them, each at most once.
        taken: Indices already taken (skipped).
        left: Tokens left, 0 <= left <= 2**62.

    Returns:
        The indices taken, in order; None without the C kernel (the caller runs its numpy loop).
        ``PACKBENCH_NATIVE`` is not read here: this runs twice per strategy call, and its answer
        is the loop's whatever the switch (tests/test_columns.py).
    """
    if _NATIVE is None:
        return None
    flags = np.zeros(len(tokens), dtype=bool)
    flags[list(taken)] = True
    return _NATIVE.greedy_take(np.ascontiguousarray(tokens, dtype=np.int64),
                               np.ascontiguousarray(order, dtype=np.int64), flags, left)


_FLOAT64 = np.dtype(np.float64)


def embedding_rows(items: list[Item], dtype: type = np.float64) -> np.ndarray | None:
    """The items' embeddings as a read-only (len(items), dim) float64 or float32 array, stacked in one C pass.

    float32 values are numpy's cast of each float64 entry (both round to nearest). numpy's own
    stack (``np.array(rows, dtype=np.float32)``) converts row by row and costs about twice as much,
    a large part of `pack`'s fixed cost for a diversity strategy; the float64 stack by joining
    the rows' bytes also needs a Python pass over their lengths, which the C pass does as it goes.

    Args:
        items: The items.
        dtype: np.float64 or np.float32.

    Returns:
        The rows; None without the kernel, for no items, or whenever the kernel declines (an
        element not exactly an `Item`, an embedding missing, of another length or not a
        contiguous float64 vector, an entry beyond float32's range for float32), and the caller
        stacks them its own way, which raises any error.

    Raises:
        ValueError: `dtype` is neither float64 nor float32.
    """
    single = np.dtype(dtype) == np.float32
    if not single and np.dtype(dtype) != np.float64:
        raise ValueError(f"embedding_rows: dtype must be float64 or float32, got {np.dtype(dtype).name}")
    if _NATIVE is None or not items or type(items[0]) is not Item or items[0].embedding is None:
        return None
    dim = len(items[0].embedding)
    rows = _NATIVE.embedding_rows(items, Item, np.ndarray, _FLOAT64, dim, single)
    if rows is None:
        return None
    return np.frombuffer(rows, dtype=np.float32 if single else np.float64).reshape(len(items), dim)
