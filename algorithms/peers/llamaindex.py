"""LlamaIndex: `ChatMemoryBuffer` as a strategy and `LongContextReorder` as an order.

Extra: ``pip install 'packbench[peers-llamaindex]'`` (llama-index-core).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from ..items import Item, Problem, Selection
from ..params import Param
from ..tokens import DEFAULT_ENCODING, check_encoding_param, get_encoding
from .base import PeerOrder, PeerStrategy, peer_selection, require

__all__ = ["LlamaIndexMemory", "LlamaIndexReorder"]

_EXTRA = "peers-llamaindex"
_ROLES = ("user", "assistant", "tool", "system")


def _role(item: Item) -> str:
    """The chat role packbench's chat items carry in their id suffix (``m0003-assistant``), else user."""
    suffix = item.id.rsplit("-", 1)[-1]
    return suffix if suffix in _ROLES else "user"


class LlamaIndexMemory(PeerStrategy):
    """LlamaIndex `ChatMemoryBuffer.get`: the most recent candidates whose joined text fits the token limit.

    The candidates, in input order, are the chat history (role from packbench's chat item ids, else
    user); `token_limit` is the room and `tokenizer_fn` the named tiktoken encoding. The buffer
    counts the tokens of the messages' contents joined by spaces, not per item, and never starts
    the history on an assistant or tool message. Budget, as it ships: when even the last message
    alone is over the limit it returns that message anyway ("so the LLM raises the error"); the
    adapter records that overflow and, with a room of 0 (which the buffer refuses), returns nothing.

    Params:
        encoding: tiktoken encoding or model name for `tokenizer_fn`.
    """

    name = "llamaindex_memory"
    DOMAINS = frozenset({"chat"})
    peer = "llama-index-core"
    extra, modules = _EXTRA, ("llama_index.core",)
    PARAMS = MappingProxyType({
        "encoding": Param(DEFAULT_ENCODING, check_encoding_param, "tokenizer_fn's tiktoken encoding"),
    })

    def select(self, problem: Problem) -> Selection:
        llms = require(self, "llama_index.core.llms")
        memory = require(self, "llama_index.core.memory")
        if problem.room < 1 or not problem.candidates:
            return peer_selection(problem, ())
        history = [llms.ChatMessage(role=_role(it), content=it.text, additional_kwargs={"pos": k})
                   for k, it in enumerate(problem.candidates)]
        enc = get_encoding(self.params["encoding"])
        buffer = memory.ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=problem.room,
                                                       tokenizer_fn=enc.encode_ordinary)
        return peer_selection(problem, (m.additional_kwargs["pos"] for m in buffer.get()))


class LlamaIndexReorder(PeerOrder):
    """LlamaIndex `LongContextReorder` postprocessor on the chosen items' scores.

    As it ships: it sorts ascending by score and alternates front/back, so for an even count the
    best item ends up *last* (n = 4: score ranks 2, 4, 3, 1), like LangChain's and unlike
    packbench's ``lost_in_middle``. Equal scores keep the chosen items' (input) order in its sort.
    """

    name = "llamaindex_reorder"
    peer = "llama-index-core"
    extra, modules = _EXTRA, ("llama_index.core",)

    def arrange(self, chosen: Sequence[Item]) -> list[Item]:
        schema = require(self, "llama_index.core.schema")
        post = require(self, "llama_index.core.postprocessor")
        nodes = [schema.NodeWithScore(node=schema.TextNode(text=it.text, id_=str(k)), score=it.score)
                 for k, it in enumerate(chosen)]
        return [chosen[int(n.node.id_)] for n in post.LongContextReorder().postprocess_nodes(nodes)]
