"""The one anchor loop shared by the indexed joins: index, probe, verify in visiting order.

Texts are visited in order (pinned anchors first, then candidates by
`rule.dedupe_order`). Each text that becomes an anchor files itself under its
index keys; a later text looks up its probe keys, and the anchors found are
verified in anchor order, so the partner reported is the first anchor that
matches, as in the pairwise definition. Which keys a text indexes or probes is
decided beforehand by the caller (prefix ranks for the exact join, LSH band
keys for MinHash); the loop only needs them to be complete: any anchor that
could match a text must share a key with it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

__all__ = ["join_anchors"]


def join_anchors(ids: Sequence[str], n_pinned: int, index_keys: Mapping[int, Sequence[int]],
                 probe_keys: Mapping[int, Sequence[int]], verify: Callable[[int, int], bool],
                 repeat_key: Callable[[int], Hashable] | None = None) -> dict[str, str]:
    """Run the join over texts ``0 .. len(ids) - 1`` (the first `n_pinned` are always anchors).

    Args:
        ids: Item id per text position.
        n_pinned: How many leading texts are pinned (anchors, never dropped).
        index_keys: Per text position (those with any), the keys it files itself under as an anchor.
        probe_keys: Per text position (those with any), the keys it looks up.
        verify: ``verify(pos, anchor_pos)``: whether text `pos` duplicates anchor text `anchor_pos`.
        repeat_key: Optional key of a text's exact content; an anchor with the same key (and index keys)
            is a match without verification, and it bounds the scan of the anchors found.

    Returns:
        Dropped id -> id of the first anchor it matched. Texts without probe keys are never dropped.
    """
    anchor_ids: list[str] = []
    anchor_pos: list[int] = []
    first_repeat: dict[Hashable, int] = {}
    index: dict[int, list[int]] = {}

    def add_anchor(pos: int) -> None:
        a = len(anchor_ids)
        anchor_ids.append(ids[pos])
        anchor_pos.append(pos)
        keys = index_keys.get(pos)
        if keys:
            # A text no later text shares a key with cannot be anyone's repeat either.
            if repeat_key is not None:
                first_repeat.setdefault(repeat_key(pos), a)
            for key in keys:
                hits = index.get(key)
                if hits is None:
                    index[key] = [a]
                else:
                    hits.append(a)

    for pos in range(n_pinned):
        add_anchor(pos)
    dropped: dict[str, str] = {}
    for pos in range(n_pinned, len(ids)):
        probe = probe_keys.get(pos)
        if probe:
            match = len(anchor_ids) if repeat_key is None else first_repeat.get(repeat_key(pos), len(anchor_ids))
            found: set[int] = set()
            for key in probe:
                hits = index.get(key)
                if hits:
                    found.update(hits)
            for a in sorted(found):
                if a >= match:
                    break
                if verify(pos, anchor_pos[a]):
                    match = a
                    break
            if match < len(anchor_ids):
                dropped[ids[pos]] = anchor_ids[match]
                continue
        add_anchor(pos)
    return dropped
