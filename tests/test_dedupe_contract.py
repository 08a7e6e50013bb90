"""One contract over every registered dedupe method (the check_estimator idea)."""

from __future__ import annotations

import pytest

from packbench.algorithms import Item, pack
from packbench.algorithms.component import Component
from packbench.algorithms.dedupe import DEDUPE_METHODS, DedupeMethod, dedupe_order
from packbench.algorithms.embed import embed_items

TEXTS = ["the refund window is thirty days from delivery for all orders",
         "The refund window is thirty days from delivery for all orders!",
         "shipping is free on orders over fifty dollars in the store",
         "warranty lasts one year from the date of purchase for every device",
         "warranty lasts one year from the date of purchase for every device today"]


@pytest.mark.parametrize("name", sorted(DEDUPE_METHODS))
def test_dedupe_method_contract(name):
    cls = DEDUPE_METHODS[name]
    assert issubclass(cls, DedupeMethod) and issubclass(cls, Component)
    assert cls.name == name and cls.kind == "dedupe method"
    assert cls.describe().startswith(f"{name}: ")
    method = cls()
    # Embeddings for the methods that compare vectors (deterministic hashing embedder).
    pin, *cands = embed_items([Item("sys", "shipping is free on orders over fifty dollars in the store", 0.0, 3,
                                    pinned=True)] + [Item(f"c{k}", t, float(len(TEXTS) - k), 2)
                                                     for k, t in enumerate(TEXTS)])
    kept, dropped = method.dedupe(cands, [pin], 0.8)
    visit = [it.id for it in dedupe_order(cands)]
    kept_ids = [it.id for it in kept]
    # Kept in visiting order, every candidate either kept or dropped, never both.
    assert kept_ids == [i for i in visit if i in kept_ids]
    assert set(kept_ids) | set(dropped) == set(visit) and not set(kept_ids) & set(dropped)
    # What pack reads: the same decision as a flag per candidate in input order.
    flags, dropped_again = method.kept_flags(cands, [pin], 0.8)
    assert dropped_again == dropped and flags == [it.id in kept_ids for it in cands]
    # The exact repeat and the copy of the pinned text are always dropped, onto earlier anchors.
    assert dropped["c1"] == "c0" and dropped["c2"] == "sys"
    for cid, partner in dropped.items():
        assert partner == "sys" or visit.index(partner) < visit.index(cid) and partner in kept_ids
    # No candidates: nothing to keep or drop.
    assert method.dedupe([], [pin], 0.8) == ([], {})
    assert pack(cands + [pin], 100, dedupe=name).dropped == dropped


def test_unknown_dedupe_method_names_the_valid_ones():
    with pytest.raises(ValueError, match="unknown dedupe method 'nope'; valid: containment, exact, minhash, nearcopy, nearcopy_container, pairwise, semantic"):
        DEDUPE_METHODS.lookup("nope")
    with pytest.raises(ValueError, match="unknown parameter"):
        DEDUPE_METHODS["exact"](bogus=1)
