"""Baselines the benchmark times side by side: seed 000's pack, seed 001's pure-Python DP, a regex word count.

Both are written here from the seeds' descriptions, as plain Python, so the
speedups of the library are measured against the straightforward versions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from packbench.algorithms import Item

__all__ = ["reference_pack", "pure_python_dp", "regex_word_count"]

_TOKEN = re.compile(r"[a-z0-9]+")


def _trigram_set(ws: list[str]) -> set[tuple[str, ...]]:
    if len(ws) < 3:
        return {tuple(ws)}
    return set(zip(ws, ws[1:], ws[2:]))


def _similar(a: set, b: set, threshold: float) -> bool:
    union = len(a | b)
    return (len(a & b) / union if union else 1.0) >= threshold


def _density_fill(pool: list[Item], room: int, first: list[Item]) -> list[Item]:
    picked = list(first)
    spent = sum(it.tokens for it in first)
    for it in sorted(pool, key=lambda x: (-x.score / x.tokens, -x.score, x.id)):
        if it not in picked and spent + it.tokens <= room:
            picked.append(it)
            spent += it.tokens
    return picked


def reference_pack(items: Sequence[Item], budget: int, near_dup: float = 0.8) -> list[Item]:
    """Seed 000's `pack`: all-pairs dedupe, then the better of greedy and best-single + greedy.

    Args:
        items: Pinned items and candidates.
        budget: Token budget.
        near_dup: Jaccard threshold.

    Returns:
        Pinned items, then the chosen candidates in input order.

    Raises:
        ValueError: The pinned items exceed the budget.
    """
    fixed = [it for it in items if it.pinned]
    room = budget - sum(it.tokens for it in fixed)
    if room < 0:
        raise ValueError("pinned items exceed the budget")
    seen = []
    for it in fixed:
        ws = _TOKEN.findall(it.text.lower())
        seen.append((ws, _trigram_set(ws)))
    survivors = []
    for it in sorted((x for x in items if not x.pinned), key=lambda x: (-x.score, x.id)):
        ws = _TOKEN.findall(it.text.lower())
        grams = _trigram_set(ws)
        if any(ws == other_ws or _similar(grams, other, near_dup) for other_ws, other in seen):
            continue
        survivors.append(it)
        seen.append((ws, grams))
    pool = [it for it in survivors if it.tokens <= room]
    best = _density_fill(pool, room, [])
    if pool:
        top = max(pool, key=lambda x: (x.score, -x.tokens))
        other = _density_fill(pool, room, [top])
        if sum(x.score for x in other) > sum(x.score for x in best):
            best = other
    chosen = {x.id for x in best}
    return fixed + [it for it in items if not it.pinned and it.id in chosen]


def pure_python_dp(tokens: Sequence[int], scores: Sequence[float], room: int) -> float:
    """Seed 001's value-only 0/1 knapsack DP in pure Python: best score within `room` tokens.

    The update is the seed's recurrence as written, ``max(dp[j], dp[j - tokens] + score)``
    for j from the room down to the item's tokens.
    """
    table = [0.0] * (room + 1)
    for w, s in zip(tokens, scores):
        for j in range(room, w - 1, -1):
            table[j] = max(table[j], table[j - w] + s)
    return table[room]


def regex_word_count(texts: Sequence[str]) -> int:
    """Words in `texts` by a plain regex scan: string work of the same kind as token counting."""
    return sum(len(_TOKEN.findall(t.lower())) for t in texts)
