"""A monotonic clock readable from numba-compiled code, so deadlines are checked inside the kernels.

numba has no `time` module. This intrinsic calls the C library's ``clock_gettime`` by its symbol
name (resolved when the compiled code is linked into the process, so ``cache=True`` still works),
on the clock that `time.perf_counter` reads on Linux. `to_clock` maps a `time.perf_counter`
deadline onto that clock without assuming the two agree.
"""

from __future__ import annotations

import time

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["CLOCK_ID", "monotonic_now", "to_clock"]

CLOCK_ID = time.CLOCK_MONOTONIC


@intrinsic
def monotonic_now(typingctx, clock_id):
    """Seconds on clock `clock_id` (an int64), as ``time.clock_gettime(clock_id)`` gives them."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        i32, i64, dbl = ir.IntType(32), ir.IntType(64), ir.DoubleType()
        spec_t = ir.ArrayType(i64, 2)  # struct timespec {time_t tv_sec; long tv_nsec} on LP64
        spec = cgutils.alloca_once(builder, spec_t)
        fnty = ir.FunctionType(i32, [i32, ir.PointerType(spec_t)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        builder.call(fn, [builder.trunc(args[0], i32), spec])
        zero = ir.Constant(i32, 0)
        sec = builder.load(builder.gep(spec, [zero, zero]))
        nsec = builder.load(builder.gep(spec, [zero, ir.Constant(i32, 1)]))
        return builder.fadd(builder.sitofp(sec, dbl), builder.fmul(builder.sitofp(nsec, dbl), ir.Constant(dbl, 1e-9)))

    return sig, codegen


def to_clock(deadline: float | None) -> float:
    """A `time.perf_counter()` deadline on `CLOCK_ID`'s scale (inf for None)."""
    if deadline is None:
        return float("inf")
    return deadline - time.perf_counter() + time.clock_gettime(CLOCK_ID)
