"""Peer adapters against the peers called directly, as a user's pipeline calls them, on fixed lists.

Run ``python -m packbench.experiments.bench.peer_fidelity`` (needs the peers:
``pip install -e '.[peers]' && pip install --no-deps 'tokenpack-rag>=0.1.2'``).
The lists are the embedded NQ-Open sample's first 52 questions of seed 0
(BM25 top-20, offline), at budgets 512 and 1,024 with dedupe off, so each
peer sees the whole retrieved list. For every adapter configuration the table
gives on how many lists its chosen set equals the set the direct call chooses.
The direct calls below are written from the peers' documented APIs, with the
items' own ids, texts, scores and sources, and share no code with the adapters.
A configuration that is not the peer (``haystack_litm_tokens``) is compared
with what it is (``prefix``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from packbench.algorithms import Item, pack

from ..corpora.nq_open import NQOpen

__all__ = ["fixed_lists", "CONFIGS", "fidelity", "main"]

Direct = Callable[[list[Item], int], set[str]]


def fixed_lists(n: int = 52, budgets: Sequence[int] = (512, 1024)) -> list[tuple[list[Item], int]]:
    """(all items, budget) for the sample's first `n` questions of seed 0, at each budget."""
    insts = list(NQOpen(data="sample", n_questions=n, top_k=20).instances(0))
    return [(list(inst.items), b) for inst in insts for b in budgets]


def _best_first(cands: list[Item]) -> list[Item]:
    return sorted(cands, key=lambda it: (-it.score, it.id))


def _haystack(cands: list[Item], room: int) -> set[str]:
    from haystack import Document
    from haystack.components.rankers import LostInTheMiddleRanker

    docs, owner = [], {}
    for it in _best_first(cands):
        doc = Document(content=it.text, score=it.score, meta={"source": it.source} if it.source else {})
        owner.setdefault(doc.id, it.id)  # the ranker keeps the highest-scored of equal ids: the first here
        docs.append(doc)
    out = LostInTheMiddleRanker(word_count_threshold=max(1, room)).run(documents=docs)["documents"]
    return {owner[d.id] for d in out}


def _astromesh(prefilter: bool) -> Direct:
    def run(cands: list[Item], room: int) -> set[str]:
        from astromesh_context import dedupe, policy, types

        if room < 1:
            return set()
        scored = [types.ScoredItem(item=types.ContextItem(id=it.id, content=it.text, source=it.source or "",
                                                          kind="knowledge", stability="volatile", score=it.score,
                                                          tokens=it.tokens), calibrated=it.score, final=it.score)
                  for it in cands]
        if prefilter:
            scored, _ = dedupe.dedupe(scored, threshold=0.8)
        return {s.item.id for s in policy.ScoredKnapsack().select(scored, types.Budget(total=room)).included}
    return run


def _priompt(layout: str, priority: str) -> Direct:
    def run(cands: list[Item], room: int) -> set[str]:
        import priompt
        from packbench.algorithms.peers.priompt import ensure_tiktoken_cache

        ensure_tiktoken_cache()
        if room < 1:
            return set()
        order = _best_first(cands)
        got: list[str] = []
        scopes = [priompt.Scope(priompt.UserMessage(it.text) if layout == "messages" else it.text,
                                p=it.score if priority == "score" else len(order) - r,
                                on_include=lambda i=it.id: got.append(i)) for r, it in enumerate(order)]
        try:
            priompt.render(priompt.Scope(*scopes), {"token_limit": room, "tokenizer": priompt.CL100KTokenizer})
        except TypeError:  # priompt 0.1.2 on an empty prompt
            return set()
        return set(got)
    return run


def _tokenpack(cands: list[Item], room: int) -> set[str]:
    from tokenpack import models, selectors

    scored = [models.ScoredChunk(chunk=models.Chunk(id=it.id, text=it.text, source_path=it.source or "",
                                                    document_index=k, start_page=None, end_page=None,
                                                    start_paragraph=0, end_paragraph=0, char_start=0,
                                                    char_end=len(it.text), token_count=it.tokens),
                                 value=it.score, raw_similarity=it.score, weight=it.tokens, embedding=None)
              for k, it in enumerate(cands)]
    return {s.chunk.id for s in selectors.select_chunks(scored, "knapsack", room).selected}


def _prefix(cands: list[Item], room: int) -> set[str]:
    return set(pack(cands, room, None, strategy="prefix").ids)


# (label, adapter strategy, its params, the direct call, the module it needs)
CONFIGS: tuple[tuple[str, str, dict[str, Any], Direct, str], ...] = (
    ("haystack_litm", "haystack_litm", {}, _haystack, "haystack"),
    ("haystack_litm_tokens vs prefix", "haystack_litm_tokens", {}, _prefix, "haystack"),
    ("astromesh", "astromesh", {}, _astromesh(True), "astromesh_context"),
    ("astromesh prefilter=off", "astromesh", {"prefilter": "off"}, _astromesh(False), "astromesh_context"),
    ("priompt messages", "priompt", {}, _priompt("messages", "rank"), "priompt"),
    ("priompt text", "priompt", {"layout": "text"}, _priompt("text", "rank"), "priompt"),
    ("priompt messages priority=score", "priompt", {"priority": "score"}, _priompt("messages", "score"), "priompt"),
    ("priompt text priority=score", "priompt", {"layout": "text", "priority": "score"}, _priompt("text", "score"),
     "priompt"),
    ("tokenpack knapsack", "tokenpack", {"selector": "knapsack"}, _tokenpack, "tokenpack.selectors"),
)


def fidelity(lists: Sequence[tuple[list[Item], int]], strategy: str, params: dict[str, Any],
             direct: Direct) -> tuple[int, int]:
    """(lists on which the adapter's chosen set equals the direct call's, lists tried)."""
    equal = 0
    for items, budget in lists:
        cands = [it for it in items if not it.pinned]
        room = budget - sum(it.tokens for it in items if it.pinned)
        ours = {it.id for it in pack(items, budget, None, strategy=strategy, **params) if not it.pinned}
        equal += ours == direct(cands, room)
    return equal, len(lists)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the fidelity table."""
    import importlib.util

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=52)
    args = parser.parse_args(argv)
    lists = fixed_lists(args.questions)
    print(f"{'adapter':<34} lists equal / lists tried")
    for label, strategy, params, direct, module in CONFIGS:
        if importlib.util.find_spec(module.split(".")[0]) is None:
            print(f"{label:<34} skipped: {module} not installed")
            continue
        equal, tried = fidelity(lists, strategy, params, direct)
        print(f"{label:<34} {equal} / {tried}")


if __name__ == "__main__":
    main()
