"""One contract per layer, run over every registered component (scikit-learn's check_estimator idea).

Strategies: tests/test_strategies.py; dedupe methods: tests/test_dedupe_contract.py. Here: what every
registry entry of every layer must satisfy, and the contracts of orders, fills and sources. Installed
plug-ins (entry points) are included through each registry's `available()`.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packbench.algorithms import DEDUPE_METHODS, FILLS, ORDERS, STRATEGIES, Item, pack
from packbench.algorithms.component import Component
from packbench.experiments.config import source_registry
from packbench.experiments.corpora import CORPORA
from packbench.experiments.families import FAMILIES
from packbench.experiments.instances import Source

LAYERS = {"strategy": STRATEGIES, "order": ORDERS, "fill": FILLS, "dedupe method": DEDUPE_METHODS,
          "family": FAMILIES, "corpus": CORPORA}
ENTRIES = [(kind, name) for kind, registry in LAYERS.items() for name in registry.available()]
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _unavailable(cls) -> str | None:
    """Why a peer adapter cannot run here (its extra is not installed), else None."""
    return cls.unavailable() if hasattr(cls, "unavailable") else None


@pytest.mark.parametrize("kind, name", ENTRIES)
def test_every_component_is_registered_under_its_name_and_validates_its_params(kind, name):
    registry = LAYERS[kind]
    cls = registry.lookup(name)
    assert issubclass(cls, registry.base) and issubclass(cls, Component)
    if name in registry:  # built in: the name is written once, on the class
        assert cls.name == name
    assert cls.describe(as_name=name).splitlines()[0].startswith(f"{name}:")
    try:
        assert set(cls().params) >= set(cls.PARAMS)  # constructible with its defaults
    except ValueError as exc:  # or it names the parameter it cannot do without (a corpus file)
        assert "needs parameter" in str(exc) and name in str(exc)
        return
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) 'no_such_param'"):
        cls(no_such_param=1)


def _items(scores):
    return [Item(f"i{k}", f"item {k} text", float(s), 1 + k % 3) for k, s in enumerate(scores)]


@pytest.mark.parametrize("name", sorted(ORDERS.available()))
@SETTINGS
@given(scores=st.lists(st.integers(0, 9), max_size=12))
def test_order_contract(name, scores):
    cls = ORDERS.lookup(name)
    if _unavailable(cls):
        pytest.skip(_unavailable(cls))
    chosen = _items(scores)
    before = list(chosen)
    out = cls().arrange(chosen)
    # A permutation of the very items given, deterministic, input untouched.
    assert sorted(map(id, out)) == sorted(map(id, chosen)) and len(out) == len(chosen)
    assert cls().arrange(list(chosen)) == out
    assert chosen == before
    # Through pack, pinned items stay first.
    pinned = Item("sys", "system", 0.0, 1, pinned=True)
    res = pack([*chosen, pinned], 10_000, None, order=name)
    assert res[0] is pinned and sorted(res.ids[1:]) == sorted(it.id for it in chosen)


@pytest.mark.parametrize("name", sorted(FILLS.available()))
@SETTINGS
@given(n=st.integers(0, 8), budget=st.integers(0, 60), words=st.integers(1, 40))
def test_fill_contract(name, n, budget, words):
    cls = FILLS.lookup(name)
    text = " ".join(f"w{k}" for k in range(words))
    items = [Item("sys", "system prompt", 0.0, 2, pinned=True)] + \
        [Item(f"c{k}", f"{k} {text}", float(10 - k), words + 1) for k in range(n)]
    plain = pack(items, max(budget, 2), None, strategy="prefix")
    filled = pack(items, max(budget, 2), None, strategy="prefix", fill=name)
    # Within budget, the chosen items kept in place, nothing repeated, a cut item named.
    assert filled.tokens <= filled.budget
    assert filled.ids[:len(plain)] == plain.ids
    assert len(set(filled.ids)) == len(filled.ids)
    added = filled.ids[len(plain):]
    assert filled.truncated is None or filled.truncated in added
    # Called directly it uses at most the room it is given.
    chosen, unchosen = list(plain[1:]), [it for it in items[1:] if it.id not in plain.ids]
    out, cut = cls().apply(chosen, unchosen, 5)
    assert out[:len(chosen)] == chosen and sum(it.tokens for it in out[len(chosen):]) <= 5
    assert cut is None or cut in {it.id for it in out[len(chosen):]}


def _write_file_corpus(path, fmt):
    records = [{"id": f"q{k}", "query": f"question {k}", "budget": 40,
                "candidates": [{"id": "sys", "text": "Answer briefly.", "score": 0, "tokens": 4, "pinned": True}] +
                [{"id": f"d{j}", "text": f"passage {j} of question {k}", "score": 10 - j, "tokens": 5 + j,
                  "dup_group": f"g{j % 2}", "has_answer": j == 0} for j in range(4)]} for k in range(3)]
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(records), path)


# Small parameters so every source's contract runs in seconds; a source not listed runs with its defaults.
QUICK = {"nq_open": {"n_questions": 3, "top_k": 5, "data": "sample"}, "python_docs": {"n_queries": 3, "top_k": 5},
         "retrieval": {"n": 20}, "pisinger": {"n": 15}, "package_docs": {"n_queries": 3, "top_k": 5}}
DATA_PARAMS = {"nq_open": {"n_questions": 3, "top_k": 5, "data": "full"}}
SOURCES = [(name, QUICK.get(name, {})) for name in sorted(source_registry().available())] + \
    [(name, params) for name, params in DATA_PARAMS.items()]


@pytest.mark.parametrize("name, params", SOURCES, ids=[f"{n}-{p.get('data', 'default')}" for n, p in SOURCES])
def test_source_contract(name, params, tmp_path):
    cls = source_registry().lookup(name)
    assert issubclass(cls, Source)
    if params.get("data") == "full" and not os.environ.get("PACKBENCH_DATA_DIR"):
        pytest.skip("set PACKBENCH_DATA_DIR to the folder holding the corpus data to check the full corpus")
    if name in ("jsonl", "parquet"):
        path = tmp_path / f"corpus.{name}"
        try:
            _write_file_corpus(path, name)
        except ImportError as exc:
            pytest.skip(f"cannot write a {name} file here: {exc}")
        params = {**params, "path": str(path)}
    source = cls(**params)
    for seed in (0, 1):
        first = list(source.instances(seed))
        again = list(cls(**params).instances(seed))
        assert first, f"{name} yields no instance for seed {seed}"
        # Deterministic for a seed: same keys, same items, same ground truth.
        assert [(i.key, i.items, i.groups, i.answers) for i in first] == \
            [(i.key, i.items, i.groups, i.answers) for i in again]
        keys = [inst.key for inst in first]
        assert len(set(keys)) == len(keys), f"{name}: repeated instance keys {keys}"
        for inst in first:
            assert all(isinstance(it, Item) for it in inst.items)
            ids = [it.id for it in inst.items]
            assert len(set(ids)) == len(ids), f"{name} {inst.key}: repeated item ids"
            candidates = {it.id for it in inst.items if not it.pinned}
            assert candidates, f"{name} {inst.key}: no candidates"
            assert inst.groups is None or set(inst.groups) <= candidates
            assert inst.answers is None or set(inst.answers) <= candidates
            json.dumps(dict(inst.meta))  # meta is JSON-serialisable (it goes into rows)
            pinned_tokens = sum(it.tokens for it in inst.items if it.pinned)
            budget = int(inst.meta.get("budget", pinned_tokens + 50))
            assert pack(inst.items, max(budget, pinned_tokens)).tokens <= max(budget, pinned_tokens)
