"""Compile (or load from numba's cache) every kernel `exact`'s stages may call, before anything is timed."""

from __future__ import annotations

__all__ = ["warm_up_kernels"]


def warm_up_kernels() -> None:
    """Compile the expanding-core search, the reduction, the capacity DP and the Pareto lists.

    Each first call otherwise pays numba's compile (tens of seconds) or cache load (0.5-1 s) inside
    the first measured latency or time limit.
    """
    from .core.minknap import warm_up as core_warm_up
    from .dp_kernel import warm_up as dp_warm_up
    from .pareto_kernel import warm_up as lists_warm_up
    from .reduce_kernel import warm_up as reduce_warm_up

    core_warm_up()
    reduce_warm_up()
    dp_warm_up()
    lists_warm_up()
