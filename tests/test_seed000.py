"""Seed 000's eight assertions, as written; only the import line differs."""

from packbench.algorithms import Item, pack


def test_seed_000_assertions():
    import random
    sys_p = Item("sys", "You are a helpful assistant.", 0, 10, pinned=True)
    A = Item("A", "the refund window is thirty days from delivery for all orders", 10, 100)
    B = Item("B", "shipping is free", 2, 1)
    assert [i.id for i in pack([sys_p, A, B], 110)] == ["sys", "A"]
    assert [i.id for i in pack([sys_p, A, B], 111)] == ["sys", "A", "B"]
    C = Item("C", "warranty lasts one year", 3, 5)
    D = Item("D", "returns need a receipt", 3, 5)
    E = Item("E", "a long but only mildly useful policy appendix", 4, 10)
    assert [i.id for i in pack([C, E, D], 10)] == ["C", "D"]
    dup = Item("A2", "The refund window is thirty days from delivery for all orders!", 9, 5)
    near = Item("A3", "the refund window is thirty days from delivery for all orders today", 8, 5)
    out = [i.id for i in pack([A, dup, near, B], 200)]
    assert out == ["A", "B"], out
    assert [i.id for i in pack([sys_p, Item("echo", "You are a helpful assistant", 5, 3)], 50)] == ["sys"]
    try:
        pack([sys_p], 5)
        assert False
    except ValueError:
        pass
    rng = random.Random(0)
    pool = [Item(f"i{n}", f"chunk {n} " + " ".join(rng.choice("abcdefghij") for _ in range(12)),
                 rng.uniform(0, 1), rng.randint(5, 60)) for n in range(40)]
    for budget in (0, 50, 200, 500):
        res = pack([sys_p] + pool, budget + 10)
        assert res[0] is sys_p and sum(i.tokens for i in res) <= budget + 10
        assert [i.id for i in res[1:]] == [i.id for i in pool if i in res]
