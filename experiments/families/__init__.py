"""Synthetic instance families, registered by name for configs."""

from __future__ import annotations

from ..instances import Source
from .conversation import Conversation
from .pisinger import Pisinger
from .retrieval import Retrieval
from .traps import Traps

__all__ = ["FAMILIES"]

FAMILIES: dict[str, type[Source]] = {
    "conversation": Conversation,
    "pisinger": Pisinger,
    "retrieval": Retrieval,
    "traps": Traps,
}
