"""The install layout: one import name, every package listed, a version and a module entry point."""

import subprocess
import sys
import tomllib
from pathlib import Path

import packbench

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"packbench"}
    for top in ("algorithms", "experiments"):
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).parts
            found.add(".".join(("packbench",) + rel))
    for init in (ROOT / "packbench").rglob("__init__.py"):  # packbench.testing and any other under packbench/
        found.add(".".join(init.parent.relative_to(ROOT).parts))
    # Data-only packages (configs, the bench baseline) have no __init__.py but must ship their files.
    data_only = set(config.get("package-data", {})) - found
    assert all(not (ROOT / config["package-dir"][pkg] / "__init__.py").exists() for pkg in data_only)
    assert found - listed == set(), "folders missing from [tool.setuptools] packages"
    assert listed - found - data_only == set(), "packages listed that have no folder"


def test_version_and_module_entry_point(tmp_path):
    out = subprocess.run([sys.executable, "-m", "packbench", "--version"], cwd=tmp_path,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"packbench {packbench.__version__}"
    assert packbench.__version__ != "0+unknown"


def test_public_api_packs():
    items = [packbench.Item("a", "alpha beta", 2.0, 3), packbench.Item("b", "gamma delta", 1.0, 3)]
    assert packbench.pack(items, budget=3).ids == ["a"]
