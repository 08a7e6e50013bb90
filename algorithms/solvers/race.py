"""CP-SAT racing OR-Tools' branch and bound on one knapsack, for `exact` when the capacity DP does not fit."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["race_bnb_cpsat"]

# CP-SAT overshoots its wall limit by up to a tenth of a second on a loaded machine: ask for less.
# Its start-up (model, presolve) takes a few tenths of a second at 2,000 items and ignores the
# limit, so below _CP_MIN_SEC left only branch and bound runs.
_CP_MARGIN = 0.1
_CP_MIN_SEC = 1.0
# Building the model (in Python) also ignores the limit and grows with the items: about 0.1 ms
# each at 10,000 items on a loaded machine. CP-SAT's limit leaves that much, and it is not started
# when the time left is under the minimum plus _CP_BUILD_ROOM times that: with a Python thread
# spinning beside it the model took twice as long (the GIL is shared three ways) and a race
# started with 2 s left at 10,000 items ended 0.37 s past a 10 s limit.
_CP_SEC_PER_ITEM = 1e-4
_CP_BUILD_ROOM = 2.0


def race_bnb_cpsat(weights: Sequence[int], profits: Sequence[int], room: int, hint: Sequence[int],
                   deadline: float, first_slice: float, bnb: Callable[..., Any],
                   cpsat: Callable[..., Any]) -> tuple[list[list[int]], str | None]:
    """Run CP-SAT in a thread (it releases the GIL) against branch and bound until one proves the optimum.

    Branch and bound cannot be resumed, so it reruns with slices doubling from
    `first_slice` and the race is checked between them: the total stays within
    about twice the faster solver's time. The solvers are passed in (`bnb_knapsack`
    and `cpsat_knapsack` signatures) so the caller decides which implementations run.

    Args:
        weights, profits, room: The knapsack (positive integers).
        hint: Positions of a good feasible set, CP-SAT's starting point.
        deadline: A `time.perf_counter()` value both solvers stop by.
        first_slice: Branch and bound's first slice, in seconds.
        bnb, cpsat: The two solvers.

    Returns:
        (the sets each solver found, as positions, in the order found; "bnb", "cpsat" or None
        when neither proved the optimum before the deadline).

    Raises:
        Exception: Whatever CP-SAT raised, re-raised in the calling thread.
    """
    weights, profits = list(weights), list(profits)
    stop, handle, out = threading.Event(), [], {}

    def run_cpsat() -> None:
        try:
            out["cp"] = cpsat(weights, profits, room, deadline - _CP_MARGIN - build - time.perf_counter(),
                              hint=list(hint), stop=stop, handle=handle)
        except Exception as exc:  # noqa: BLE001 - re-raised in the calling thread
            out["error"] = exc

    thread = threading.Thread(target=run_cpsat, name="exact-cpsat", daemon=True)
    build = _CP_SEC_PER_ITEM * len(weights)
    racing = deadline - time.perf_counter() >= _CP_MIN_SEC + _CP_BUILD_ROOM * build
    if racing:
        thread.start()
    # OR-Tools' branch and bound holds the GIL while it searches, so CP-SAT's model (built in
    # Python) would only grow between slices: wait until its solver exists (its search then
    # runs without the GIL).
    while not handle and thread.is_alive() and time.perf_counter() < deadline:
        time.sleep(0.001)
    found_sets: list[list[int]] = []
    slice_, winner = first_slice, None
    try:
        while (not racing or thread.is_alive()) and (left := deadline - time.perf_counter()) > 0:
            found, proven, _ = bnb(weights, profits, room, min(slice_, left))
            found_sets.append(list(found))
            if proven:
                winner = "bnb"
                break
            slice_ *= 2
    finally:
        stop.set()
        while thread.is_alive():
            for solver in handle:
                solver.stop_search()
            thread.join(0.02)
    if "error" in out:
        raise out["error"]
    found_c, proven_c, _, _ = out.get("cp") or (None, False, None, "")
    if found_c is not None:
        found_sets.append(list(found_c))
    if winner is None and proven_c:
        winner = "cpsat"
    return found_sets, winner
