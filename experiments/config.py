"""Typed experiment configs: TOML validated by pydantic at load time.

A config names the instance sources (families or corpora) with their
parameters, the strategies with their parameter grids, budgets, dedupe
thresholds, orders, seeds, the reference for the score ratio, the utility
curve and the plots (``seeds`` may be a range: ``{ start = 0, stop = 1000 }``).
In ``seeds``, ``budgets``, ``near_dup`` and ``orders``,
and in every source/strategy/order parameter, a list sweeps (the runs are the
cartesian product) and a scalar is fixed. A parameter whose value is itself a
list (e.g. curve weights) is swept by wrapping: ``curve = [[1.0, 0.5, 0.8]]``.
A source may override ``budgets``, ``near_dup`` and ``orders`` for its runs, and
leave strategies of the config out of them (``skip_strategies = ["bnb"]``).

Example (see ``configs/*.toml``)::

    name = "demo"
    budgets = [0.25, 0.5, "natural"]  # int: tokens; float in (0, 1]: share of all tokens
    near_dup = [0.8, "off"]
    [[sources]]
    name = "pisinger"
    cls = ["uncorrelated", "strongly_correlated"]
    [[strategies]]
    name = "cpsat"
    time_limit = [0.2, 1.0]

Unknown keys, wrong types and unknown names are errors naming the key and
listing the valid choices. Registries are read when a config is validated, so
sources and strategies registered later need no change here.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator, ValidationError,
                      field_validator, model_validator)

__all__ = ["ExperimentConfig", "SourceEntry", "StrategyEntry", "OrderEntry", "load_config", "parse_config",
           "source_registry", "registry", "layers", "DEFAULT_CURVE", "sweep", "check_budgets", "check_near_dup"]

# The utility curve when a config names none: Liu et al. 2024, GPT-3.5-Turbo with 20 documents
# (a preset of algorithms/orders/curves.py).
DEFAULT_CURVE = "gpt-3.5-turbo-20"


def source_registry() -> Any:
    """Families and corpora by name (one `Registry`; a name in both is an error)."""
    from .corpora import CORPORA
    from .families import FAMILIES
    return CORPORA.merged(FAMILIES, "family or corpus", group="packbench.sources")


def registry(layer: str) -> Any:
    """The `Registry` of one config layer: "source", "strategy" or "order"."""
    from packbench.algorithms import ORDERS, STRATEGIES
    return {"source": source_registry, "strategy": lambda: STRATEGIES, "order": lambda: ORDERS}[layer]()


def layers() -> tuple[Any, ...]:
    """Every pluggable layer (`packbench.algorithms.component.Layer`): the library's, then the sources."""
    from packbench.algorithms.component import Layer
    from packbench.algorithms.registry import LAYERS
    return (*LAYERS, Layer("family or corpus", source_registry, "sources", exercised=True))


def sweep(params: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """All combinations of swept parameter values, in a stable order (names sorted)."""
    names = sorted(params)
    return [dict(zip(names, combo)) for combo in itertools.product(*(params[n] for n in names))]


def check_budgets(budgets: list[Any]) -> list[Any]:
    """Budgets are ints (tokens), floats in (0, 1] (share of the instance's tokens) or "natural"."""
    for pos, b in enumerate(budgets):
        if isinstance(b, str) and b == "natural":
            continue
        if isinstance(b, bool) or not isinstance(b, (int, float)):
            raise ValueError(f"budgets[{pos}]: {b!r} is not a budget; use an int (tokens), a float in "
                             f"(0, 1] (share of the instance's tokens) or \"natural\"")
        if isinstance(b, int) and b < 0 or isinstance(b, float) and not 0.0 < b <= 1.0:
            bound = ">= 0" if isinstance(b, int) else "in (0, 1] (a float budget is a share of the tokens)"
            raise ValueError(f"budgets[{pos}]: must be {bound}, got {b!r}")
    return budgets


def check_near_dup(values: list[Any]) -> list[Any]:
    """Dedupe thresholds are numbers in [0, 1] or "off"."""
    for pos, v in enumerate(values):
        if not (isinstance(v, str) and v == "off") and (
                isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0):
            raise ValueError(f"near_dup[{pos}]: must be a Jaccard threshold in [0, 1] or \"off\", got {v!r}")
    return [v if v == "off" else float(v) for v in values]


def _seed_range(spec: dict[str, Any]) -> range:
    """``seeds = { start = 0, stop = 1000 }`` (``step`` optional): ``range(start, stop, step)``, never a list.

    Kept a `range` so that a config of 10^9 seeds costs nothing to load; planning counts it lazily
    (`experiments.sizes`).
    """
    unknown = sorted(set(spec) - {"start", "stop", "step"})
    if unknown or "stop" not in spec:
        raise ValueError(f"seeds: a range is {{ start = A, stop = B, step = C }} (stop required, start 0 and step 1 "
                         f"by default), got keys {sorted(spec)}")
    bounds = {k: spec.get(k, d) for k, d in (("start", 0), ("stop", None), ("step", 1))}
    for key, value in bounds.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"seeds.{key}: must be an int, got {value!r}")
    if bounds["step"] < 1 or bounds["start"] < 0 or bounds["stop"] <= bounds["start"]:
        raise ValueError(f"seeds: need 0 <= start < stop and step >= 1, got {bounds}")
    return range(bounds["start"], bounds["stop"], bounds["step"])


def check_seeds(value: Any) -> list[int] | range:
    """Seeds are a non-empty list of ints >= 0 (the sources seed numpy generators, which reject negative
    seeds at run time) or a `range` of them (from ``{ start, stop, step }``)."""
    if isinstance(value, range):
        return value
    if not isinstance(value, list) or not value:
        raise ValueError(f"must be a non-empty list of ints or {{ start = A, stop = B }}, got {value!r}")
    for pos, seed in enumerate(value):
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seeds[{pos}]: must be an int greater than or equal to 0, got {seed!r}")
    return value


def _dump_seeds(value: list[int] | range) -> Any:
    return {"start": value.start, "stop": value.stop, "step": value.step} if isinstance(value, range) else value


Budgets = Annotated[list[Any], Field(min_length=1), AfterValidator(check_budgets)]
Seeds = Annotated[Any, PlainValidator(check_seeds), PlainSerializer(_dump_seeds)]
NearDups = Annotated[list[Any], Field(min_length=1), AfterValidator(check_near_dup)]


class _Entry(BaseModel):
    """A registered name plus its parameters given as keyword fields (lists sweep)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    LAYER: ClassVar[str] = ""
    LABEL: ClassVar[str] = ""
    OVERRIDES: ClassVar[tuple[str, ...]] = ()

    name: str
    params: dict[str, list[Any]] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _split_params(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"name": data, "params": {}}
        if not isinstance(data, dict):
            raise ValueError(f"must be a name or a table with 'name' and parameters, got {type(data).__name__}")
        if "name" not in data:
            raise ValueError(f"missing key 'name' (the {cls.LABEL}); valid: {', '.join(sorted(registry(cls.LAYER)))}")
        params = {k: v if isinstance(v, list) else [v] for k, v in data.items()
                  if k != "name" and k not in cls.OVERRIDES}
        for key, values in params.items():
            if not values:
                raise ValueError(f"parameter {key!r} has an empty list of values")
        overrides = {k: data[k] if isinstance(data[k], list) else [data[k]] for k in cls.OVERRIDES if k in data}
        return {"name": data["name"], "params": params, **overrides}

    @model_validator(mode="after")
    def _check_registered(self) -> "_Entry":
        cls = registry(self.LAYER).lookup(self.name)
        for combo in sweep(self.params):
            try:  # validates names, types and ranges of this combination
                cls(**combo)
            except TypeError as exc:  # pydantic reports ValueErrors with their location
                raise ValueError(str(exc)) from None
        return self

    def grid(self) -> list[dict[str, Any]]:
        """The parameter combinations of this entry."""
        return sweep(self.params)


class SourceEntry(_Entry):
    """A family or corpus and its parameters; it may override budgets, near_dup, orders and skip strategies."""

    LAYER: ClassVar[str] = "source"
    LABEL: ClassVar[str] = "family or corpus"
    OVERRIDES: ClassVar[tuple[str, ...]] = ("budgets", "near_dup", "orders", "skip_strategies")

    budgets: Budgets | None = None
    near_dup: NearDups | None = None
    orders: list["OrderEntry"] | None = Field(None, min_length=1)
    skip_strategies: list[str] = Field(default_factory=list)


class StrategyEntry(_Entry):
    """A strategy and its parameter grid."""

    LAYER: ClassVar[str] = "strategy"
    LABEL: ClassVar[str] = "strategy"


class OrderEntry(_Entry):
    """An order and its parameter grid."""

    LAYER: ClassVar[str] = "order"
    LABEL: ClassVar[str] = "order"


SourceEntry.model_rebuild()


class ExperimentConfig(BaseModel):
    """A validated experiment config (see the module docstring for the format)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    description: str = ""
    sources: list[SourceEntry] = Field(min_length=1)
    strategies: list[StrategyEntry] = Field(min_length=1)
    orders: list[OrderEntry] = Field(default_factory=lambda: [OrderEntry(name="original")], min_length=1)
    seeds: Seeds = Field(default_factory=lambda: [0])
    budgets: Budgets | None = None
    near_dup: NearDups = Field(default_factory=lambda: [0.8])
    repeats: int = Field(3, ge=1, le=1000)
    reference: str | None = None
    reference_params: dict[str, Any] = Field(default_factory=dict)
    dedupe: str = "jaccard"
    # A fill (`pack(fill=...)`) for every run, with its default parameters; None: no fill.
    fill: str | None = None
    curve: str | list[float] = DEFAULT_CURVE
    # The report's plots (all when None) and the tolerances of `packbench gate`: validated by the packages
    # that own them (`report.plot_names`, `gate.tolerances.parse_tolerances`; `check_sections` runs both),
    # so validating a config imports neither the report nor the gate.
    plots: list[str] | None = None
    gate: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(cls.model_fields))
            if unknown:
                raise ValueError(f"unknown key(s) {', '.join(map(repr, unknown))}; valid keys: "
                                 f"{', '.join(cls.model_fields)}")
            data = dict(data)
            if isinstance(data.get("seeds"), dict):
                data["seeds"] = _seed_range(data["seeds"])
            for key in ("seeds", "budgets", "near_dup", "orders"):
                if key in data:
                    data[key] = data[key] if isinstance(data[key], (list, range)) else [data[key]]
        return data

    @field_validator("dedupe")
    @classmethod
    def _check_dedupe(cls, value: str) -> str:
        from packbench.algorithms import DEDUPE_METHODS
        DEDUPE_METHODS.lookup(value)  # a name, a plug-in's name or an import path, as in pack()
        return value

    @field_validator("fill")
    @classmethod
    def _check_fill(cls, value: str | None) -> str | None:
        from packbench.algorithms import FILLS
        if value is not None:
            FILLS.lookup(value)()  # resolves, and builds with its defaults as every run will
        return value

    @field_validator("curve")
    @classmethod
    def _check_curve(cls, value: str | list[float]) -> str | list[float]:
        from .metrics import position_weights
        position_weights(value, 3)  # raises with the valid presets or the broken bound
        return value

    @model_validator(mode="after")
    def _check_reference(self) -> "ExperimentConfig":
        from packbench.algorithms import STRATEGIES
        ref = self.reference_name
        try:  # a built-in name, a plug-in's name or an import path, as for any strategy
            ref_cls = STRATEGIES.lookup(ref)
        except ValueError as exc:
            raise ValueError(f"reference: {exc}") from None
        try:
            ref_cls(**self.reference_params)
        except TypeError as exc:
            raise ValueError(f"reference_params: {exc}") from None
        missing = [f"sources[{k}]" for k, src in enumerate(self.sources) if not (src.budgets or self.budgets)]
        if missing:
            raise ValueError(f"budgets: missing for {', '.join(missing)}; set budgets at the top level or in "
                             f"every source")
        names = {strategy.name for strategy in self.strategies}
        for k, src in enumerate(self.sources):
            unknown = [s for s in src.skip_strategies if s not in names]
            if unknown:
                raise ValueError(f"sources[{k}].skip_strategies: {', '.join(map(repr, unknown))} not among the "
                                 f"config's strategies ({', '.join(sorted(names))})")
            if names <= set(src.skip_strategies):
                raise ValueError(f"sources[{k}].skip_strategies: skips every strategy of the config, so the "
                                 f"source would have no runs; remove the source instead")
        orders = list(self.orders) + [o for src in self.sources for o in src.orders or ()]
        for strategy in self.strategies:
            for order in orders:
                shared = set(strategy.params) & set(order.params)
                if shared:
                    raise ValueError(f"strategy {strategy.name!r} and order {order.name!r} both set "
                                     f"{', '.join(sorted(shared))}; set it once")
        return self

    @property
    def reference_name(self) -> str:
        """The reference strategy: the configured one, else "exact" if registered, else "exact_dp"."""
        if self.reference is not None:
            return self.reference
        from packbench.algorithms import STRATEGIES
        return "exact" if "exact" in STRATEGIES else "exact_dp"

    def names(self, key: str) -> set[str]:
        """The component names the config uses under one of its keys (`Layer.config_key`), overrides included."""
        if key == "orders":
            return {o.name for o in self.orders} | {o.name for s in self.sources for o in s.orders or ()}
        if key in ("strategies", "sources"):
            return {entry.name for entry in getattr(self, key)}
        value = getattr(self, key)
        return set() if value is None else {value}


def _format_errors(exc: ValidationError, origin: str) -> str:
    lines = []
    for err in exc.errors():
        loc = ""
        for part in err["loc"]:
            loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "missing required key"
        elif err["type"] == "extra_forbidden":
            msg = f"unknown key; valid keys: {', '.join(ExperimentConfig.model_fields)}"
        elif "input" in err and err["type"].endswith("_type"):
            msg += f" (got {err['input']!r})"
        lines.append(f"{loc}: {msg}" if loc and not msg.startswith(loc) else msg)  # a message may name its item
    return f"{origin}: invalid config: " + "; ".join(lines)


def parse_config(data: Mapping[str, Any], origin: str = "<config>") -> ExperimentConfig:
    """Validate a config given as a dict (e.g. parsed TOML).

    Raises:
        ValueError: Any validation error; the message names the key and the valid choices.
    """
    try:
        return ExperimentConfig.model_validate(dict(data))
    except ValidationError as exc:
        raise ValueError(_format_errors(exc, origin)) from None
    except (TypeError, ValueError) as exc:  # raised by a registry class outside pydantic's wrapping
        raise ValueError(f"{origin}: invalid config: {exc}") from None


def load_config(path: str | Path) -> ExperimentConfig:
    """Read and validate a TOML config.

    Raises:
        FileNotFoundError: No such file.
        ValueError: Not UTF-8 (the message names the file, line, column and byte), invalid TOML or
            an invalid config.
    """
    path = Path(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ValueError(f"{path}: not UTF-8 (TOML files must be): byte 0x{raw[exc.start]:02x} at line {line}, "
                         f"column {column} (byte offset {exc.start}); save the file as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
    return parse_config(data, origin=str(path))
