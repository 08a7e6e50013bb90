"""Unicode-aware words: the issue's non-ASCII examples, ASCII identity with seed 000, fast path == reference."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import (dedupe_indexed, dedupe_minhash, dedupe_pairwise, jaccard, shingles,
                                         signature, words)
from packbench.algorithms.dedupe.tokenise import word_codes

# Each: two distinct texts in one script, and a near-copy of the first (one word/character changed or added).
SCRIPTS = {
    "chinese": ("北京是中国的首都，也是全国的政治中心和文化中心，有三千多年的建城史和八百多年的建都史。",
                "熊猫生活在四川的山区里，主要吃竹子，每天要花十几个小时进食和休息，是中国的国宝。",
                "北京是中国的首都，也是全国的政治中心和文化中心，有三千多年的建城史和八百多年的建都史！呢"),
    "arabic": ("القاهرة هي عاصمة مصر وأكبر مدنها وتقع على ضفاف نهر النيل في شمال البلاد منذ قرون طويلة",
               "الباندا حيوان يعيش في جبال الصين ويأكل الخيزران معظم ساعات اليوم ويحب النوم كثيرا",
               "القاهرة هي عاصمة مصر وأكبر مدنها وتقع على ضفاف نهر النيل في شمال البلاد منذ قرون طويلة جدا"),
    "russian": ("Москва является столицей России и крупнейшим городом страны на реке Москве с давних времён",
                "Панды живут в горах Китая и питаются бамбуком большую часть дня и очень много спят",
                "Москва является столицей России и крупнейшим городом страны на реке Москве с давних времён!"
                " Да"),
    "emoji": ("🍕🍔🍟🌭🍿🥤🍩🍪🎂🍫🍬🍭",
              "🐼🎋🌄🏔🌲🐾💤🌙⭐🌈🦋🌸",
              "🍕🍔🍟🌭🍿🥤🍩🍪🎂🍫🍬🍭🍰"),
}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_non_ascii_texts_keep_distinct_items_and_drop_a_planted_near_copy(script):
    first, second, near = SCRIPTS[script]
    assert words(first) and words(second) and set(words(first)) != set(words(second))
    both = pack([Item("a", first, 2, 5), Item("b", second, 1, 5)], 100)
    assert both.ids == ["a", "b"] and dict(both.dropped) == {}
    planted = pack([Item("a", first, 2, 5), Item("b", second, 1, 5), Item("c", near, 1.5, 5)], 100)
    assert planted.ids == ["a", "b"] and dict(planted.dropped) == {"c": "a"}
    pin = pack([Item("sys", second, 0, 5, pinned=True), Item("a", first, 2, 5), Item("c", near, 1.5, 5)], 100)
    assert pin.ids == ["sys", "a"] and dict(pin.dropped) == {"c": "a"}


def test_the_issues_two_chinese_sentences_are_both_kept():
    out = pack([Item("a", "北京是中国的首都", 2, 5), Item("b", "熊猫生活在四川", 1, 5)], 100)
    assert out.ids == ["a", "b"] and dict(out.dropped) == {}
    assert words("北京是中国的首都") == tuple("北京是中国的首都")


def test_word_rule_details():
    assert words("Naïve CAFÉ, Straße") == ("naïve", "café", "strasse")  # NFKC + casefold
    assert words("ｆｕｌｌｗｉｄｔｈ １２３") == ("fullwidth", "123")  # NFKC folds compatibility forms
    assert words("हिन्दी भाषा") == ("हिन्दी", "भाषा")  # combining marks stay in the word
    assert words("東京タワー 2008年") == ("東", "京", "タ", "ワ", "ー", "2008", "年")
    assert words("!!! ...") == () and signature("!!! ...") == ("\x00!!! ...",)
    assert signature("") == signature("   ") != signature("?")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_on_ascii_words_are_seed_000s_rule(text):
    assert words(text) == tuple(re.findall(r"[a-z0-9]+", text.lower()))


MIXED = ["北京", "是", "中国", "的", "首都", "Москва", "столица", "القاهرة", "مصر", "🍕", "🐼", "ภาษา", "ไทย",
         "naïve", "Straße", "STRASSE", "ｆｕｌｌ", "full", "हिन्दी", "東京タワー", "alpha", "beta", "gamma", "delta",
         "abcdefgh1ijklmnopé", "abcdefgh2ijklmnopé", "ünïcödé8", "x\x00y", "—", "…", "!"]


@st.composite
def mixed_inputs(draw):
    """Mixed-script candidates with planted copies and edits (also glued without spaces), pinned anchors."""
    texts: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["fresh", "copy", "edit", "glued", "empty"]))
        if kind in ("copy", "edit") and texts:
            base = draw(st.sampled_from(texts)).split(" ")
            if kind == "edit" and base:
                base[draw(st.integers(0, len(base) - 1))] = draw(st.sampled_from(MIXED))
            text = " ".join(base) + draw(st.sampled_from(["", "!", "。"]))
        elif kind == "glued":
            text = "".join(draw(st.lists(st.sampled_from(MIXED), max_size=8)))
        elif kind == "empty":
            text = draw(st.sampled_from(["", "…", "...", "— —", "!"]))
        else:
            text = " ".join(draw(st.lists(st.sampled_from(MIXED), min_size=1, max_size=10)))
        texts.append(text)
    items = [Item(f"i{k}", t, draw(st.sampled_from([0.0, 1.0, 2.0])), 1, pinned=draw(st.booleans())
                  and draw(st.booleans())) for k, t in enumerate(texts)]
    return items, draw(st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0]))


def _summary(result):
    kept, dropped = result
    return [it.id for it in kept], dict(dropped)


@settings(max_examples=300, deadline=None)
@given(mixed_inputs())
def test_indexed_join_equals_the_pairwise_definition_on_mixed_script(case):
    items, threshold = case
    pinned = [it for it in items if it.pinned]
    cands = [it for it in items if not it.pinned]
    expected = _summary(dedupe_pairwise(cands, pinned, threshold))
    assert _summary(dedupe_indexed(cands, pinned, threshold)) == expected
    # MinHash verifies every pair it reports with the exact Jaccard of the same signatures.
    text = {it.id: it.text for it in items}
    for cid, partner in dedupe_minhash(cands, pinned, threshold)[1].items():
        assert jaccard(shingles(signature(text[cid])), shingles(signature(text[partner]))) >= threshold


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), max_size=6), st.lists(st.sampled_from(MIXED), max_size=8))
def test_batch_word_codes_follow_the_signature_on_any_text(texts, extra):
    texts = texts + ["".join(extra), " ".join(extra)]
    expected = [signature(t) for t in texts]
    flat = [w for ws in expected for w in ws]
    codes, lens = word_codes(texts, exact=True)
    assert lens.tolist() == [len(ws) for ws in expected]
    assert len({(w, int(c)) for w, c in zip(flat, codes)}) == len(set(flat)) == len(set(codes.tolist()))
