"""docs/extending.md's examples work: each Python block is written out as a module of a user's and used."""

from __future__ import annotations

import re

import pytest

from packbench import Item, pack
from packbench.experiments.config import parse_config
from packbench.experiments.provenance import REPO_ROOT

DOC = REPO_ROOT / "docs" / "extending.md"
# The examples are written as files inside packbench; as a user's module they import the same names absolutely.
ABSOLUTE = {"from ..items": "from packbench.algorithms.items", "from ..params": "from packbench.algorithms.params",
            "from .base import Strategy": "from packbench.algorithms.strategies.base import Strategy",
            "from .base import Order": "from packbench.algorithms.orders.base import Order",
            "from .rule": "from packbench.algorithms.dedupe.rule",
            "from ..instances": "from packbench.experiments.instances",
            "from .fill import Fill": "from packbench.algorithms.fill import Fill"}


@pytest.fixture
def examples(tmp_path, monkeypatch):
    """The doc's Python blocks as modules `doc_<first defined name>` on sys.path."""
    names = {}
    for block in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S):
        defined = re.search(r"^(?:class|def) (\w+)", block, flags=re.M)
        if not defined:
            continue
        for relative, absolute in ABSOLUTE.items():
            block = block.replace(relative, absolute)
        (tmp_path / f"doc_{defined.group(1).lower()}.py").write_text(block)
        names[defined.group(1)] = f"doc_{defined.group(1).lower()}:{defined.group(1)}"
    monkeypatch.syspath_prepend(str(tmp_path))
    return names


ITEMS = [Item("sys", "be brief", 0.0, 3, pinned=True), Item("a", "alpha beta", 5.0, 4),
         Item("b", "alpha beta", 4.0, 4), Item("c", "gamma", 1.0, 2)]


def test_every_example_component_runs_as_the_doc_says(examples):
    assert set(examples) >= {"TopFrac", "top_k", "WorstFirst", "ExactText", "Ladder", "WholeFill"}
    assert pack(ITEMS, 11, None, strategy=examples["TopFrac"], frac=1.0).ids == ["sys", "a", "b"]
    assert pack(ITEMS, 11, strategy=examples["top_k"], k=1).ids == ["sys", "a"]
    assert pack(ITEMS, 11, None, order=examples["WorstFirst"]).ids == ["sys", "b", "a"]
    res = pack(ITEMS, 11, dedupe=examples["ExactText"])
    assert res.dropped == {"b": "a"} and res.ids == ["sys", "a", "c"]
    assert pack(ITEMS, 9, None, strategy="prefix").ids == ["sys", "a"]  # prefix stops at b, which does not fit
    assert pack(ITEMS, 9, None, strategy="prefix", fill=examples["WholeFill"]).ids == ["sys", "a", "c"]
    cfg = parse_config({"name": "doc", "budgets": ["natural"], "sources": [{"name": examples["Ladder"]}],
                        "strategies": [examples["TopFrac"], examples["top_k"]], "dedupe": examples["ExactText"],
                        "fill": examples["WholeFill"]})
    assert [s.name for s in cfg.strategies] == [examples["TopFrac"], examples["top_k"]]
    assert (cfg.dedupe, cfg.fill) == (examples["ExactText"], examples["WholeFill"])


def test_every_example_keeps_its_layers_contract(examples):
    from packbench.testing import check_dedupe, check_fill, check_order, check_source, check_strategy

    for check, name in ((check_strategy, "TopFrac"), (check_strategy, "top_k"), (check_order, "WorstFirst"),
                        (check_dedupe, "ExactText"), (check_fill, "WholeFill"), (check_source, "Ladder")):
        assert check(examples[name]) == []  # nothing skipped, nothing failed


def test_the_metric_example_is_a_valid_metric():
    from packbench.experiments.metrics import Aggregate, Metric

    block = re.search(r"```python\n(Metric\(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S).group(1)
    (metric,) = eval(block, {"Metric": Metric, "Aggregate": Aggregate})  # noqa: S307 - our own doc
    assert metric.name == "tokens_left" and metric.aggregation[0].column == "tokens_left_mean"
    from packbench.testing import check_metric

    assert check_metric(metric) == []
