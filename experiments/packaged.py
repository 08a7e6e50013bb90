"""Files shipped inside the package: the experiment configs and the benchmark baseline.

The repository's ``configs/`` and ``results/bench/baseline.json`` are installed
as the data-only packages ``packbench.configs`` and ``packbench.baselines``
(see pyproject.toml), so an installed wheel finds them from any working
directory. They are located by path, not by import: setuptools' editable
finder cannot import a data-only package inside a regular one, and a checkout
(editable install) has them at the repository's own paths.
"""

from __future__ import annotations

from pathlib import Path, PurePath

__all__ = ["config_names", "packaged_config", "packaged_baseline"]

# The folder above experiments/: the repository root in a checkout, packbench/ in an installed wheel.
_ROOT = Path(__file__).resolve().parents[1]
# Where each data package lives: in a wheel, then in a checkout.
_FOLDERS = {"configs": (_ROOT / "configs",), "baselines": (_ROOT / "baselines", _ROOT / "results" / "bench")}
BASELINE_NAME = "baseline.json"


def _folder(kind: str) -> Path | None:
    return next((p for p in _FOLDERS[kind] if p.is_dir()), None)


def config_names() -> list[str]:
    """Names (without ``.toml``) of the shipped configs, sorted."""
    folder = _folder("configs")
    return sorted(p.stem for p in folder.glob("*.toml")) if folder else []


def packaged_config(name: str | PurePath) -> Path | None:
    """The shipped config a name refers to, or None.

    Accepted spellings: ``smoke``, ``smoke.toml`` and ``configs/smoke.toml`` (so
    the repository-relative paths in the docs work from any directory).

    Args:
        name: The config name or repository-relative path.

    Returns:
        The file, or None when no shipped config has that name.
    """
    parts = PurePath(name).parts
    if not parts or (len(parts) == 2 and parts[0] != "configs") or len(parts) > 2:
        return None
    stem = parts[-1][:-5] if parts[-1].endswith(".toml") else parts[-1]
    folder = _folder("configs")
    if folder is None or stem not in config_names():
        return None
    return folder / f"{stem}.toml"


def packaged_baseline() -> Path | None:
    """The shipped benchmark baseline (``results/bench/baseline.json`` of the release), or None."""
    folder = _folder("baselines")
    path = folder / BASELINE_NAME if folder else None
    return path if path is not None and path.is_file() else None
