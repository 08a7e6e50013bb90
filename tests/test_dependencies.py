"""Core dependencies are what the library and the main job import; benchmark-only packages are an extra."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements):
    return {r.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower()
            for r in requirements}


def test_datasketch_is_a_bench_extra_not_a_core_dependency():
    assert "datasketch" not in _names(PROJECT["dependencies"])
    assert "datasketch" in _names(PROJECT["optional-dependencies"]["bench"])


def test_library_import_and_pack_load_no_experiment_dependency():
    code = ("import sys, packbench; "
            "packbench.pack([packbench.Item('a', 'alpha beta', 1.0, 2)], budget=4); "
            "print(sorted(m for m in ('datasketch', 'pandas', 'matplotlib', 'ortools', 'pydantic', 'bm25s') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_missing_datasketch_names_the_extra(monkeypatch):
    from packbench.algorithms import Item
    from packbench.experiments.bench.minhash_compare import dedupe_datasketch

    monkeypatch.setitem(sys.modules, "datasketch", None)  # import datasketch -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'packbench\[bench\]'"):
        dedupe_datasketch([Item("a", "one two three", 1.0, 3)], [], 0.8)
