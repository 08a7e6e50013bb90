"""Chained coverage instances for greedy + best singleton, with the optimum known by design.

The family (the shape behind the tightness constructions for budgeted
submodular maximisation: Kulik, Schwartz & Shachnai 2021; Feldman, Nutov &
Shoham 2021): an optimal solution of k disjoint *blocks* (items o_1..o_k of
token costs c_i * B, covering element weight v_i * W, sum v_i = 1) and a chain
of small *decoy* items g_1, g_2, ... of `step` tokens each. Decoy g_j covers
fresh elements inside the blocks, worth (1 + eps) times the best density of
any block that still fits once g_1..g_{j-1} are taken, taken by water-filling
from the densest fitting blocks (so the best density falls as fast as it can).
The chain stops when no block fits. The cost-benefit greedy therefore takes
the whole chain (each decoy is strictly denser than every block still in
play) and the best singleton is the largest block.

Expressed through the shipped `submodular` strategy: every block, decoy and
element is a candidate (scores 0, ``objective="linear"``, ``lam=1``); the
coverage term's similarity is the incidence ``sim(item, element) = weight`` of
each element it covers (a callable similarity); elements cost more than the
budget, so they are only coverage targets. One pinned item with similarity 1
to every block and decoy covers their own diagonal targets, so f - f(empty)
is exactly the weighted coverage of the elements.

Certificate: f(S) - f(empty) <= total element weight for every S (no other
target can gain), and the blocks together cost <= B and cover every element,
so they are optimal. `certify` checks both facts on the built objective.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from packbench.algorithms import Item

__all__ = ["ChainParams", "ChainInstance", "build_chain", "predicted_ratio", "ratio_through_pack", "certify"]


@dataclass(frozen=True)
class ChainParams:
    """The few numbers that define one instance (what a claims record stores).

    Attributes:
        costs: Block costs as fractions of the budget (sum <= 1).
        values: Block values as fractions of the optimum (normalised to sum 1).
        budget: Token budget B for the candidates.
        step: Tokens per decoy.
        eps: Relative margin by which each decoy beats the best block.
        tilt: Per-block weights of the water-filling (1 = fill by true density; a larger tilt drains that
            block sooner). Each decoy still beats every fitting block's true density.
    """

    costs: tuple[float, ...]
    values: tuple[float, ...]
    budget: int = 2000
    step: int = 10
    eps: float = 1e-6
    tilt: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.costs) != len(self.values) or not self.costs:
            raise ValueError(f"ChainParams: costs and values need the same non-zero length, got "
                             f"{len(self.costs)} and {len(self.values)}")
        if any(not (math.isfinite(c) and c > 0) for c in self.costs) or sum(self.costs) > 1 + 1e-12:
            raise ValueError(f"ChainParams: costs must be positive fractions summing to <= 1, got {self.costs}")
        if any(not (math.isfinite(v) and v > 0) for v in self.values):
            raise ValueError(f"ChainParams: values must be positive, got {self.values}")
        if self.tilt is not None and (len(self.tilt) != len(self.costs)
                                      or any(not (math.isfinite(w) and w > 0) for w in self.tilt)):
            raise ValueError(f"ChainParams: tilt needs one positive weight per block, got {self.tilt}")
        if self.budget < 10 or self.step < 1 or not 0 < self.eps < 1e-2:
            raise ValueError(f"ChainParams: need budget >= 10, step >= 1, 0 < eps < 0.01; got budget="
                             f"{self.budget}, step={self.step}, eps={self.eps}")

    def block_tokens(self) -> list[int]:
        """Token cost of each block: floor(c_i * B), at least 1."""
        return [max(1, int(math.floor(c * self.budget))) for c in self.costs]

    def to_json(self) -> dict:
        """The parameters as a JSON-ready dict."""
        return {"costs": list(self.costs), "values": list(self.values), "budget": self.budget,
                "step": self.step, "eps": self.eps, "tilt": None if self.tilt is None else list(self.tilt)}

    @classmethod
    def from_json(cls, obj: dict) -> "ChainParams":
        """Inverse of `to_json`."""
        tilt = obj.get("tilt")
        return cls(tuple(obj["costs"]), tuple(obj["values"]), int(obj["budget"]), int(obj["step"]),
                   float(obj["eps"]), None if tilt is None else tuple(tilt))


@dataclass(frozen=True)
class ChainInstance:
    """A built instance.

    Attributes:
        params: What it was built from.
        items: Pinned item first, then decoys (chain order), blocks, elements.
        budget: Token budget passed to `pack` (candidates' budget + the pinned item's token).
        sim: The full similarity matrix over `items` (the callable reads it).
        weights: Weight of each element (the elements are the last ``len(weights)`` items).
        optimal_ids: Ids of the blocks (the optimal set).
        decoy_gains: Coverage gain of each decoy in chain order.
    """

    params: ChainParams
    items: tuple[Item, ...]
    budget: int
    sim: np.ndarray
    weights: np.ndarray
    optimal_ids: tuple[str, ...]
    decoy_gains: tuple[float, ...]

    @property
    def total_weight(self) -> float:
        """f(OPT) - f(empty): the weight of every element."""
        return math.fsum(self.weights.tolist())

    def similarity(self):
        """The callable similarity for `pack` (reads `sim` by item id)."""
        where = {it.id: k for k, it in enumerate(self.items)}
        sim = self.sim

        def lookup(a: Item, b: Item) -> float:
            return float(sim[where[a.id], where[b.id]])
        return lookup


def _water_fill(m: np.ndarray, c: np.ndarray, live: np.ndarray, amount: float) -> np.ndarray:
    """Reductions of the live blocks' marginals m (costs c) totalling `amount`, densest first.

    Lowers the density level L until sum over live blocks of max(0, m_i - L c_i)
    equals `amount` (capped at what is left).
    """
    idx = np.flatnonzero(live & (m > 0))
    out = np.zeros_like(m)
    if idx.size == 0:
        return out
    amount = min(amount, float(m[idx].sum()))
    dens = m[idx] / c[idx]
    order = np.argsort(-dens)
    taken_cost, taken_mass, level = 0.0, 0.0, 0.0
    for pos, k in enumerate(order):
        # Lowering to level dens[k] takes (sum m - level * sum c) over the blocks above it.
        taken_cost += c[idx[k]]
        taken_mass += m[idx[k]]
        nxt = dens[order[pos + 1]] if pos + 1 < len(order) else 0.0
        if taken_mass - nxt * taken_cost >= amount:
            level = (taken_mass - amount) / taken_cost
            break
    red = np.maximum(0.0, m[idx] - level * c[idx])
    out[idx] = red * (amount / red.sum()) if red.sum() > 0 else 0.0
    return out


def _chain(params: ChainParams) -> tuple[list[int], list[np.ndarray], np.ndarray, int]:
    """Decoy token counts, each decoy's reduction per block, the blocks' leftovers (units of OPT = 1), room left."""
    c = np.array(params.block_tokens(), dtype=float)
    fill_cost = c / params.budget / (np.ones_like(c) if params.tilt is None else np.array(params.tilt))
    v = np.array(params.values, dtype=float)
    m = v / v.sum()
    room = params.budget
    steps, cuts = [], []
    while True:
        live = c <= room
        if not live.any() or m[live].max() <= 1e-12:
            break
        size = min(params.step, room)
        g = float((m[live] / c[live]).max())
        if g * size * (1 + params.eps) > m[live].sum():
            break  # the blocks still in play are nearly used up: a decoy could no longer beat them
        red = _water_fill(m, fill_cost, live, g * size * (1 + params.eps))
        if red.sum() <= 0:
            break
        m = m - red
        steps.append(size)
        cuts.append(red)
        room -= size
    return steps, cuts, m, room


def _tail(params: ChainParams, left: np.ndarray, room: int) -> float:
    """What greedy adds after the chain: blocks whose leftover is positive and that still fit, densest first."""
    c = params.block_tokens()
    left, gained = left.copy(), 0.0
    while True:
        fits = [i for i in range(len(c)) if c[i] <= room and left[i] > 0]
        if not fits:
            return gained
        i = max(fits, key=lambda b: (left[b] / c[b], -b))
        gained += float(left[i])
        left[i], room = 0.0, room - c[i]


def predicted_ratio(params: ChainParams) -> float:
    """max(greedy, best block) / OPT as the chain is designed (no `pack` call): the search's objective."""
    _, cuts, left, room = _chain(params)
    v = np.array(params.values, dtype=float)
    greedy = float(sum(r.sum() for r in cuts)) + _tail(params, left, room)
    return max(greedy, float(v.max() / v.sum()))


def build_chain(params: ChainParams) -> ChainInstance:
    """The items, budget and similarity of the instance `params` describes.

    Raises:
        ValueError: The chain is empty (no decoy can be built).
    """
    steps, cuts, left, _ = _chain(params)
    if not steps:
        raise ValueError("build_chain: no decoy fits; the blocks are larger than the budget")
    # Scale so the largest element weighs 1 (similarities live in [0, 1]).
    pieces: list[tuple[int, int, float]] = []  # (covering decoy or -1, block, weight in OPT units)
    for j, red in enumerate(cuts):
        pieces += [(j, i, float(r)) for i, r in enumerate(red) if r > 0]
    scale = 1.0 / max(w for _, _, w in pieces)
    for i, rest in enumerate(left):
        if rest * scale > 1e-9:
            n = int(math.ceil(rest * scale))
            pieces += [(-1, i, float(rest) / n)] * n
    k = len(params.costs)
    n_dec, n_el = len(steps), len(pieces)
    over = params.budget + 1  # an element never fits: it is only a coverage target
    items = [Item("pin", "pin", 0.0, 1, pinned=True)]
    items += [Item(f"g{j}", f"g{j}", 0.0, steps[j]) for j in range(n_dec)]
    items += [Item(f"o{i}", f"o{i}", 0.0, t) for i, t in enumerate(params.block_tokens())]
    items += [Item(f"e{e}", f"e{e}", 0.0, over) for e in range(n_el)]
    n = len(items)
    sim = np.zeros((n, n))
    np.fill_diagonal(sim, 1.0)
    sim[0, 1:1 + n_dec + k] = sim[1:1 + n_dec + k, 0] = 1.0
    weights = np.empty(n_el)
    first_el = 1 + n_dec + k
    for e, (j, i, w) in enumerate(pieces):
        weights[e] = w * scale
        col = first_el + e
        rows = [1 + n_dec + i] + ([1 + j] if j >= 0 else [])
        for r in rows:
            sim[r, col] = sim[col, r] = weights[e]
    gains = tuple(float(sum(w * scale for jj, _, w in pieces if jj == j)) for j in range(n_dec))
    return ChainInstance(params, tuple(items), params.budget + 1, sim, weights,
                         tuple(f"o{i}" for i in range(k)), gains)


def ratio_through_pack(inst: ChainInstance) -> tuple[float, float, float]:
    """(ratio, strategy's f - f(empty), optimum's f - f(empty)) of the shipped `submodular` via `pack`."""
    from packbench.algorithms import pack

    packing = pack(list(inst.items), inst.budget, near_dup=None, strategy="submodular", objective="linear",
                   lam=1.0, similarity=inst.similarity())
    got = float(packing.info["objective"]) - float(packing.info["objective_empty"])
    opt = inst.total_weight
    return got / opt, got, opt


def certify(inst: ChainInstance) -> dict:
    """Check the optimum by design; returns the certificate's figures.

    Raises:
        RuntimeError: A fact the certificate rests on does not hold (names it).
    """
    from packbench.algorithms.strategies.submodular import SubmodularObjective

    cands = [it for it in inst.items if not it.pinned]
    pinned = [it for it in inst.items if it.pinned]
    f = SubmodularObjective(cands, pinned, lam=1.0, similarity=inst.similarity(), objective="linear")
    n_el = len(inst.weights)
    targets = f.n - n_el
    if not np.all(f.base_cover[:targets] == 1.0):
        raise RuntimeError("certificate: a block or decoy target is not covered by the pinned item")
    room = inst.budget - sum(it.tokens for it in pinned)
    if any(it.tokens <= room for it in cands[targets:]):
        raise RuntimeError("certificate: an element fits the room, so it could cover itself")
    reach = f.sim[:targets, targets:].max(axis=0)  # elements never fit: only blocks and decoys can cover
    if not np.allclose(reach, inst.weights, rtol=0, atol=1e-12):
        raise RuntimeError("certificate: an element is worth more to some item than its weight")
    where = {it.id: k for k, it in enumerate(cands)}
    opt = [where[i] for i in inst.optimal_ids]
    used = sum(cands[k].tokens for k in opt)
    if used > room:
        raise RuntimeError(f"certificate: the blocks need {used} tokens, over the room {room}")
    value = f.value(opt) - f.value([])
    if abs(value - inst.total_weight) > 1e-9 * inst.total_weight:
        raise RuntimeError(f"certificate: the blocks cover {value}, not every element ({inst.total_weight})")
    return {"upper_bound": inst.total_weight, "optimum": value, "optimal_tokens": used, "room": room,
            "elements": n_el, "items": len(inst.items)}


def chain_ratio_parts(inst: ChainInstance) -> Sequence[float]:
    """Greedy's designed value and the best block's value, in units of the optimum."""
    v = np.array(inst.params.values, dtype=float)
    return (sum(inst.decoy_gains) / inst.total_weight, float(v.max() / v.sum()))
