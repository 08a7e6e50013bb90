"""Real corpora, registered by name for configs."""

from __future__ import annotations

from packbench.algorithms.component import Registry

from ..instances import Source
from .jsonl import JSONLCorpus, ParquetCorpus
from .nq_open import NQOpen
from .python_docs import PythonDocs

__all__ = ["CORPORA"]

CORPORA: Registry[Source] = Registry("corpus", [NQOpen, PythonDocs, JSONLCorpus, ParquetCorpus])
