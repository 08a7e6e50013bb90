"""Peer adapters: the peers' own behaviours, reproduced (each test fails if the peer changes it).

Each test needs one peer's extra and is skipped, with the install line, only when it is missing.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import ORDERS, STRATEGIES, Item, pack
from packbench.algorithms.peers import PEER_ORDERS, PEER_STRATEGIES, PeerUnavailableError
from packbench.algorithms.peers.base import require
from packbench.algorithms.strategies.base import Refused
from packbench.algorithms.peers.embedding import item_vectors, text_vectors
from packbench.algorithms.tokens import count_tokens


def need(module: str, extra: str):
    line = ("pip install --no-deps tokenpack-rag" if extra == "peers-tokenpack"
            else f"pip install 'packbench[{extra}]'")
    return pytest.importorskip(module, reason=f"peer not installed: {line}")


def real(item_id: str, text: str, score: float, **kw) -> Item:
    return Item(item_id, text, score, count_tokens(text), **kw)


def ranks(packing) -> list[int]:
    """Score rank (1 = best) of each returned candidate, in context order."""
    by_score = sorted((it for it in packing if not it.pinned), key=lambda it: -it.score)
    rank = {it.id: k + 1 for k, it in enumerate(by_score)}
    return [rank[it.id] for it in packing if not it.pinned]


FOUR = [Item(f"d{k}", f"doc {k} text", float(10 - k), 3) for k in range(4)]


# --- registration and the missing-extra path ---------------------------------------------------------

def test_every_peer_is_registered_and_names_its_extra():
    for cls in PEER_STRATEGIES:
        assert STRATEGIES[cls.name] is cls and cls.may_exceed_budget
        assert cls.extra.startswith("peers") and cls.modules and cls.peer
        assert cls.install_line().startswith("pip install ")
    for cls in PEER_ORDERS:
        assert ORDERS[cls.name] is cls


def test_a_missing_peer_is_a_declared_skip_naming_the_extra(monkeypatch):
    from packbench.algorithms.peers import pyversity

    monkeypatch.setattr(pyversity.Pyversity, "modules", ("no_such_module_for_packbench",))
    why = pyversity.Pyversity.unavailable()
    assert why == ("strategy 'pyversity' needs no_such_module_for_packbench (not installed): "
                   "pip install 'packbench[peers-pyversity]'")
    with pytest.raises(Refused, match=r"strategy 'pyversity' needs .*pip install 'packbench\[peers-pyversity\]'"):
        pack(FOUR, 10, strategy="pyversity")
    with pytest.raises(PeerUnavailableError, match=r"packbench\[peers-pyversity\]"):
        require(pyversity.Pyversity, "no_such_module_for_packbench")


def test_list_marks_a_missing_peer(monkeypatch, capsys):
    from packbench.algorithms.peers import pyversity
    from packbench.cli import main

    monkeypatch.setattr(pyversity.Pyversity, "modules", ("no_such_module_for_packbench",))
    assert main(["list", "strategies"]) == 0
    out = capsys.readouterr().out
    assert "pyversity: " in out and "[skipped here: strategy 'pyversity' needs" in out


def test_peers_use_the_items_embeddings_else_the_hashing_embedder():
    a = text_vectors(["the river book", "the river book", "bananas are yellow"], dim=64)
    assert (a[0] == a[1]).all() and abs((a[0] ** 2).sum() - 1) < 1e-12 and a[0] @ a[2] < 0.5
    plain = [Item("x", "the river book", 1.0, 3), Item("y", "bananas are yellow", 1.0, 3)]
    assert (item_vectors(plain, 64) == text_vectors(["the river book", "bananas are yellow"], 64)).all()
    own = [Item("x", "t", 1.0, 1, embedding=(1.0, 0.0)), Item("y", "u", 1.0, 1, embedding=(0.0, 1.0))]
    assert item_vectors(own).tolist() == [[1.0, 0.0], [0.0, 1.0]]


# --- the contract every peer keeps (it may overflow, but then says so exactly) ----------------------

WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]


@st.composite
def instances(draw):
    n = draw(st.integers(0, 8))
    items = [Item(f"c{k}", " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))),
                  draw(st.floats(0, 20, allow_nan=False)), draw(st.integers(1, 20))) for k in range(n)]
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, n)), Item("q", "question alpha beta", 0.0, 3, pinned=True))
    return items, sum(it.tokens for it in items if it.pinned) + draw(st.integers(0, 60))


@pytest.mark.parametrize("cls", PEER_STRATEGIES, ids=lambda c: c.name)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=instances(), near_dup=st.sampled_from([None, 0.8]))
def test_every_peer_returns_its_choice_and_flags_any_overflow(cls, data, near_dup):
    if cls.unavailable():
        pytest.skip(cls.unavailable())
    items, budget = data
    pinned = [it for it in items if it.pinned]
    if cls.name == "langchain_mmr" and not pinned:
        with pytest.raises(ValueError, match="needs a query"):
            pack(items, budget, near_dup, strategy=cls.name)
        return
    res = pack(items, budget, near_dup, strategy=cls.name)
    assert list(res[:len(pinned)]) == pinned
    rest = [it for it in res if not it.pinned]
    assert len({it.id for it in rest}) == len(rest) and all(it in items for it in rest)
    assert res.over_budget == (res.tokens > budget)
    if res.over_budget:
        assert res.info["budget_violation"] is True and res.info["over_tokens"] == res.tokens - budget
    else:
        assert "over_tokens" not in res.info
    assert pack(list(items), budget, near_dup, strategy=cls.name).ids == res.ids


@pytest.mark.parametrize("cls", PEER_ORDERS, ids=lambda c: c.name)
def test_every_peer_order_is_a_permutation(cls):
    if cls.unavailable():
        pytest.skip(cls.unavailable())
    for n in range(8):
        items = [Item(f"d{k}", f"doc {k}", float(n - k), 1) for k in range(n)]
        out = pack(items, 100, None, strategy="greedy", order=cls.name)
        assert sorted(out.ids) == sorted(it.id for it in items)


# --- LangChain --------------------------------------------------------------------------------------

def test_langchain_redundant_filter_keeps_the_lower_ranked_copy():
    need("langchain_community", "peers-langchain")
    text = "The River Book was written by Jane Roe in 1901 on the banks of the Seine."
    items = [Item("gold", text, 9.0, 20), Item("copy", text + " ", 2.0, 20),
             Item("other", "Bananas are yellow when ripe and grow in bunches.", 5.0, 12)]
    res = pack(items, 100, None, strategy="langchain_redundant")
    assert "copy" in res.ids and "gold" not in res.ids and "other" in res.ids
    assert res.info["filtered"] == 1
    # packbench's own dedupe keeps the higher-scored copy.
    assert "gold" in pack(items, 100, 0.8, strategy="greedy").ids


@pytest.mark.parametrize("order", ["langchain_reorder", "llamaindex_reorder"])
def test_long_context_reorder_puts_the_best_last_for_even_n(order):
    need("langchain_community" if order.startswith("langchain") else "llama_index.core",
         "peers-langchain" if order.startswith("langchain") else "peers-llamaindex")
    assert ranks(pack(FOUR, 100, None, strategy="greedy", order=order)) == [2, 4, 3, 1]
    assert ranks(pack(FOUR, 100, None, strategy="greedy", order="lost_in_middle")) == [1, 3, 4, 2]
    five = FOUR + [Item("d4", "doc 4 text", 6.0, 3)]
    assert ranks(pack(five, 100, None, strategy="greedy", order=order)) == [1, 3, 5, 4, 2]


def test_langchain_trim_keeps_the_last_messages_that_fit_and_the_estimate_can_overflow():
    need("langchain_core", "peers-langchain")
    items = [Item(f"m{k}", f"message number {k}", float(k), 10) for k in range(6)]
    assert pack(items, 35, None, strategy="langchain_trim").ids == ["m3", "m4", "m5"]
    assert pack(items, 35, None, strategy="langchain_trim", keep="first").ids == ["m0", "m1", "m2"]
    # LangChain's approximate counter (chars / 4) undercounts text that is dense in tokens.
    dense = [real(f"n{k}", "€" * 40 + f" {k}", float(k)) for k in range(4)]
    res = pack(dense, 60, None, strategy="langchain_trim", counter="approximate")
    assert res.over_budget and res.tokens > 60 and res.info["over_tokens"] == res.tokens - 60


def test_langchain_mmr_follows_the_query_not_the_scores():
    need("langchain_core", "peers-langchain")
    q = Item("q", "who wrote the river book", 0.0, 6, pinned=True)
    on_topic = Item("a", "the river book was written by jane roe", 1.0, 10)
    off_topic = Item("b", "bananas are yellow when ripe", 9.0, 10)
    res = pack([q, off_topic, on_topic], 16, None, strategy="langchain_mmr", lambda_mult=1.0)
    assert res.ids == ["q", "a"]


# --- LlamaIndex -------------------------------------------------------------------------------------

def test_llamaindex_memory_returns_the_last_message_even_over_the_limit():
    need("llama_index.core", "peers-llamaindex")
    long_last = [real("m0000-user", "short question", 1.0), real("m0001-assistant", "word " * 80, 1.0)]
    res = pack(long_last, 30, None, strategy="llamaindex_memory")
    assert res.ids == ["m0001-assistant"] and res.over_budget and res.info["over_tokens"] == res.tokens - 30
    chat = [real(f"m{k:04d}-{'user' if k % 2 == 0 else 'assistant'}", f"turn {k} about refunds", 1.0)
            for k in range(6)]
    res = pack(chat, 20, None, strategy="llamaindex_memory")
    # The most recent turns that fit, never starting on an assistant message.
    assert res.ids and res.ids[0].endswith("user") and res.ids[-1] == chat[-1].id and not res.over_budget


# --- Haystack ---------------------------------------------------------------------------------------

def test_haystack_word_threshold_overflows_and_keeps_the_crossing_document():
    need("haystack", "peers-haystack")
    # Long words: many tokens per word, so a word threshold lets far more tokens through.
    docs = [real(f"d{k}", " ".join(["antidisestablishmentarianism"] * 6) + f" {k}", float(10 - k)) for k in range(6)]
    room = 3 * docs[0].tokens  # room for three documents by tokens, about twenty by words
    res = pack(docs, room, None, strategy="haystack_litm")
    assert res.over_budget and res.tokens > room and res.info["over_tokens"] == res.tokens - room
    assert sorted(res.ids) == [d.id for d in docs]  # 42 words never reach the threshold: everything kept
    # With a threshold it does reach, the document that crosses it is kept.
    words = [Item(f"w{k}", f"one two three four {k}", float(10 - k), 5) for k in range(6)]
    crossing = pack(words, 12, None, strategy="haystack_litm")
    assert sorted(crossing.ids) == ["w0", "w1", "w2"] and crossing.tokens == 15 and crossing.over_budget
    exact = pack(words, 12, None, strategy="haystack_litm_tokens")
    assert sorted(exact.ids) == ["w0", "w1"] and not exact.over_budget
    tokens_exact = pack(docs, room, None, strategy="haystack_litm_tokens")
    assert sorted(tokens_exact.ids) == ["d0", "d1", "d2"] and tokens_exact.tokens <= room


def test_haystack_removes_repeated_documents_as_in_a_users_pipeline():
    need("haystack", "peers-haystack")
    text = "the river book was written by jane roe in 1901"
    items = [Item("a", text, 9.0, 10, source="x"), Item("a2", text, 8.0, 10, source="x"),
             Item("a3", text, 7.0, 10, source="y"), Item("b", "bananas are yellow when ripe", 5.0, 10)]
    res = pack(items, 100, None, strategy="haystack_litm")
    # Same text and source: one document id, the higher-scored kept; another source is another document.
    assert sorted(res.ids) == ["a", "a3", "b"] and res.info["peer_removed"] == 1


@pytest.mark.parametrize("n", range(1, 9))
def test_haystack_reorder_agrees_with_lost_in_middle(n):
    need("haystack", "peers-haystack")
    items = [Item(f"d{k}", f"doc {k}", float(20 - k), 1) for k in range(n)]
    assert (pack(items, 100, None, strategy="greedy", order="haystack_reorder").ids
            == pack(items, 100, None, strategy="greedy", order="lost_in_middle").ids)


# --- priompt ----------------------------------------------------------------------------------------

def test_priompt_stops_short_of_a_fitting_prefix():
    need("priompt", "peers-priompt")
    docs = [real(f"d{k}", f"passage {k} " + "about rivers " * 5, float(10 - k)) for k in range(6)]
    room = 4 * docs[0].tokens  # four documents fit by their own token counts
    res = pack(docs, room, None, strategy="priompt")
    # Each message's chat framing counts too, so priompt stops at three although the fourth fits.
    assert res.ids == ["d0", "d1", "d2"] and res.tokens + docs[3].tokens <= room
    # As plain concatenated text priompt's count is lower than the items' sum, and it goes over.
    text = pack(docs, room - 5, None, strategy="priompt", layout="text")
    assert text.ids == ["d0", "d1", "d2", "d3"] and text.over_budget and text.info["over_tokens"] == 5


def test_priompt_score_priorities_include_or_eject_tied_scopes_together():
    need("priompt", "peers-priompt")
    docs = [real("d0", "passage zero about rivers and lakes", 5.0), real("d1", "passage one about rivers and seas", 4.0),
            real("d2", "passage two about rivers and seas", 4.0)]
    room = docs[0].tokens + docs[1].tokens + 2  # d0 and one of the tied pair fit as text
    assert pack(docs, room, None, strategy="priompt", layout="text").ids == ["d0", "d1"]
    assert pack(docs, room, None, strategy="priompt", layout="text", priority="score").ids == ["d0"]


def test_priompt_returns_nothing_when_nothing_fits_and_keeps_its_error():
    need("priompt", "peers-priompt")
    res = pack([Item("a", "alpha", 1.0, 1)], 1, None, strategy="priompt")
    assert res.ids == [] and "TypeError" in res.info["peer_error"]


def test_priompt_works_offline_through_a_local_tiktoken_cache(tmp_path, monkeypatch):
    need("priompt", "peers-priompt")
    from packbench.algorithms.peers.priompt import ensure_tiktoken_cache

    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = ensure_tiktoken_cache("cl100k_base")
    assert path is not None and path.parent == tmp_path / "packbench" / "tiktoken" and path.stat().st_size > 10**6
    import os
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(path.parent)


# --- fidelity: the adapter's choice equals the peer called directly, list by list ---------------------

@pytest.fixture(scope="module")
def fidelity_lists():
    from packbench.experiments.bench.peer_fidelity import fixed_lists

    return fixed_lists(26)


def _config_ids():
    from packbench.experiments.bench.peer_fidelity import CONFIGS

    return [c[0] for c in CONFIGS]


@pytest.mark.parametrize("label", _config_ids())
def test_every_adapter_chooses_what_the_peer_called_directly_chooses(label, fidelity_lists):
    from packbench.experiments.bench.peer_fidelity import CONFIGS, fidelity

    _, strategy, params, direct, module = next(c for c in CONFIGS if c[0] == label)
    need(module, "peers-tokenpack" if module.startswith("tokenpack") else "peers")
    equal, tried = fidelity(fidelity_lists, strategy, params, direct)
    assert (equal, tried) == (len(fidelity_lists), len(fidelity_lists))


# --- tokenpack-rag ----------------------------------------------------------------------------------

def _random_items(rng: random.Random, n: int) -> list[Item]:
    return [Item(f"c{k}", f"chunk {k}", round(rng.uniform(0.1, 10), 6), rng.randint(1, 40)) for k in range(n)]


def test_tokenpack_knapsack_equals_packbench_exact_without_dedupe():
    need("tokenpack.selectors", "peers-tokenpack")
    rng = random.Random(12)
    for _ in range(30):
        items = _random_items(rng, rng.randint(1, 14))
        budget = rng.randint(0, 120)
        ours = pack(items, budget, None, strategy="exact_dp")
        theirs = pack(items, budget, None, strategy="tokenpack", selector="knapsack")
        assert abs(theirs.score - ours.score) < 1e-9 and sorted(theirs.ids) == sorted(ours.ids)


@pytest.mark.parametrize("strategy,params", [("tokenpack", {"selector": "budget-top-k"}),
                                             ("astromesh", {"prefilter": "off"})])
def test_score_order_fills_pick_what_a_score_order_fill_picks(strategy, params):
    need("tokenpack.selectors" if strategy == "tokenpack" else "astromesh_context",
         "peers-tokenpack" if strategy == "tokenpack" else "peers-astromesh")
    rng = random.Random(5)
    for _ in range(30):
        items = _random_items(rng, rng.randint(1, 14))
        budget = rng.randint(0, 120)
        room, fill = budget, []
        for it in sorted(items, key=lambda it: (-it.score, it.id)):
            if it.tokens <= room:
                fill.append(it.id)
                room -= it.tokens
        assert sorted(pack(items, budget, None, strategy=strategy, **params).ids) == sorted(fill)


# --- astromesh-context ------------------------------------------------------------------------------

def test_astromesh_containment_drops_a_fragment_that_jaccard_keeps():
    need("astromesh_context", "peers-astromesh")
    whole = ("the river book was written by jane roe in 1901 and it sold well in france "
             "where critics praised its long descriptions of the seine at night")
    fragment = "the river book was written by jane roe in 1901 and it sold well in france"
    items = [Item("whole", whole, 5.0, 30), Item("fragment", fragment, 4.0, 16)]
    assert sorted(pack(items, 100, 0.8, strategy="greedy").ids) == ["fragment", "whole"]
    res = pack(items, 100, None, strategy="astromesh")
    assert res.ids == ["whole"] and res.info["deduped"] == 1


# --- pyversity --------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["mmr", "dpp"])
def test_pyversity_diversifies_away_from_a_duplicate(method):
    need("pyversity", "peers-pyversity")
    text = "the river book was written by jane roe in 1901"
    items = [Item("a", text, 9.0, 10), Item("a2", text + " indeed", 8.9, 10),
             Item("b", "bananas are yellow when ripe and grow in bunches", 5.0, 10)]
    res = pack(items, 20, None, strategy="pyversity", method=method, diversity=0.7)
    assert sorted(res.ids) == ["a", "b"]
    # With no diversity it is the score order.
    assert sorted(pack(items, 20, None, strategy="pyversity", method="mmr", diversity=0.0).ids) == ["a", "a2"]


# --- through the harness: the overflow is a row fact and a summary column ----------------------------

def test_the_runner_records_a_peer_overflow_and_the_summary_counts_it(tmp_path, monkeypatch):
    need("haystack", "peers-haystack")
    import csv
    import json

    from packbench.experiments.config import parse_config
    from packbench.experiments.runner import run_experiment

    # Five words, ten tokens each document: the word threshold lets twice the budget through.
    record = {"id": "q", "budget": 40, "candidates": [
        {"id": f"d{k}", "text": f"one two three four {k}", "score": 10 - k, "tokens": 10} for k in range(8)]}
    (tmp_path / "c.jsonl").write_text(json.dumps(record) + "\n")
    monkeypatch.chdir(tmp_path)
    config = parse_config({"name": "overflow", "seeds": [0], "budgets": ["natural"], "near_dup": ["off"],
                           "reference": "exact_dp", "sources": [{"name": "jsonl", "path": "c.jsonl"}],
                           "strategies": [{"name": "haystack_litm"}, {"name": "haystack_litm_tokens"}]})
    run_experiment(config, tmp_path / "out", progress=False)
    rows = {r["strategy"]: r for r in map(json.loads, (tmp_path / "out" / "runs.jsonl").read_text().splitlines())}
    over, exact = rows["haystack_litm"], rows["haystack_litm_tokens"]
    assert over["status"] == "ok" and over["budget_violation"] is True and over["over_tokens"] == 40
    assert len(over["chosen_ids"]) == 8 and over["tokens"] == 80  # what the peer chose, not cut
    assert exact["budget_violation"] is False and exact["over_tokens"] == 0 and exact["tokens"] == 40
    summary = {r["strategy"]: r for r in csv.DictReader((tmp_path / "out" / "summary.csv").open())}
    assert float(summary["haystack_litm"]["budget_violations"]) == 1
    assert float(summary["haystack_litm"]["over_tokens_max"]) == 40
    assert float(summary["haystack_litm_tokens"]["budget_violations"]) == 0
    # The overflowing peer scores higher, but the report never recommends a packing over the budget.
    assert float(summary["haystack_litm"]["ratio_mean"]) > float(summary["haystack_litm_tokens"]["ratio_mean"])
    text = (tmp_path / "out" / "summary.md").read_text()
    # (One instance is too few to pick anything; the overflowing peer is left out of the comparison itself.)
    assert "haystack_litm (over the budget in 1 runs)" in text and "**haystack_litm**" not in text


def test_the_peers_config_runs_every_peer_next_to_packbench():
    from packbench.experiments.config import load_config
    from packbench.experiments.provenance import REPO_ROOT

    cfg = load_config(REPO_ROOT / "configs" / "peers.toml")
    names = {s.name for s in cfg.strategies}
    assert {cls.name for cls in PEER_STRATEGIES} <= names and {"exact", "greedy_best_single"} <= names
    orders = {o.name for s in cfg.sources for o in s.orders or ()}
    assert {cls.name for cls in PEER_ORDERS} | {"lost_in_middle"} <= orders
    assert {s.name for s in cfg.sources} == {"traps", "nq_open", "conversation", "retrieval"}
