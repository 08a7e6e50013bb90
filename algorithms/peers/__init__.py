"""Peers: other projects' packers and orders as packbench strategies and orders, one module per peer.

Every adapter is always registered, whether or not its peer is installed, so a config naming it
is valid on any machine: where the peer's extra is missing, the strategy's `skip` gives the reason
(with the ``pip install 'packbench[...]'`` line) and the run is a ``skipped`` row; `packbench list`
marks it the same way. No adapter imports its peer before it is used.

Extras: ``peers`` (all of them), or one of ``peers-langchain``, ``peers-llamaindex``,
``peers-haystack``, ``peers-pyversity``, ``peers-astromesh``, ``peers-priompt``;
tokenpack-rag is installed with ``pip install --no-deps tokenpack-rag`` (see `tokenpack`).
"""

from __future__ import annotations

from .astromesh import Astromesh
from .base import PeerOrder, PeerStrategy, PeerUnavailableError
from .haystack import HaystackLITM, HaystackLITMTokens, HaystackReorder
from .langchain import LangChainMMR, LangChainRedundantFilter, LangChainReorder, LangChainTrim
from .llamaindex import LlamaIndexMemory, LlamaIndexReorder
from .priompt import Priompt
from .pyversity import Pyversity
from .tokenpack import TokenPack

__all__ = ["PEER_STRATEGIES", "PEER_ORDERS", "PeerStrategy", "PeerOrder", "PeerUnavailableError"]

PEER_STRATEGIES: tuple[type[PeerStrategy], ...] = (
    LangChainTrim, LangChainRedundantFilter, LangChainMMR, LlamaIndexMemory, HaystackLITM, HaystackLITMTokens,
    Pyversity, TokenPack, Astromesh, Priompt,
)

PEER_ORDERS: tuple[type[PeerOrder], ...] = (LangChainReorder, LlamaIndexReorder, HaystackReorder)
