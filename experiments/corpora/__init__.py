"""Real corpora, registered by name for configs."""

from __future__ import annotations

from typing import Any

from packbench.algorithms.component import Registry

from ..instances import Source
from .jsonl import JSONLCorpus, ParquetCorpus
from .nq_open import NQOpen
from .package_docs import PackageDocs
from .python_docs import PythonDocs

__all__ = ["CORPORA", "data_notes"]

CORPORA: Registry[Source] = Registry("corpus", [NQOpen, PythonDocs, PackageDocs, JSONLCorpus, ParquetCorpus])


def data_notes(config: Any) -> dict[str, str]:
    """Per corpus of an experiment config, which data its runs read (e.g. the embedded sample and why).

    Args:
        config: An `ExperimentConfig`.

    Returns:
        Source name -> note, for the sources that read data files; a source run
        with several parameter combinations that read different data gets the
        distinct notes joined by "; ".

    A required file that is missing or corrupt gives a note saying so (its runs
    are then recorded as ``skipped`` with the same reason).
    """
    notes: dict[str, list[str]] = {}
    for source in config.sources:
        if source.name not in CORPORA:
            continue
        for params in source.grid():
            try:
                note = CORPORA[source.name](**params).data_note()
            except (OSError, ValueError) as exc:  # DataError is an OSError
                note = f"unavailable, its runs will be skipped: {exc}"
            if note and note not in notes.setdefault(source.name, []):
                notes[source.name].append(note)
    return {name: "; ".join(found) for name, found in notes.items() if found}
