"""The config sections that other packages own, validated by those packages.

`ExperimentConfig` validates what planning reads; ``plots`` belongs to the report and ``gate`` to
`packbench gate`, so the config module imports neither (no import circle through them) and this
module, above all three, asks each owner to check its section. `packbench run`, `packbench gate` and
`runner.run_experiment` call it before any work.
"""

from __future__ import annotations

from .config import ExperimentConfig

__all__ = ["check_sections"]


def check_sections(config: ExperimentConfig, origin: str = "<config>") -> None:
    """Validate the sections of `config` owned by the report (``plots``) and the gate (``gate``).

    Raises:
        ValueError: An unknown plot or a bad tolerance; the message names the file and the key.
    """
    from .gate.tolerances import parse_tolerances
    from .report import plot_names

    try:
        plot_names(config.plots)
    except ValueError as exc:
        raise ValueError(f"{origin}: invalid config: plots: {exc}") from None
    parse_tolerances(config.gate, origin=f"{origin}: invalid config: gate")
