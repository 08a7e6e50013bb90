"""One side of a paired A/B benchmark: a fresh process that times cases of one source tree on request.

Started by `abtest` as ``python -s -P worker.py --root TREE`` with no PYTHON*
variables but the hash seed (``--path DIR`` puts a user's project first on
``sys.path``); it imports nothing
of packbench itself before the import hook below points the ``packbench`` name
at TREE, so the same script can time the current checkout and an exported
older revision. It speaks JSON lines: requests on stdin, answers on the
original stdout (case code that prints goes to stderr instead).

Requests:
    ``{"op": "prepare", "cases": [...]|null, "skip_references": bool}``: set
    up and warm up each case (one untimed run, one calibration run; reference
    cases are left out when `skip_references`; the calibration doubles the calls
    until they last `CALIBRATION_SECONDS`); answers
    ``{"cases": {name: {"seconds", "quality", "reference"} | {"error"} | {"skipped"}}, "all": [...]}``.
    ``{"op": "time", "case": name, "loops": n, "repeats": r}``: answers
    ``{"seconds": s}``, the fastest of `r` windows of `n` back-to-back calls,
    per call. Seconds are CPU seconds of this process (all its threads): on a
    busy machine the time spent waiting for a core does not count, the work does.
    ``{"op": "quit"}``.

Its first line, once the suite is loaded, is ``{"ready": true, "kernels": {...}}``: whether each
optional C kernel of the tree runs compiled (`kernel_report`).

Only the standard library is imported here: the tree under test brings the rest.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import sys
import time
import tomllib
from importlib.machinery import PathFinder
from pathlib import Path
from typing import Any

# The suite module of trees installed as `packbench`, and of older trees that installed
# top-level `algorithms` and `experiments` packages (before the rename).
SUITE_MODULE = "packbench.experiments.bench.suite"
OLD_SUITE_MODULE = "experiments.bench.suite"


class TreeFinder:
    """Meta-path finder that maps ``packbench`` and its package-dir entries to one source tree.

    It answers for every name under ``packbench`` (not only the mapped ones),
    so an editable install of another tree cannot supply a submodule.
    """

    def __init__(self, mapping: dict[str, Path]):
        self.mapping = mapping

    def find_spec(self, fullname: str, path: Any = None, target: Any = None):
        if fullname.split(".")[0] != "packbench":
            return None
        if fullname in self.mapping:
            init = self.mapping[fullname] / "__init__.py"
            return importlib.util.spec_from_file_location(
                fullname, init, submodule_search_locations=[str(self.mapping[fullname])])
        parent = sys.modules.get(fullname.rpartition(".")[0])
        spec = PathFinder.find_spec(fullname, getattr(parent, "__path__", None) or [])
        if spec is None:
            # Not in this tree: no later finder may supply it (another tree's compiled extension
            # would be timed as this tree's).
            raise ModuleNotFoundError(f"No module named {fullname!r} in the tree under test", name=fullname)
        return spec


def install_tree(root: Path) -> str:
    """Make `root`'s code importable ahead of anything installed; returns the suite module name.

    Raises:
        ImportError: `root` holds no packbench benchmark suite.
    """
    if (root / "packbench" / "__init__.py").is_file():
        mapping = {"packbench": "packbench"}
        pyproject = root / "pyproject.toml"
        if pyproject.is_file():
            dirs = tomllib.loads(pyproject.read_text()).get("tool", {}).get("setuptools", {}).get("package-dir", {})
            mapping.update({k: v for k, v in dirs.items() if k.startswith("packbench")})
        # setuptools' editable finder sits in meta_path as a class (its type's module is "builtins").
        sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in str(getattr(f, "__module__", "")).lower()]
        sys.meta_path.insert(0, TreeFinder({name: root / d for name, d in mapping.items()}))
        return SUITE_MODULE
    if (root / "experiments" / "bench" / "suite.py").is_file():
        sys.path.insert(0, str(root))
        return OLD_SUITE_MODULE
    raise ImportError(f"{root} has no packbench benchmark suite (experiments/bench/suite.py)")


def load_cases(root: Path | None, suite_file: Path | None, quick: bool) -> dict[str, Any]:
    """The suite's cases by name: from `suite_file` (a file with ``build_suite(quick)``) or the tree's suite."""
    module_name = install_tree(root) if root is not None else SUITE_MODULE
    if suite_file is not None:
        spec = importlib.util.spec_from_file_location("_packbench_bench_suite", suite_file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while the file executes
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    return {case.name: case for case in module.build_suite(quick)}


# The optional C kernels: (a name for the report, module, source beside the module's package).
KERNELS = (("columns", "packbench.algorithms._columns_native", "_native/columns.c"),
           ("jaccard", "packbench.algorithms.dedupe._jaccard_native", "_native/jaccard.c"))


def kernel_report() -> dict[str, str]:
    """Each optional C kernel of the tree under test: "C" (its compiled module imports), "fallback"
    (its source is there but not built, or ``PACKBENCH_NATIVE=0`` switches it off) or "absent"
    (the tree has no such kernel)."""
    out = {}
    for name, module, source in KERNELS:
        package = module.rpartition(".")[0]
        try:
            dirs = list(getattr(importlib.import_module(package), "__path__", []))
        except ImportError:
            dirs = []
        if not any((Path(d) / source).is_file() for d in dirs):
            out[name] = "absent"
            continue
        try:
            importlib.import_module(module)
            built = True
        except ImportError:
            built = False
        out[name] = "C" if built and os.environ.get("PACKBENCH_NATIVE", "1") != "0" else "fallback"
    return out


def _jsonable(quality: dict[str, Any]) -> dict[str, Any]:
    # A round trip through JSON makes the answer equal to what the controller compares.
    return json.loads(json.dumps(quality, default=repr))


# Calibration times doublings of calls until they take this long: one call of a few microseconds
# is below what a single clock reading resolves, and its calls per timing would be miscounted.
CALIBRATION_SECONDS = 0.002


def _autorange(case: Any, state: Any) -> tuple[float, Any]:
    """(CPU seconds per call, the first call's result), from 1, 2, 4, ... calls until they last long enough."""
    calls = 1
    while True:
        start = time.process_time()
        result = case.run(state)
        for _ in range(calls - 1):
            case.run(state)
        spent = time.process_time() - start
        if spent >= CALIBRATION_SECONDS or calls >= 1 << 20:
            return spent / calls, result
        calls *= 2


def serve(cases: dict[str, Any], reply) -> None:
    """Answer requests from stdin until "quit" or end of input."""
    states: dict[str, Any] = {}
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "quit":
            return
        if req["op"] == "prepare":
            names = req.get("cases") or list(cases)
            out: dict[str, Any] = {}
            for name in names:
                if name not in cases:
                    continue
                reference = bool(getattr(cases[name], "reference", False))
                if reference and req.get("skip_references"):
                    out[name] = {"reference": True, "skipped": True}
                    continue
                try:
                    states[name] = cases[name].setup()
                    cases[name].run(states[name])  # warm-up: lazy imports, caches
                    gc.collect()
                    seconds, result = _autorange(cases[name], states[name])
                    out[name] = {"seconds": seconds,
                                 "quality": _jsonable(cases[name].quality(result)), "reference": reference}
                except Exception as exc:  # reported per case; the other cases still run
                    states.pop(name, None)
                    out[name] = {"error": f"{type(exc).__name__}: {exc}"}
            # Everything set up so far lives until the process ends: frozen, the collection before
            # each timing scans only what the timed calls left (microseconds, not the 30-40 ms a
            # full collection of the imported libraries took, hundreds of times per gate run).
            gc.collect()
            gc.freeze()
            reply({"cases": out, "all": list(cases)})
        elif req["op"] == "time":
            case, state = cases[req["case"]], states[req["case"]]
            loops, best = int(req.get("loops", 1)), float("inf")
            gc.collect()
            for _ in range(int(req.get("repeats", 1))):
                start = time.process_time()
                for _ in range(loops):
                    case.run(state)
                best = min(best, (time.process_time() - start) / loops)
            reply({"seconds": best})
        else:
            reply({"error": f"unknown op {req['op']!r}"})


def main() -> None:
    parser = argparse.ArgumentParser(description="one side of a paired benchmark")
    parser.add_argument("--root", type=Path, help="source tree to import packbench from (default: installed)")
    parser.add_argument("--suite-file", type=Path, help="a Python file with build_suite(quick)")
    parser.add_argument("--full", action="store_true", help="the full suite instead of the quick one")
    parser.add_argument("--path", type=Path, help="a user's project directory, put first on sys.path")
    args = parser.parse_args()
    if args.path is not None:  # -P left the working directory off sys.path; the project's modules need it
        sys.path.insert(0, str(args.path))
    channel = sys.stdout
    sys.stdout = sys.stderr  # case code must not write into the protocol

    def reply(obj: dict[str, Any]) -> None:
        channel.write(json.dumps(obj) + "\n")
        channel.flush()

    try:
        cases = load_cases(args.root, args.suite_file, quick=not args.full)
    except Exception as exc:  # the tree cannot be imported: one answer, then exit
        reply({"fatal": f"{type(exc).__name__}: {exc}"})
        return
    reply({"ready": True, "kernels": kernel_report()})
    serve(cases, reply)


if __name__ == "__main__":
    main()
