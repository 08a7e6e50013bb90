"""Real corpora, registered by name for configs."""

from __future__ import annotations

from ..instances import Source
from .nq_open import NQOpen
from .python_docs import PythonDocs

__all__ = ["CORPORA"]

CORPORA: dict[str, type[Source]] = {
    "nq_open": NQOpen,
    "python_docs": PythonDocs,
}
