"""Synthetic instance families, registered by name for configs."""

from __future__ import annotations

from packbench.algorithms.component import Registry

from ..instances import Source
from .conversation import Conversation
from .hard import Jooken, PisingerHard
from .pisinger import Pisinger
from .retrieval import Retrieval
from .traps import Traps

__all__ = ["FAMILIES"]

FAMILIES: Registry[Source] = Registry("family", [Conversation, Jooken, Pisinger, PisingerHard, Retrieval, Traps])
