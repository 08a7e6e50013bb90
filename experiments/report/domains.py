"""What each source is and what each strategy is for, read from their classes' declarations.

A source declares ``DOMAIN`` ("knapsack", "retrieval" or "chat"); a strategy
declares ``DOMAINS``, the source domains it is meant for. A name the
registries cannot resolve (a plug-in not installed where the report runs)
gets the base classes' defaults.
"""

from __future__ import annotations

import functools

__all__ = ["source_domain", "strategy_domains"]


@functools.lru_cache(maxsize=None)
def source_domain(name: str) -> str:
    """The declared domain of source `name`."""
    from ..corpora import CORPORA
    from ..families import FAMILIES
    from ..instances import Source

    try:  # the registries themselves, not config's (config imports the report: no import circle)
        return str(CORPORA.merged(FAMILIES, "family or corpus", group="packbench.sources").lookup(name).DOMAIN)
    except (ValueError, TypeError, ImportError):
        return Source.DOMAIN


@functools.lru_cache(maxsize=None)
def strategy_domains(name: str) -> frozenset[str]:
    """The source domains strategy `name` is meant for."""
    from packbench.algorithms import STRATEGIES
    from packbench.algorithms.strategies.base import DOMAINS

    try:
        return frozenset(STRATEGIES.lookup(name).DOMAINS)
    except (ValueError, TypeError, ImportError):
        return DOMAINS
