"""Model limits table and the context budget helper."""

from __future__ import annotations

import pytest

from packbench.algorithms.budget import LIMITS_CHECKED, MODEL_LIMITS, context_budget, context_limit
from packbench.algorithms.tokens import count_tokens


def test_table_is_dated_and_sane():
    assert LIMITS_CHECKED == "2026-11-29"
    for model, lim in MODEL_LIMITS.items():
        assert 0 < lim.max_output <= lim.context, model
        assert lim.source, model


def test_breakdown_adds_up_with_real_counts():
    system, query = "You are a careful assistant.", "What is the refund window?"
    b = context_budget("gpt-4o", system=system, query=query, output_reserve=2_000, safety_margin=100)
    assert b.limit == 128_000
    assert b.encoding == "o200k_base"  # gpt-4o's own tokenizer, not cl100k
    assert b.system == count_tokens(system, "o200k_base") and b.query == count_tokens(query, "o200k_base")
    assert b.context == 128_000 - b.system - b.query - 2_000 - 100
    assert b.to_dict()["context"] == b.context


def test_explicit_limit_and_counts():
    b = context_budget(limit=4_096, system=50, query=20, output_reserve=500, safety_margin=50)
    assert b.context == 4_096 - 50 - 20 - 500 - 50 == 3_476


def test_reserve_alone_over_limit_is_an_error():
    with pytest.raises(ValueError, match="= 5000 exceeds the context limit of 4096 on its own"):
        context_budget(limit=4_096, output_reserve=4_950, safety_margin=50)


def test_no_room_left_is_an_error():
    with pytest.raises(ValueError, match="exceed the context limit of 1000"):
        context_budget(limit=1_000, system=600, query=300, output_reserve=100, safety_margin=10)


def test_output_reserve_over_model_maximum():
    with pytest.raises(ValueError, match="maximum output of 16384"):
        context_budget("gpt-4o", output_reserve=20_000)


def test_unknown_model_lists_known_ones():
    with pytest.raises(ValueError, match="unknown model 'gpt-99'.*gpt-4o.*pass limit="):
        context_limit("gpt-99")
    with pytest.raises(ValueError, match="give a model name or limit="):
        context_budget()
    # An unhashable model name used to surface as "unhashable type: 'list'".
    with pytest.raises(ValueError, match=r"unknown model \['gpt-4o'\].*pass limit="):
        context_limit(["gpt-4o"])
    with pytest.raises(ValueError, match=r"unknown model \['gpt-4o'\]"):
        context_budget(["gpt-4o"])


@pytest.mark.parametrize("kwargs, err", [
    ({"limit": 100, "output_reserve": -1}, ValueError),
    ({"limit": 100, "safety_margin": 1.5}, TypeError),
    ({"limit": True}, TypeError),
])
def test_bad_counts(kwargs, err):
    with pytest.raises(err):
        context_budget(**kwargs)


def test_text_is_counted_with_the_models_encoding():
    text = "混合テキスト with emoji 🚀🚀 and accents: déjà vu, naïve café."
    assert count_tokens(text, "o200k_base") != count_tokens(text, "cl100k_base")  # the case that matters
    assert context_budget("gpt-4o", system=text).system == count_tokens(text, "o200k_base")
    assert context_budget("gpt-4", system=text).system == count_tokens(text, "cl100k_base")
    assert context_budget("gpt-4o", system=text, encoding="cl100k_base").system == count_tokens(text)
    # No tiktoken tokenizer for Claude: cl100k_base stands in, and the breakdown says so.
    b = context_budget("claude-sonnet-4-5", system=text)
    assert b.encoding == "cl100k_base" and b.system == count_tokens(text)
    with pytest.raises(ValueError, match="unknown encoding or model 'nope'"):
        context_budget("gpt-4o", system=text, encoding="nope")
