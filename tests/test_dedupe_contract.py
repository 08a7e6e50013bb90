"""The dedupe layer: its contract runs in tests/test_contracts.py (packbench.testing.check_dedupe, over every
registered method); here, the default rule's own semantics and the unknown-name message."""

from __future__ import annotations

import inspect

import pytest

from packbench.algorithms import Item, pack
from packbench.algorithms.dedupe import DEDUPE_METHODS
from packbench.algorithms.embed import embed_items

TEXTS = ["the refund window is thirty days from delivery for all orders",
         "The refund window is thirty days from delivery for all orders!",
         "shipping is free on orders over fifty dollars in the store",
         "warranty lasts one year from the date of purchase for every device",
         "warranty lasts one year from the date of purchase for every device today"]


# The default method of pack (the indexed join of the rule), its all-pairs reference, its MinHash
# approximation and the containment variant: the methods that compare normalised words.
WORD_RULE = [inspect.signature(pack).parameters["dedupe"].default, "pairwise", "minhash", "containment"]


@pytest.mark.parametrize("name", WORD_RULE)
def test_the_word_rule_drops_case_and_punctuation_variants_and_pinned_copies(name):
    # The word-trigram rule (and its reference, approximation and containment variant) compare normalised
    # words: a case and punctuation variant is the same text, and so is a copy of a pinned text.
    pin, *cands = embed_items([Item("sys", TEXTS[2], 0.0, 3, pinned=True)] +
                              [Item(f"c{k}", t, float(len(TEXTS) - k), 2) for k, t in enumerate(TEXTS)])
    _, dropped = DEDUPE_METHODS[name]().dedupe(cands, [pin], 0.8)
    assert dropped["c1"] == "c0" and dropped["c2"] == "sys"
    assert pack(cands + [pin], 100, dedupe=name).dropped == dropped


def test_unknown_dedupe_method_names_the_valid_ones():
    valid = ", ".join(sorted(DEDUPE_METHODS.available()))
    with pytest.raises(ValueError, match=f"unknown dedupe method 'nope'; valid: {valid}"):
        DEDUPE_METHODS.lookup("nope")
    with pytest.raises(ValueError, match="unknown parameter"):
        DEDUPE_METHODS[sorted(DEDUPE_METHODS)[0]](bogus=1)


def test_the_old_name_exact_is_a_deprecated_alias_of_jaccard():
    items = [Item(f"c{k}", t, float(len(TEXTS) - k), 2) for k, t in enumerate(TEXTS)]
    assert pack(items, 100).dropped == pack(items, 100, dedupe="jaccard").dropped == {"c1": "c0", "c4": "c3"}
    with pytest.warns(DeprecationWarning, match='"exact" is renamed "jaccard"'):
        old = pack(items, 100, dedupe="exact")
    assert old.ids == pack(items, 100, dedupe="jaccard").ids and old.dropped == {"c1": "c0", "c4": "c3"}
