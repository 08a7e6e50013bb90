"""Components from outside packbench, named by import path ("tests.plugins:...") in the tests.

They stand in for a user's module: nothing here is registered anywhere, so every use goes through
the plug-in mechanism (import path, entry point or the object itself).
"""

from __future__ import annotations

from types import MappingProxyType

from packbench.algorithms import Selection, Strategy
from packbench.algorithms.dedupe import DedupeMethod, dedupe_order
from packbench.algorithms.orders import Order
from packbench.algorithms.params import Param, real_in
from packbench.experiments.families.traps import Traps


class TopFracGreedy(Strategy):
    """Take candidates by score, best first, while they fit in a fraction of the room."""

    name = "top_frac_greedy"
    PARAMS = MappingProxyType({"frac": Param(1.0, real_in(0.0, 1.0), "share of the room to fill")})

    def select(self, problem):
        room, used, chosen = int(problem.room * self.params["frac"]), 0, []
        for k in sorted(range(len(problem.candidates)), key=lambda k: -problem.candidates[k].score):
            if used + problem.candidates[k].tokens <= room:
                chosen.append(k)
                used += problem.candidates[k].tokens
        return Selection(tuple(chosen))


class Unnamed(Strategy):
    """A strategy class from outside that sets no name."""

    def select(self, problem):
        return Selection(())


class Stopped(Strategy):
    """A search cut by its time limit before finding anything."""

    name = "stopped_early"

    def select(self, problem):
        return Selection((), optimal=False, upper_bound=None, info={"stopped": "time_limit"})


class Broken(Strategy):
    """A strategy with a bug."""

    name = "broken"

    def select(self, problem):
        raise ZeroDivisionError("bug in strategy")


class Overflowing(Strategy):
    """Takes every candidate, whatever the room."""

    def select(self, problem):
        return Selection(tuple(range(len(problem.candidates))))


class Alternating(Strategy):
    """Every other call chooses nothing: not deterministic (the contract checks must say so)."""

    calls = [0]

    def select(self, problem):
        self.calls[0] += 1
        return Selection((0,) if self.calls[0] % 2 and problem.candidates and
                         problem.candidates[0].tokens <= problem.room else ())


class AlternatingKnown(Alternating):
    """`Alternating`, declaring the check it fails."""

    expected_failed_checks = {"check_strategy_deterministic": "alternates by design"}


class TypoKnown(Alternating):
    """Declares an expected failure of a check that does not exist."""

    expected_failed_checks = {"check_nope": "a typo"}


class KeepAll(DedupeMethod):
    """Keeps every candidate, identical copies too (the contract checks must say so)."""

    def dedupe(self, candidates, pinned, threshold):
        return dedupe_order(candidates), {}


class Reversed(Order):
    """Input order reversed."""

    def arrange(self, chosen):
        return list(reversed(chosen))


def by_score(items, budget, min_score=0.0):
    """Best score first while it fits; pinned items are left to pack."""
    room = budget - sum(it.tokens for it in items if it.pinned)
    out = []
    for it in sorted((it for it in items if not it.pinned), key=lambda it: -it.score):
        if it.score >= min_score and it.tokens <= room:
            out.append(it.id)
            room -= it.tokens
    return out


def everything(items, budget, **params):
    """Returns every item it is given, as Items, pinned included (fits only when the budget allows)."""
    return list(items)


def twice(items, budget):
    """Returns the first candidate twice."""
    first = next(it for it in items if not it.pinned)
    return [first.id, first.id]


def stranger(items, budget):
    """Returns an id it was not given."""
    return ["not-an-item"]


def half_pinned(items, budget):
    """Returns one pinned item of several."""
    return [next(it.id for it in items if it.pinned)]


def not_a_list(items, budget):
    """Returns a number."""
    return 3


class Flaky(Traps):
    """The traps family, unavailable until `available` is set (a corpus whose file is missing)."""

    name = "flaky"
    available = False

    def instances(self, seed):
        if not Flaky.available:
            raise FileNotFoundError("data file missing")
        return super().instances(seed)


class Late(Traps):
    """The traps family under another name (registered after configs were first validated)."""

    name = "late_family"


def install_entry_points(root, monkeypatch, group, entries, dist="packbench-test-plugins"):
    """Make a distribution `dist` that declares `entries` (name -> "module:attr") in `group` visible.

    It is a bare ``.dist-info`` folder under `root` put on ``sys.path`` (undone by `monkeypatch`), which
    is all `importlib.metadata` reads, so no package is installed.
    """
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = [f"[{group}]"] + [f"{name} = {value}" for name, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(root))
