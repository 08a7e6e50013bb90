"""Chat-history packing: keep the newest messages that fit, tool exchanges whole."""

from __future__ import annotations

from types import MappingProxyType

from ..chat import TOOL_GROUP_PREFIX
from ..items import Problem, Selection
from ..params import Param, boolean, one_of
from .base import Strategy
from .greedy import bounded_selection

__all__ = ["Recency"]


def _groups(problem: Problem, group_by: str) -> list[list[int]]:
    """Candidate indices grouped by their group key (no key = alone), newest group first.

    The key is `Item.source` when it is a chat tool-exchange key (``tools@...``),
    or any `Item.source` with ``group_by="source"``. A group's age is that of its
    newest member; candidates are in input (chronological) order.
    """
    by_key: dict[str, list[int]] = {}
    groups: list[list[int]] = []
    for k, item in enumerate(problem.candidates):
        key = item.source
        if key is not None and group_by == "tools" and not key.startswith(TOOL_GROUP_PREFIX):
            key = None
        if key is None:
            groups.append([k])
        elif key in by_key:
            by_key[key].append(k)
        else:
            by_key[key] = [k]
            groups.append(by_key[key])
    return sorted(groups, key=lambda g: -g[-1])


class Recency(Strategy):
    """Keep the newest messages that fit; a tool call and its results are kept or dropped together.

    Items follow the convention of `algorithms.chat.items_from_messages`: input
    order is chronological, system messages and the latest user turn are pinned
    (so `pack` never drops them), and a tool call and its results share one
    `source` group key (``tools@...``; other sources, such as a retrieved
    chunk's document, do not group unless ``group_by="source"``). Groups are
    visited newest first (a group is as new as
    its newest message). With ``contiguous=True`` the walk stops at the first
    group that does not fit, so the kept history has no holes, as a
    token-budget chat loop that drops the oldest turns would; with False it
    skips that group and keeps looking at older ones.

    Scores are ignored: the selection is reported with the Dantzig bound of the
    scores only so that score ratios can be compared with the other strategies.
    """

    name = "recency"
    DOMAINS = frozenset({"chat"})  # a chat-history policy: on other sources its wins are input order
    PARAMS = MappingProxyType({
        "contiguous": Param(True, boolean(), "stop at the first message group that does not fit"),
        "group_by": Param("tools", one_of("tools", "source"),
                          "keep together items sharing a tool-exchange key ('tools') or any source ('source')"),
    })

    def select(self, problem: Problem) -> Selection:
        chosen: list[int] = []
        used = 0
        for group in _groups(problem, self.params["group_by"]):
            cost = sum(problem.candidates[k].tokens for k in group)
            if used + cost <= problem.room:
                chosen.extend(group)
                used += cost
            elif self.params["contiguous"]:
                break
        return bounded_selection(problem, sorted(chosen))
