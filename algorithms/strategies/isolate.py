"""Call outside code in a child process that is stopped from outside when it runs over its time limit.

A thread cannot be stopped and a hanging call never returns, so a limit that the called code cannot
ignore needs a process: the child runs the call and sends back what it returned (or raised); the
caller waits at most the limit, then kills the child. An exit (``sys.exit``, ``os._exit``) or a crash
of the child costs the call, never the caller.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .base import StrategyContractError

__all__ = ["StrategyTimeout", "call_isolated", "die_with_parent"]


class StrategyTimeout(TimeoutError):
    """Outside code ran over the time limit it was given and was stopped from outside.

    Attributes:
        label: What was called (e.g. ``"strategy 'mod:f'"``).
        limit: The limit, in seconds of wall time.
    """

    def __init__(self, label: str, limit: float) -> None:
        super().__init__(f"{label} ran over its time limit of {limit:g} s (wall) and was stopped from outside")
        self.label = label
        self.limit = limit


def _context() -> Any:
    # fork: the function need not be importable (a lambda, a function defined in a notebook) and the
    # child starts in milliseconds; spawn where fork does not exist.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def die_with_parent() -> None:
    """Linux: ask the kernel to kill this process when its parent dies, so a child stuck in outside code
    never outlives a killed caller (elsewhere a no-op)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _child(conn: Any, func: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    die_with_parent()
    try:
        message: tuple[str, Any] = ("ok", func(*args, **kwargs))
    except SystemExit as exc:
        message = ("exit", exc.code)
    except BaseException as exc:  # noqa: BLE001 - handed to the caller, which re-raises it
        message = ("raise", exc)
    try:
        conn.send(message)
    except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception: say what it was
        kind = "returned" if message[0] == "ok" else "raised"
        conn.send(("unpicklable", f"{kind} {type(message[1]).__name__} that cannot be sent back ({exc})"))
    conn.close()


def call_isolated(func: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any], limit: float,
                  label: str) -> Any:
    """``func(*args, **kwargs)`` in a child process, stopped after `limit` seconds.

    Args:
        func: The outside code.
        args: Positional arguments (copied into the child).
        kwargs: Keyword arguments.
        limit: Seconds of wall time before the child is killed.
        label: What `func` is, for messages (e.g. ``"strategy 'mod:f'"``).

    Returns:
        What `func` returned (a copy, sent back from the child).

    Raises:
        StrategyTimeout: `func` ran over `limit`.
        StrategyContractError: `func` exited (``sys.exit``, ``os._exit``), the child died, or what it
            returned or raised cannot be sent back.
        Exception: What `func` raised, re-raised here.
    """
    ctx = _context()
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(sender, func, tuple(args), dict(kwargs)), name=f"packbench {label}")
    child.start()
    sender.close()
    deadline = time.monotonic() + limit
    try:
        if not receiver.poll(max(0.0, deadline - time.monotonic())):
            raise StrategyTimeout(label, limit)
        try:
            kind, value = receiver.recv()
        except (EOFError, OSError, pickle.UnpicklingError):
            child.join(1.0)
            raise StrategyContractError(f"{label} ended its process (exit code {child.exitcode}) without "
                                        f"returning: os._exit, a signal or a crash") from None
    finally:
        receiver.close()
        if child.is_alive():
            child.kill()
        child.join()
    if kind == "ok":
        return value
    if kind == "exit":
        raise StrategyContractError(f"{label} called sys.exit({value!r}) instead of returning")
    if kind == "unpicklable":
        raise StrategyContractError(f"{label} {value}")
    raise value
