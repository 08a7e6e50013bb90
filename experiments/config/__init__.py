"""Typed experiment configs: TOML validated by pydantic at load time.

A config names the instance sources (families or corpora) with their
parameters, the strategies with their parameter grids, budgets, dedupe
thresholds, orders, seeds, the reference for the score ratio, the utility
curve and the plots (``seeds`` may be a range: ``{ start = 0, stop = 1000 }``).
In ``seeds``, ``budgets``, ``near_dup`` and ``orders``,
and in every source/strategy/order parameter, a list sweeps (the runs are the
cartesian product) and a scalar is fixed. A parameter whose value is itself a
list (e.g. curve weights) is swept by wrapping: ``curve = [[1.0, 0.5, 0.8]]``.
A source may override ``budgets``, ``near_dup`` and ``orders`` for its runs, and
leave strategies of the config out of them (``skip_strategies = ["bnb"]``).

Example (see ``configs/*.toml``)::

    name = "demo"
    budgets = [0.25, 0.5, "natural"]  # int: tokens; float in (0, 1]: share of all tokens
    near_dup = [0.8, "off"]
    [[sources]]
    name = "pisinger"
    cls = ["uncorrelated", "strongly_correlated"]
    [[strategies]]
    name = "cpsat"
    time_limit = [0.2, 1.0]

Unknown keys, wrong types and unknown names are errors naming the key and
listing the valid choices. Registries are read when a config is validated, so
sources and strategies registered later need no change here.

The package: `values` checks the swept values (budgets, thresholds, seeds), `models` declares the
entries and the config, `loading` reads TOML and words the errors, `layers` finds the registries.
"""

from .layers import layers, registry, source_registry
from .loading import load_config, parse_config
from .models import DEFAULT_CURVE, ExperimentConfig, OrderEntry, SourceEntry, StrategyEntry
from .values import check_budgets, check_near_dup, sweep

__all__ = ["ExperimentConfig", "SourceEntry", "StrategyEntry", "OrderEntry", "load_config", "parse_config",
           "source_registry", "registry", "layers", "DEFAULT_CURVE", "sweep", "check_budgets", "check_near_dup"]
