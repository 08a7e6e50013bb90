"""The registries of the packing library, built from the classes (each name is written once, on its class).

Adding a strategy is one module under `strategies/` plus one entry in the list below. Peer adapters
(`peers/`) are always registered; where a peer is not installed they declare `skip` with the extra.
Components from outside need no entry here: they are named by import path or registered by an
installed distribution in the layer's entry-point group (see `plugins` and docs/extending.md).

`LAYERS` declares each layer of the library once (registry, config key, whether the main config must
run every built-in); `packbench.experiments.config.layers()` adds the sources.
"""

from __future__ import annotations

from .component import Layer, Registry
from .fill import Fill
from .orders import CurveOrder, LostInMiddle, Order, Original, ScoreDesc
from .peers import PEER_ORDERS, PEER_STRATEGIES
from .strategies.base import Strategy
from .strategies.best_single import GreedyBestSingle
from .strategies.bnb import BranchAndBound
from .strategies.cpsat import CPSAT
from .strategies.dpp import DPP
from .strategies.exact import Exact
from .strategies.exact_dp import ExactDP
from .strategies.fptas import FPTAS
from .strategies.function import wrap_function
from .strategies.greedy import Greedy
from .strategies.mmr import MMR
from .strategies.prefix import Prefix
from .strategies.recency import Recency
from .strategies.submodular import Submodular
from .truncate import Truncate

__all__ = ["STRATEGIES", "ORDERS", "FILLS", "LAYERS"]

STRATEGIES: Registry[Strategy] = Registry("strategy", [
    Greedy, GreedyBestSingle, Prefix, Recency, ExactDP, Exact, CPSAT, BranchAndBound, FPTAS, MMR, Submodular, DPP,
    *PEER_STRATEGIES,
], group="packbench.strategies", adapt=wrap_function)

ORDERS: Registry[Order] = Registry("order", [Original, ScoreDesc, LostInMiddle, CurveOrder, *PEER_ORDERS],
                                   group="packbench.orders")

FILLS: Registry[Fill] = Registry("fill", [Truncate], group="packbench.fills")



def _dedupe_methods() -> Registry:
    from .dedupe import DEDUPE_METHODS
    return DEDUPE_METHODS


def _embedders() -> Registry:
    # Lazily: the embedders pull in numpy vectors and the cache, which packing without them never needs.
    from .embed import EMBEDDERS
    return EMBEDDERS


LAYERS: tuple[Layer, ...] = (
    Layer("strategy", lambda: STRATEGIES, "strategies", exercised=True),
    Layer("order", lambda: ORDERS, "orders", exercised=True),
    Layer("fill", lambda: FILLS, "fill"),
    Layer("dedupe method", _dedupe_methods, "dedupe"),
    Layer("embedder", _embedders, None),
)
