"""The C path of the "jaccard" join (`_native/jaccard.c`), with the numpy path of `exact` as its fallback.

The extension is built by the package's own ``setup.py`` (``pip install -e .``)
and is optional: `native_available` says whether it was built, and
``PACKBENCH_NATIVE=0`` in the environment switches it off (the tests compare
both paths). It reads each text's bytes once to tokenise and count shingles,
proves most texts unable to match, and runs the exact prefix-filtered join on
the rest; its answers are those of `pairwise.dedupe_pairwise`. Non-ASCII texts
go in as their words joined by spaces (`tokenise`), so both paths follow one
word rule; see docs/dedupe-speed.md.
"""

from __future__ import annotations

import functools
import importlib
import os
import unicodedata
from collections.abc import Sequence

import numpy as np

from ..items import Item
from .filter import PREFIX_SLACK
from .rule import visiting_order
from .tokenise import _char_class, signature



def _load():
    # By name: the compiled module has no source file for the import-structure checks to read.
    try:
        return importlib.import_module(f"{__package__}._jaccard_native").jaccard_join
    except ImportError:  # not built (no compiler at install time): the numpy path runs
        return None


_jaccard_join = _load()
# The first half of `tokenise.normalise` on a non-ASCII text; the C side does the second (str.casefold is a
# per-character map, asked of Python once per distinct character and call).
_NFKC = functools.partial(unicodedata.normalize, "NFKC")

__all__ = ["native_available", "native_decide"]


def native_available() -> bool:
    """Whether the C join is built and not switched off (``PACKBENCH_NATIVE=0``)."""
    return _jaccard_join is not None and os.environ.get("PACKBENCH_NATIVE", "1") != "0"


def _empty_key(text: str) -> bytes:
    return signature(text)[0].encode("utf-8", "surrogatepass")


class _Picked(Sequence):
    """The candidates at `at`, looked up only when asked (visiting_order reads ids only where scores tie)."""

    def __init__(self, candidates: list[Item], at: np.ndarray) -> None:
        self._candidates, self._at = candidates, at

    def __len__(self) -> int:
        return len(self._at)

    def __getitem__(self, k):
        return self._candidates[int(self._at[k])]


def native_decide(candidates: list[Item], anchors_first: list[Item], threshold: float
                  ) -> tuple[np.ndarray, dict[str, str]] | None:
    """(kept flag per candidate in input order, dropped id -> partner id) by the C join, or None.

    None when the batch's vocabulary is too large for the C path's packed
    trigram keys (2^21 distinct words); the caller then runs the numpy path.

    Args:
        candidates: Non-pinned items.
        anchors_first: Pinned items, in input order.
        threshold: Jaccard threshold in (0, 1].
    """
    n_pinned = len(anchors_first)
    inputs: Sequence[Item] = anchors_first + candidates if anchors_first else candidates
    order: list[np.ndarray] = []

    def join_order(mask_bytes: bytes, score_bytes: bytes) -> np.ndarray:
        # Only the active texts need the visiting order, from the scores the C side read with the texts:
        # an item is read again only where scores tie (for its id).
        mask = np.frombuffer(mask_bytes, dtype=bool)
        active_c = np.flatnonzero(mask[n_pinned:])
        scores = np.frombuffer(score_bytes, dtype=np.float64)[n_pinned:][active_c]
        visit = active_c[visiting_order(_Picked(candidates, active_c), scores)]
        src = np.concatenate([np.flatnonzero(mask[:n_pinned]), visit + n_pinned]).astype(np.int64)
        order.append(src)
        return src

    raw = _jaccard_join(inputs if isinstance(inputs, list) else list(inputs), n_pinned, float(threshold),
                        PREFIX_SLACK, _NFKC, _char_class, _empty_key, join_order)
    if raw is None:
        return None
    src, partner = order[0], np.frombuffer(raw, dtype=np.int64)
    at = np.flatnonzero(partner >= 0)
    flags = np.ones(len(candidates), dtype=bool)
    if not len(at):
        return flags, {}
    dropped_src, partner_src = src[at], src[partner[at]]
    flags[dropped_src - n_pinned] = False
    return flags, {inputs[d].id: inputs[p].id for d, p in zip(dropped_src.tolist(), partner_src.tolist())}
