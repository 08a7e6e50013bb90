"""Limits on what a corpus file may hold, checked before the expensive or fragile step they guard.

A record is an object holding a list of objects: 3 levels of JSON. Python's parser stops near its
recursion limit with a `RecursionError` that names neither file nor line, so a line nested deeper
than `MAX_DEPTH` is refused first. A candidate text longer than `MAX_TEXT_CHARS` characters (about
two million tokens, more than any context window) is refused before its tokens are counted.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["CorpusFileError", "MAX_DEPTH", "MAX_TEXT_CHARS", "check_depth", "check_text_size"]

MAX_DEPTH = 64
MAX_TEXT_CHARS = 8_000_000

# A bracket, or a whole JSON string (whose brackets are text, not nesting).
_BRACKETS = re.compile(r'[\[\]{}]|"(?:[^"\\]|\\.)*"')


class CorpusFileError(ValueError):
    """A corpus file whose content is not a valid corpus (the message names file, line and field)."""


def check_depth(line: str, where: str) -> None:
    """Refuse a JSON line nested deeper than `MAX_DEPTH` levels, before parsing it.

    Raises:
        CorpusFileError: Too deep (the message gives `where` and the column).
    """
    if line.count("[") + line.count("{") <= MAX_DEPTH:  # the usual case: it cannot be that deep
        return
    depth = 0
    for match in _BRACKETS.finditer(line):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise CorpusFileError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels (at column "
                                      f"{match.start() + 1}); a corpus record needs 3")
        elif token in "]}":
            depth -= 1


def check_text_size(where: str, text: Any) -> None:
    """Refuse a candidate text over `MAX_TEXT_CHARS` characters.

    Raises:
        CorpusFileError: Too long (the message gives `where` and the length).
    """
    if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
        raise CorpusFileError(f"{where}: text has {len(text):,} characters, over the limit of {MAX_TEXT_CHARS:,} "
                              f"(about two million tokens, more than any context window); split it into chunks")
