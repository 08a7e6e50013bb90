"""Contract checks of the packing library's layers: strategies, orders, fills, dedupe methods.

Each check states one rule of the layer's contract (what `pack` and the experiment runner rely on), never
the semantics of a built-in component: those are that component's own tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from packbench.algorithms import FILLS, ORDERS, STRATEGIES, Item, pack
from packbench.algorithms.component import Component, Registry
from packbench.algorithms.dedupe import DEDUPE_METHODS
from packbench.algorithms.dedupe.rule import dedupe_order
from packbench.algorithms.embed import embed_items
from packbench.algorithms.strategies.base import Refused

from .core import Check, expected_failures, random_instances

__all__ = ["check_declaration", "strategy_checks", "order_checks", "fill_checks", "dedupe_checks", "checks_of"]


def _label(spec: Any) -> str:
    return spec if isinstance(spec, str) else f"{getattr(spec, '__module__', '?')}:{getattr(spec, '__qualname__', spec)}"


def check_declaration(registry: Registry[Any], spec: Any) -> None:
    """Resolvable, of the layer's base, described by `packbench list`, built with its defaults, strict on params.

    A component that needs a parameter without default (a file corpus's `path`) must say so by name.
    """
    name, cls = registry.resolve(spec)
    assert issubclass(cls, registry.base) and issubclass(cls, Component), f"{name}: not a {registry.base.__name__}"
    if isinstance(spec, str) and spec in registry:
        assert cls.name == spec, f"{spec}: registered under a name that is not its class's name {cls.name!r}"
    first = cls.describe(as_name=name).splitlines()[0]
    assert first.startswith(f"{name}:"), f"{name}: describe() starts {first!r}, not with its name"
    try:
        built = cls()
    except ValueError as exc:
        assert "needs parameter" in str(exc) and name in str(exc), \
            f"{name}: cannot be built with its defaults, and the error does not name the missing parameter: {exc}"
        return
    # A parameter whose default is None ("unset", such as a function strategy's `timeout`) may be left out
    # of the resolved params, so that run ids stay those of the component without the option.
    required = {key for key, spec in cls.PARAMS.items() if spec.default is not None}
    missing = sorted(required - set(built.params))
    assert not missing, f"{name}: params lack declared names {missing}"
    if not cls.EXTRA_PARAMS:
        try:
            cls(no_such_param=1)
        except ValueError as exc:
            assert "no_such_param" in str(exc), f"{name}: an unknown parameter's error does not name it: {exc}"
        else:
            raise AssertionError(f"{name}: accepted an unknown parameter 'no_such_param'")


def _packings(spec: Any, **kw: Any) -> Iterator[tuple[list[Item], int, float | None, Any]]:
    """(items, budget, near_dup, packing) over the shared small problems; declared refusals left out."""
    for case, (items, budget) in enumerate(random_instances(seed=28)):
        near_dup = (None, 0.5, 0.8, 1.0)[case % 4]
        try:
            yield items, budget, near_dup, pack(items, budget, near_dup, strategy=spec, **kw)
        except Refused:
            continue


def check_strategy_within_budget(spec: Any) -> None:
    """Tokens within the budget; a strategy that declares `may_exceed_budget` must flag an overflow."""
    may_exceed = getattr(STRATEGIES.lookup(spec), "may_exceed_budget", False)
    for items, budget, _, res in _packings(spec):
        if may_exceed:
            assert res.tokens <= budget or res.over_budget, f"{_label(spec)}: over the budget without saying so"
        else:
            assert res.tokens <= budget, f"{_label(spec)}: {res.tokens} tokens over a budget of {budget}"


def check_strategy_keeps_pinned_first(spec: Any) -> None:
    """Every pinned item is kept, first, in input order."""
    for items, _, _, res in _packings(spec):
        pinned = [it for it in items if it.pinned]
        assert list(res[:len(pinned)]) == pinned, f"{_label(spec)}: pinned items not first in input order"


def check_strategy_chooses_candidates_once(spec: Any) -> None:
    """The rest are candidates of the input, none twice, none that dedupe dropped."""
    for items, _, _, res in _packings(spec):
        rest = list(res[sum(it.pinned for it in items):])
        ids = [it.id for it in rest]
        assert len(set(ids)) == len(ids), f"{_label(spec)}: an item chosen twice: {ids}"
        assert all(it in items and not it.pinned for it in rest), f"{_label(spec)}: chose an item not given"
        assert not set(ids) & set(res.dropped), f"{_label(spec)}: chose a dropped duplicate"


def check_strategy_deterministic(spec: Any) -> None:
    """The same input gives the same packing."""
    for items, budget, near_dup, res in _packings(spec):
        again = pack(list(items), budget, near_dup, strategy=spec)
        assert again.ids == res.ids, f"{_label(spec)}: two calls on the same input chose {res.ids} and {again.ids}"


def check_strategy_bound_is_a_bound(spec: Any) -> None:
    """A reported upper bound is at least the score; `optimal=True` only with a bound not below it."""
    for _, _, _, res in _packings(spec):
        if res.upper_bound is not None:
            assert res.score <= res.upper_bound + 1e-9, \
                f"{_label(spec)}: upper_bound {res.upper_bound} below the score {res.score}"


def check_strategy_leaves_items_untouched(spec: Any) -> None:
    """The caller's items and list are as they were."""
    for items, budget, near_dup, _ in _packings(spec):
        before = list(items)
        pack(items, budget, near_dup, strategy=spec)
        assert items == before, f"{_label(spec)}: changed the caller's items"


def _arranged(spec: Any) -> Iterator[tuple[list[Item], list[Item]]]:
    for items, _ in random_instances(seed=29):
        chosen = [it for it in items if not it.pinned]
        yield chosen, ORDERS.lookup(spec)().arrange(chosen)


def check_order_permutes_the_items(spec: Any) -> None:
    """`arrange` returns the very items it was given, each once, and leaves its input as it was."""
    for chosen, out in _arranged(spec):
        assert sorted(map(id, out)) == sorted(map(id, chosen)) and len(out) == len(chosen), \
            f"{_label(spec)}: not a permutation of the chosen items"


def check_order_deterministic(spec: Any) -> None:
    """The same chosen items give the same arrangement, and the input list is not changed."""
    for chosen, out in _arranged(spec):
        before = list(chosen)
        assert ORDERS.lookup(spec)().arrange(chosen) == out, f"{_label(spec)}: two arrangements differ"
        assert chosen == before, f"{_label(spec)}: changed its input list"


def check_order_through_pack_keeps_pinned_first(spec: Any) -> None:
    """Through `pack`, pinned items stay first and the chosen candidates come as `arrange` puts them."""
    for chosen, out in _arranged(spec):
        pinned = Item("sys", "system", 0.0, 1, pinned=True)
        res = pack([*chosen, pinned], 10_000, None, order=spec)  # room for all: every candidate is chosen
        assert res[0] is pinned and res.ids[1:] == [it.id for it in out], \
            f"{_label(spec)}: through pack, pinned item not first or the candidates not as arranged"


def _fill_cases() -> Iterator[list[Item]]:
    for n in (0, 1, 3, 8):
        for words in (1, 7, 40):
            text = " ".join(f"w{k}" for k in range(words))
            yield [Item("sys", "system prompt", 0.0, 2, pinned=True)] + \
                [Item(f"c{k}", f"{k} {text}", float(10 - k), words + 1) for k in range(n)]


def check_fill_within_budget_and_in_place(spec: Any) -> None:
    """Through `pack`: within budget, the chosen items kept in place, nothing repeated, a cut item named."""
    for items in _fill_cases():
        for budget in (2, 9, 30, 60):
            plain = pack(items, budget, None, strategy="prefix")
            filled = pack(items, budget, None, strategy="prefix", fill=spec)
            assert filled.tokens <= filled.budget, f"{_label(spec)}: over the budget"
            assert filled.ids[:len(plain)] == plain.ids, f"{_label(spec)}: moved or removed a chosen item"
            assert len(set(filled.ids)) == len(filled.ids), f"{_label(spec)}: an item twice"
            assert filled.truncated is None or filled.truncated in filled.ids[len(plain):], \
                f"{_label(spec)}: names a cut item {filled.truncated!r} it did not add"


def check_fill_uses_at_most_its_room(spec: Any) -> None:
    """Called directly, `apply` keeps the chosen items first and adds at most `room_left` tokens."""
    for items in _fill_cases():
        chosen, unchosen = items[1:2], items[2:]
        for room in (0, 5, 50):
            out, cut = FILLS.lookup(spec)().apply(chosen, unchosen, room)
            added = out[len(chosen):]
            assert out[:len(chosen)] == chosen and sum(it.tokens for it in added) <= room, \
                f"{_label(spec)}: added more than {room} tokens or moved a chosen item"
            assert cut is None or cut in {it.id for it in added}, f"{_label(spec)}: names a cut item it did not add"


def _dedupe_cases() -> Iterator[tuple[list[Item], list[Item]]]:
    """(candidates, pinned) with embeddings: the shared problems, plus copies of candidates and of a pinned text."""
    for items, _ in random_instances(seed=30, count=20):
        cands = [it for it in items if not it.pinned]
        pinned = [it for it in items if it.pinned]
        copies = [Item(f"copy{k}", it.text, it.score / 2, it.tokens) for k, it in enumerate(cands[:2] + pinned[:1])]
        embedded = embed_items(pinned + cands + copies)
        yield embedded[len(pinned):], embedded[:len(pinned)]


def _deduped(spec: Any) -> Iterator[tuple[list[Item], list[Item], float, list[Item], dict[str, str]]]:
    method = DEDUPE_METHODS.lookup(spec)
    for case, (cands, pinned) in enumerate(_dedupe_cases()):
        threshold = (0.5, 0.8, 1.0)[case % 3]
        kept, dropped = method().dedupe(cands, pinned, threshold)
        yield cands, pinned, threshold, list(kept), dict(dropped)


def check_dedupe_partitions_in_visiting_order(spec: Any) -> None:
    """Every candidate is kept or dropped, never both; the kept ones come in the shared visiting order."""
    for cands, _, _, kept, dropped in _deduped(spec):
        visit = [it.id for it in dedupe_order(cands)]
        kept_ids = [it.id for it in kept]
        assert kept_ids == [i for i in visit if i in kept_ids], f"{_label(spec)}: kept items not in visiting order"
        assert set(kept_ids) | set(dropped) == set(visit) and not set(kept_ids) & set(dropped), \
            f"{_label(spec)}: kept and dropped do not split the candidates"


def check_dedupe_partners_are_anchors(spec: Any) -> None:
    """A dropped candidate names a pinned item or a kept candidate visited before it."""
    for cands, pinned, _, kept, dropped in _deduped(spec):
        visit = [it.id for it in dedupe_order(cands)]
        kept_ids, pinned_ids = {it.id for it in kept}, {it.id for it in pinned}
        for cid, partner in dropped.items():
            assert partner in pinned_ids or partner in kept_ids and visit.index(partner) < visit.index(cid), \
                f"{_label(spec)}: {cid} dropped onto {partner}, neither pinned nor an earlier kept candidate"


def check_dedupe_drops_identical_copies(spec: Any) -> None:
    """A byte-identical copy of a pinned item or of a higher-scored candidate is dropped, at any threshold."""
    for cands, _, _, _, dropped in _deduped(spec):
        for it in cands:
            if it.id.startswith("copy"):  # onto which partner is the method's own rule
                assert it.id in dropped, f"{_label(spec)}: kept {it.id}, an identical copy of an earlier text"


def check_dedupe_flags_agree(spec: Any) -> None:
    """`kept_flags` (what `pack` reads) is the same decision, and `pack(dedupe=...)` reports it."""
    method = DEDUPE_METHODS.lookup(spec)
    for cands, pinned, threshold, kept, dropped in _deduped(spec):
        flags, dropped_again = method().kept_flags(cands, pinned, threshold)
        kept_ids = {it.id for it in kept}
        assert dict(dropped_again) == dropped and list(flags) == [it.id in kept_ids for it in cands], \
            f"{_label(spec)}: kept_flags disagrees with dedupe"
        assert pack(cands + pinned, 10**6, threshold, dedupe=spec).dropped == dropped, \
            f"{_label(spec)}: pack reports other drops than dedupe"
    assert method().dedupe([], [], 0.8) == ([], {}), f"{_label(spec)}: no candidates, yet something kept or dropped"


_LAYER_CHECKS: dict[str, tuple[Registry[Any], tuple[Callable[[Any], None], ...]]] = {
    "strategy": (STRATEGIES, (check_strategy_within_budget, check_strategy_keeps_pinned_first,
                              check_strategy_chooses_candidates_once,
                              check_strategy_deterministic, check_strategy_bound_is_a_bound,
                              check_strategy_leaves_items_untouched)),
    "order": (ORDERS, (check_order_permutes_the_items, check_order_deterministic,
                       check_order_through_pack_keeps_pinned_first)),
    "fill": (FILLS, (check_fill_within_budget_and_in_place, check_fill_uses_at_most_its_room)),
    "dedupe method": (DEDUPE_METHODS, (check_dedupe_partitions_in_visiting_order, check_dedupe_partners_are_anchors,
                                       check_dedupe_drops_identical_copies, check_dedupe_flags_agree)),
}


def checks_of(layer: str, spec: Any, registry: Registry[Any] | None = None,
              extra: tuple[Callable[[Any], None], ...] = ()) -> list[Check]:
    """The checks of one component of a library layer (its declaration first), expected failures marked.

    Args:
        layer: ``"strategy"``, ``"order"``, ``"fill"`` or ``"dedupe method"`` (or another layer with
            `registry` and `extra` given).
        spec: A name, an import path, or the class (or, for strategies, the function) itself.
        registry: The layer's registry (default: the library's).
        extra: The layer's checks (default: the library's).
    """
    if layer in _LAYER_CHECKS and registry is None:
        registry, extra = _LAYER_CHECKS[layer]
    if registry is None:
        raise ValueError(f"unknown layer {layer!r}; valid: {', '.join(_LAYER_CHECKS)}")

    def declaration(component: Any) -> None:
        check_declaration(registry, component)

    declaration.__name__ = f"check_{layer.split()[0]}_declaration"
    functions = (declaration, *extra)
    expected = expected_failures(registry.lookup(spec), [f.__name__ for f in functions])
    return [Check(layer, spec, f.__name__, f, expected.get(f.__name__)) for f in functions]


def strategy_checks(spec: Any) -> list[Check]:
    """The checks of a strategy: a name, import path, `Strategy` subclass or function."""
    return checks_of("strategy", spec)


def order_checks(spec: Any) -> list[Check]:
    """The checks of an order."""
    return checks_of("order", spec)


def fill_checks(spec: Any) -> list[Check]:
    """The checks of a fill."""
    return checks_of("fill", spec)


def dedupe_checks(spec: Any) -> list[Check]:
    """The checks of a dedupe method."""
    return checks_of("dedupe method", spec)
