"""The config's models: one entry per source, strategy and order, and the experiment around them."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .layers import registry
from .values import Budgets, NearDups, Seeds, seed_range, sweep

__all__ = ["ExperimentConfig", "SourceEntry", "StrategyEntry", "OrderEntry", "DEFAULT_CURVE"]

# The utility curve when a config names none: Liu et al. 2024, GPT-3.5-Turbo with 20 documents
# (a preset of algorithms/orders/curves.py).
DEFAULT_CURVE = "gpt-3.5-turbo-20"


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
                data["seeds"] = seed_range(data["seeds"])
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
        from ..metrics import position_weights
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
