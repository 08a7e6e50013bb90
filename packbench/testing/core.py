"""What every check shares: a named check of one component, declared expected failures, and test cases.

A check is a function ``check(component) -> None`` that raises `AssertionError` with a message naming the
component and the broken rule. A component may declare the checks it is known to fail, with the reason,
in a class attribute::

    class MyStrategy(Strategy):
        expected_failed_checks = {"check_strategy_deterministic": "samples at random by design"}

`run_checks` skips those (and fails when a declared name is no check of the layer, so a typo cannot
hide a failure); `parametrize_with_checks` marks them ``xfail(strict=True)``, so a check that starts
passing says so.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from packbench.algorithms.items import Item

__all__ = ["Check", "expected_failures", "run_checks", "random_instances", "WORDS"]

WORDS = ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa")


@dataclass(frozen=True)
class Check:
    """One check of one component.

    Attributes:
        layer: The layer's name (``"strategy"``, ``"order"``, ...).
        component: The component as given (a name, an import path, a class or a function).
        name: The check's function name, e.g. ``"check_strategy_within_budget"``.
        function: ``function(component)`` raises `AssertionError` when the component breaks the rule.
        expected: Why the component is known to fail this check (from its `expected_failed_checks`), or None.
    """

    layer: str
    component: Any
    name: str
    function: Callable[[Any], None]
    expected: str | None = None

    @property
    def id(self) -> str:
        """A test id: ``"<component>-<check>"``."""
        label = self.component if isinstance(self.component, str) else \
            f"{getattr(self.component, '__module__', '?')}:{getattr(self.component, '__qualname__', '?')}"
        return f"{label}-{self.name}"

    def __call__(self) -> None:
        self.function(self.component)


def expected_failures(cls: Any, checks: Iterable[str]) -> dict[str, str]:
    """The `expected_failed_checks` a component class declares, each name checked against `checks`.

    Raises:
        TypeError: The declaration is not a mapping of check name to reason.
        ValueError: It names a check the layer does not have.
    """
    declared = getattr(cls, "expected_failed_checks", None) or {}
    if not isinstance(declared, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in declared.items()):
        raise TypeError(f"{cls!r}: expected_failed_checks must map a check name to its reason (str -> str)")
    unknown = sorted(set(declared) - set(checks))
    if unknown:
        raise ValueError(f"{cls!r}: expected_failed_checks names no check of its layer: {', '.join(unknown)}; "
                         f"valid: {', '.join(sorted(checks))}")
    return dict(declared)


def run_checks(checks: Iterable[Check]) -> list[Check]:
    """Run every check not declared as an expected failure; return the ones skipped as expected.

    Raises:
        AssertionError: The first check that fails.
    """
    skipped = []
    for check in checks:
        if check.expected is not None:
            skipped.append(check)
            continue
        check()
    return skipped


def random_instances(seed: int = 0, count: int = 30, max_n: int = 10) -> Iterator[tuple[list[Item], int]]:
    """Small packing problems: pinned items among candidates with near-duplicate texts, and a budget.

    Deterministic for a seed; texts are drawn from a ten-word vocabulary so that repeats and
    near-duplicates occur, scores are integers and fractions, one problem in five has no candidate.
    """
    rng = random.Random(seed)
    for case in range(count):
        n = 0 if case % 5 == 4 else rng.randint(1, max_n)
        items = [Item(f"c{k}", " ".join(rng.choices(WORDS, k=rng.randint(1, 6))),
                      float(rng.randint(0, 20)) if rng.random() < 0.5 else rng.uniform(0, 20),
                      rng.randint(1, 30)) for k in range(n)]
        pinned = [Item(f"p{k}", f"pinned {WORDS[k]} text", 0.0, rng.randint(1, 5), pinned=True)
                  for k in range(rng.randint(0, 2))]
        pos = rng.randint(0, len(items))
        items[pos:pos] = pinned
        yield items, sum(p.tokens for p in pinned) + rng.randint(0, 80)
