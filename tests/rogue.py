"""Outside components that misbehave, named by import path ("tests.rogue:...") in the containment tests.

Each stands in for a user's plug-in with a bug that must cost only its own runs: it exits, hangs,
kills its process, raises, returns a NaN bound or changes the items it was handed.
"""

from __future__ import annotations

import os

from packbench.algorithms import Selection, Strategy
from packbench.experiments.bench.rogue_plugins import exits, hangs, kills, raises

__all__ = ["exits", "kills", "hangs", "raises", "mutates", "blocks", "NanBound", "BoolIndex", "EmptyOptimal",
           "LowBound", "MutatesClass"]


def mutates(items, budget):
    """Changes the items it was given through object.__setattr__, then keeps the first one."""
    for it in items:
        object.__setattr__(it, "score", 1e9)
        object.__setattr__(it, "tokens", 1)
    return [items[0].id] if items else []


class NanBound(Strategy):
    """Claims a NaN upper bound."""

    def select(self, problem):
        return Selection((), upper_bound=float("nan"))


class BoolIndex(Strategy):
    """Chooses True as if it were index 1."""

    def select(self, problem):
        return Selection((True,))


class EmptyOptimal(Strategy):
    """Chooses nothing and claims it is optimal."""

    def select(self, problem):
        return Selection((), optimal=True)


class LowBound(Strategy):
    """Keeps the first candidate and claims a bound below its score."""

    def select(self, problem):
        return Selection((0,), upper_bound=-5.0)


class MutatesClass(Strategy):
    """A Strategy subclass changing the candidates it sees."""

    def select(self, problem):
        for it in problem.candidates:
            object.__setattr__(it, "score", -1.0)
        return Selection(())


def blocks(items, budget):
    """With $PACKBENCH_TEST_FIFOS set: says it started (FIFO "started"), then waits for "release".

    Lets a test hold a run inside a strategy for exactly as long as it needs, with no sleeps: opening a
    FIFO blocks until the other end is opened. Without the variable it keeps nothing at once.
    """
    folder = os.environ.get("PACKBENCH_TEST_FIFOS")
    if folder:
        with open(os.path.join(folder, "started"), "w") as fh:
            fh.write("started\n")
        with open(os.path.join(folder, "release")) as fh:
            fh.read()
    return []
