"""Contract checks for packbench components, to run in packbench's tests and in a plug-in's own.

In the spirit of scikit-learn's ``check_estimator``: each function checks one component against its
layer's contract (what `pack` and the experiment runner rely on; never a built-in's own semantics) and
raises `AssertionError` naming the component and the rule it breaks::

    from packbench.testing import check_strategy
    check_strategy("mypkg.strategies:TopFrac")

`parametrize_with_checks` makes one pytest test per (component, check) over every registered and
installed (entry-point) component of the layers asked for, plus the import paths given::

    from packbench.testing import parametrize_with_checks

    @parametrize_with_checks(strategies=["mypkg.strategies:TopFrac"], builtins=False)
    def test_packbench_contract(check):
        check()

A component declares the checks it is known to fail in ``expected_failed_checks`` (check name ->
reason); they are skipped by the ``check_*`` functions and marked ``xfail(strict=True)`` by the helper.
"""

from __future__ import annotations

from typing import Any

from .core import Check, run_checks
from .experiments import SourceParams, metric_checks, source_checks
from .library import dedupe_checks, fill_checks, order_checks, strategy_checks
from .parametrize import component_checks, parametrize_with_checks

__all__ = ["Check", "check_strategy", "check_order", "check_fill", "check_dedupe", "check_source", "check_metric",
           "parametrize_with_checks", "component_checks"]


def check_strategy(strategy: Any) -> list[Check]:
    """Check a strategy (a name, an import path, a `Strategy` subclass or a function).

    Returns:
        The checks skipped because the strategy declares them as expected failures.

    Raises:
        AssertionError: The first rule it breaks, named with the strategy.
    """
    return run_checks(strategy_checks(strategy))


def check_order(order: Any) -> list[Check]:
    """Check an order (a name, an import path or an `Order` subclass); as `check_strategy`."""
    return run_checks(order_checks(order))


def check_fill(fill: Any) -> list[Check]:
    """Check a fill (a name, an import path or a `Fill` subclass); as `check_strategy`."""
    return run_checks(fill_checks(fill))


def check_dedupe(method: Any) -> list[Check]:
    """Check a dedupe method (a name, an import path or a `DedupeMethod` subclass); as `check_strategy`."""
    return run_checks(dedupe_checks(method))


def check_source(source: Any, params: SourceParams = None) -> list[Check]:
    """Check a family or corpus built with `params`; as `check_strategy`.

    Args:
        source: A name, an import path or a `Source` subclass.
        params: Its parameters (small ones keep the check quick), or a function of a fresh temporary
            folder returning them (for a source that reads a file it writes there).
    """
    return run_checks(source_checks(source, params))


def check_metric(metric: Any) -> list[Check]:
    """Check a metric (a `Metric`, its name in `ALL_METRICS`, or an import path naming one); as `check_strategy`."""
    return run_checks(metric_checks(metric))
