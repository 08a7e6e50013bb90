"""Brute-force oracles shared by the tests: the project's one enumeration oracle, also used by the claims."""

from __future__ import annotations

from packbench.experiments.claims.core import brute_force_best

__all__ = ["brute_force_best"]
