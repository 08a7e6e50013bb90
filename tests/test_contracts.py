"""Every component of every layer against its layer's contract: `packbench.testing`, as a plug-in runs it.

One test per (component, check), over the registered and installed (entry-point) components and the
components from outside in tests/plugins.py named by import path, so the plug-in route keeps the
contract too. Peer adapters keep their peer's behaviour (some go over the budget, by design, and say
so): their strategies get the declaration check here and their contract in tests/test_peers.py.
"""

from __future__ import annotations

import json
import os

import pytest

from packbench.algorithms.peers import PEER_STRATEGIES
from packbench.testing import check_dedupe, check_strategy, component_checks, parametrize_with_checks

PEER_NAMES = [cls.name for cls in PEER_STRATEGIES]
# Outside components named by import path: a class and a plain function (tests/plugins.py).
OUTSIDE = ["tests.plugins:TopFracGreedy", "tests.plugins:by_score"]


def _file_corpus(fmt):
    """Parameters of a jsonl or parquet corpus: a small file written into the check's temporary folder."""
    def params(folder):
        records = [{"id": f"q{k}", "query": f"question {k}", "budget": 40,
                    "candidates": [{"id": "sys", "text": "Answer briefly.", "score": 0, "tokens": 4, "pinned": True}] +
                    [{"id": f"d{j}", "text": f"passage {j} of question {k}", "score": 10 - j, "tokens": 5 + j,
                      "dup_group": f"g{j % 2}", "has_answer": j == 0} for j in range(4)]} for k in range(3)]
        path = folder / f"corpus.{fmt}"
        if fmt == "jsonl":
            path.write_text("".join(json.dumps(r) + "\n" for r in records))
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.Table.from_pylist(records), path)
        return {"path": str(path)}
    return params


# Small parameters so every source's checks run in seconds; a source not listed runs with its defaults.
SOURCE_PARAMS = {"nq_open": {"n_questions": 3, "top_k": 5, "data": "sample"},
                 "python_docs": {"n_queries": 3, "top_k": 5}, "retrieval": {"n": 20}, "pisinger": {"n": 15},
                 "package_docs": {"n_queries": 3, "top_k": 5},
                 "jsonl": _file_corpus("jsonl"), "parquet": _file_corpus("parquet")}


@parametrize_with_checks(strategies=OUTSIDE, exclude=PEER_NAMES, source_params=SOURCE_PARAMS)
def test_component_keeps_its_layers_contract(check):
    check()


@pytest.mark.parametrize("check", [c for c in component_checks(strategies=PEER_NAMES, builtins=False)
                                   if c.name == "check_strategy_declaration"], ids=lambda c: c.id)
def test_peer_strategy_is_declared_like_any_component(check):
    check()


@pytest.mark.skipif(not os.environ.get("PACKBENCH_DATA_DIR"),
                    reason="set PACKBENCH_DATA_DIR to the folder holding the corpus data to check the full corpus")
@parametrize_with_checks(builtins=False, sources=["nq_open"],
                         source_params={"nq_open": {"n_questions": 3, "top_k": 5, "data": "full"}})
def test_full_corpus_keeps_the_source_contract(check):
    check()


def test_the_checks_fail_a_component_that_breaks_the_contract():
    # A strategy whose answer changes from call to call, and a dedupe that keeps identical copies.
    with pytest.raises(AssertionError, match="two calls on the same input chose"):
        check_strategy("tests.plugins:Alternating")
    with pytest.raises(AssertionError, match="identical copy"):
        check_dedupe("tests.plugins:KeepAll")


def test_expected_failures_are_declared_by_check_name_and_skipped():
    skipped = check_strategy("tests.plugins:AlternatingKnown")
    assert [c.name for c in skipped] == ["check_strategy_deterministic"]
    with pytest.raises(ValueError, match="names no check of its layer: check_nope"):
        check_strategy("tests.plugins:TypoKnown")
