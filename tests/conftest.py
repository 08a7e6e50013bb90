"""Session set-up shared by the test modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels():
    """Compile (or load from numba's cache) `exact`'s kernels once per test process, before any test runs.

    On a cold cache the first `exact` call otherwise spends tens of seconds of its 60 s default limit
    compiling, under load all of it, and its tie-break stops at the limit (``canonical=False``): a correct,
    declared wall-clock result, but not what the tests of the canonical paths are about.
    """
    from packbench.algorithms.solvers.warm import warm_up_kernels

    warm_up_kernels()
