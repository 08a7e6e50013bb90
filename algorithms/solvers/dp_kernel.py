"""The compiled capacity DP behind `dp.dp_knapsack`: one pass per item, the canonical set rebuilt after.

Items are visited last to first. For item k the row ``dp[j]`` (best score within j tokens using
items k..n-1) is updated in blocks of `BLOCK` capacities from the top down, each block reading a
copy of its values without item k: the same values numpy's whole-row update gives, cell by cell.
Per item one bit per touched capacity (packed eight to a byte, first capacity in the high bit, as
`numpy.packbits` packs) says whether taking the item is at least as good as leaving it; the set is
then rebuilt first item first, taking an item whenever that bit is set.

The caller allocates every array but two blocks of scratch (so its memory check precedes all of
it); the deadline is read inside the compiled loop, on the clock of `core.clock`, about every
`CHECK_CELLS` cells."""

from __future__ import annotations

import numpy as np
from numba import njit, uint8, uint64

from .core.clock import CLOCK_ID, monotonic_now, to_clock

__all__ = ["BLOCK", "CHECK_CELLS", "DONE", "TIMED_OUT", "dp_bits_layout", "run_dp", "span_sums", "warm_up"]

DONE, TIMED_OUT = 0, 1
# Cells between two reads of the clock (about a millisecond of DP): a read costs tens of nanoseconds.
CHECK_CELLS = 1 << 20
# Capacities updated per block (a multiple of 8): the block's old values fit in the first-level cache.
BLOCK = 512


@njit(cache=True)
def span_sums(w, room):
    """(total weight, bytes of the packed decision bits, cells touched) of the DP on `w` within `room`.

    Item k's update touches min(room, w[k] + ... + w[n-1]) + 1 - w[k] capacities (`dp._spans`); seven numpy
    passes computed these sums in about 0.1 ms at 5,000 items, before `exact` chose a stage.
    """
    suffix = bit_bytes = cells = 0
    for k in range(len(w) - 1, -1, -1):
        suffix += w[k]
        span = max(min(room, suffix) + 1 - w[k], 0)
        bit_bytes += (span + 7) // 8
        cells += span
    return suffix, bit_bytes, cells


@njit(cache=True)
def _dp_pass(w, s, row, spans, starts, bits, dp, tops, clock_id, deadline, check):
    """Fill `dp`, `bits` and `tops` for items n-1..0, reading the clock every `check` cells or more.

    Returns TIMED_OUT once the clock passes `deadline`, else DONE.
    """
    n = len(w)
    room = row - 1
    block = uint64(BLOCK)
    old = np.empty(BLOCK + 8, dtype=dp.dtype)  # the block's values before the item: never overwritten
    took = np.empty(BLOCK + 8, dtype=np.uint8)
    filled = 0  # dp[j] for j > filled equals dp[filled]
    since = check  # read the clock before the first item
    before = 0  # tokens of the items before pos
    for pos in range(n):
        before += w[pos]
    for pos in range(n - 1, -1, -1):
        sk = s[pos]
        before -= w[pos]
        top = min(room, filled + w[pos])
        if top > filled:
            flat = dp[filled]
            for j in range(filled + 1, top + 1):
                dp[j] = flat
            filled = top
        tops[pos] = top
        wk, byte0 = uint64(w[pos]), uint64(starts[pos])
        hi = uint64(spans[pos])
        # The rebuild reaches item pos with at least room - `before` tokens left, so it reads no
        # offset below `need`: the blocks under it are skipped (a third of the cells at half the
        # total as room), their cells left stale, and no later item reads them either.
        need = room - before - w[pos]
        floor = uint64(need) & ~uint64(7) if need > 0 else uint64(0)
        # Blocks from the top capacity down: a block's writes (offsets + w) all lie above every
        # offset a lower block reads, and within a block the reads come from `old`, so each cell
        # sees the value without the item, as numpy's whole-row update does. Unsigned indices and
        # the separate copy let the compiler vectorise the update.
        while hi > floor:
            if since >= check:
                if monotonic_now(clock_id) > deadline:
                    return TIMED_OUT
                since = 0
            lo = (hi - block) & ~uint64(7) if hi > block else uint64(0)  # blocks start on byte boundaries
            lo = max(lo, floor)
            m = hi - lo
            for q in range(m):
                old[q] = dp[lo + q]
            for q in range(m):
                cand = old[q] + sk
                cur = dp[lo + wk + q]
                dp[lo + wk + q] = cand if cand >= cur else cur
            # Taking the item was at least as good exactly where the new value is the candidate.
            for q in range(m):
                took[q] = dp[lo + wk + q] == old[q] + sk
            padded = (m + uint64(7)) & ~uint64(7)
            for q in range(m, padded):
                took[q] = 0
            at = byte0 + (lo >> uint64(3))
            for b in range(padded >> uint64(3)):
                x = uint8(0)
                for r in range(8):
                    x |= took[b * 8 + r] << (7 - r)  # first capacity in the high bit, as numpy.packbits
                bits[at + b] = x
            since += m
            hi = lo
        since += 8  # an item that touches nothing still costs a little
    return DONE


@njit(cache=True)
def _rebuild(w, room, bits, starts, tops, chosen):
    """Positions of the canonical set, first item first, into `chosen`; returns their count."""
    count, j = 0, room
    for pos in range(len(w)):
        wk = w[pos]
        if j > tops[pos]:
            # Beyond the touched range every remaining item fits: taking it is optimal.
            chosen[count] = pos
            count += 1
            j -= wk
            continue
        off = j - wk
        if off >= 0 and (bits[starts[pos] + (off >> 3)] >> (7 - (off & 7))) & 1:
            chosen[count] = pos
            count += 1
            j = off
    return count


def dp_bits_layout(spans: np.ndarray) -> tuple[np.ndarray, int]:
    """(offset of each item's packed bits in one flat byte array, the array's length in bytes)."""
    sizes = (np.asarray(spans, dtype=np.int64) + 7) // 8
    starts = np.zeros(len(sizes), dtype=np.int64)
    if len(sizes) > 1:
        np.cumsum(sizes[:-1], out=starts[1:])
    return starts, int(sizes.sum())


def run_dp(w: np.ndarray, s: np.ndarray, row: int, spans: np.ndarray,
           deadline: float | None, check: int = CHECK_CELLS) -> tuple[np.ndarray, float]:
    """Run the compiled DP on arrays the caller checked against its memory cap.

    Args:
        w: int64 token counts, each positive.
        s: Scores, same length: float64, or int32 where every total fits (half the memory traffic).
        row: Length of the capacity row (`dp.dp_row_length`): the room, clipped to the total tokens, plus one.
        spans: int64 capacities each item's update touches (`dp._spans`).
        deadline: A `time.perf_counter()` value, read inside the compiled loop; None for none.
        check: Cells between two reads of the clock (at least one block's); tests use small ones.

    Returns:
        (chosen positions in increasing order as int64, the best score).

    Raises:
        TimeoutError: The deadline passed before the DP finished.
    """
    if check <= 0:
        raise ValueError(f"run_dp: check must be positive, got {check}")
    n = len(w)
    starts, nbytes = dp_bits_layout(spans)
    bits = np.empty(nbytes, dtype=np.uint8)
    dp = np.zeros(row, dtype=s.dtype)
    tops = np.empty(n, dtype=np.int64)
    if _dp_pass(w, s, row, spans, starts, bits, dp, tops, CLOCK_ID, to_clock(deadline), check) == TIMED_OUT:
        raise TimeoutError("dp_knapsack: deadline passed")
    chosen = np.empty(n, dtype=np.int64)
    count = _rebuild(w, row - 1, bits, starts, tops, chosen)
    return chosen[:count], float(dp[row - 1])


def warm_up() -> None:
    """Load the compiled DP (from numba's cache, or compile it) before anything is timed."""
    w = np.array([2, 3, 4], dtype=np.int64)
    s = np.array([3.0, 4.0, 5.0])
    spans = np.array([4, 3, 3], dtype=np.int64)  # room 5: min(5, suffix) + 1 - w
    span_sums(w, 5)
    run_dp(w, s, 6, spans, None)
    run_dp(w, s.astype(np.int32), 6, spans, None)  # integral profits of small totals (`dp.canonical_dp`)
