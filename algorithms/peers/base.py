"""What every peer adapter shares: lazy import with the extra's name, the budget fill, the overflow record.

A peer adapter is a thin `Strategy` (or `Order`) around another project's packing code. It never
imports that project at module import time: `require` imports it on first use and, when it is not
installed, raises `PeerUnavailableError` naming the pip extra, and `skip` returns the same message so
the runner records a ``skipped`` row instead of an error. Adapters whose peer can choose more tokens
than the room set ``may_exceed_budget``: `pack` then returns what the peer chose and marks the
overflow (``over_budget``, ``info["budget_violation"]``, ``info["over_tokens"]``) instead of raising.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from ..items import Problem, Selection
from ..orders.base import Order
from ..strategies.base import Strategy

__all__ = ["PeerUnavailableError", "PeerStrategy", "PeerOrder", "require", "missing", "fill_in_order",
           "score_rank", "peer_selection"]


class PeerUnavailableError(ImportError):
    """A peer's package is not installed; the message names the extra that installs it."""


def _message(owner: Any, modules: Sequence[str]) -> str:
    return f"{owner.kind} {owner.name!r} needs {', '.join(modules)} (not installed): {owner.install_line()}"


def missing(modules: Sequence[str]) -> list[str]:
    """Which of `modules` cannot be imported (found by spec, without importing them)."""
    out = []
    for mod in modules:
        try:
            if importlib.util.find_spec(mod) is None:
                out.append(mod)
        except (ImportError, ValueError):
            out.append(mod)
    return out


def require(owner: Any, module: str) -> Any:
    """Import `module` for the adapter `owner`, or raise `PeerUnavailableError` naming its extra."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise PeerUnavailableError(_message(owner, owner.modules)) from exc


class _Peer:
    """Mixin: the peer's import names and the extra that installs them."""

    extra: ClassVar[str] = "peers"
    modules: ClassVar[tuple[str, ...]] = ()
    peer: ClassVar[str] = ""  # distribution name, for `packbench list` and the docs
    install: ClassVar[str] = ""  # the install line when it is not the extra (e.g. a --no-deps install)

    @classmethod
    def install_line(cls) -> str:
        """The command that installs this adapter's peer."""
        return cls.install or f"pip install 'packbench[{cls.extra}]'"

    @classmethod
    def unavailable(cls) -> str | None:
        """Why this adapter cannot run here (its peer is not installed), or None."""
        gone = missing(cls.modules)
        return _message(cls, gone) if gone else None


class PeerStrategy(_Peer, Strategy):
    """Base class of peer strategies: `skip` when the peer is missing; overflow is reported, not raised."""

    may_exceed_budget: ClassVar[bool] = True

    def skip(self, problem: Problem) -> str | None:
        return self.unavailable()


class PeerOrder(_Peer, Order):
    """Base class of peer orders (an order cannot change the tokens, so there is nothing to overflow)."""


def score_rank(problem: Problem) -> list[int]:
    """Candidate positions best first (score descending, ties by id): the retriever's ranking peers expect."""
    cands = problem.candidates
    return sorted(range(len(cands)), key=lambda k: (-cands[k].score, cands[k].id))


def fill_in_order(problem: Problem, order: Iterable[int]) -> list[int]:
    """Take each candidate, in the peer's `order`, that still fits the room (a later, smaller one may)."""
    room, picked = problem.room, []
    for k in order:
        tokens = problem.candidates[k].tokens
        if tokens <= room:
            picked.append(k)
            room -= tokens
    return picked


def peer_selection(problem: Problem, indices: Iterable[int], **info: Any) -> Selection:
    """The peer's choice as a `Selection`, with the tokens it uses against the room in ``info``.

    Nothing is dropped or cut here: when the peer went over the room, the harness sees exactly
    what it chose, and `pack` marks the overflow.
    """
    picked = tuple(dict.fromkeys(int(k) for k in indices))
    used = sum(problem.candidates[k].tokens for k in picked)
    return Selection(picked, optimal=None, info={**info, "peer_tokens": used, "room": problem.room})
