"""Where a result came from: package and library versions, git commit, machine, start time, code fingerprints."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import inspect
import os
import platform
import subprocess
import sys
import types
from importlib import metadata
from pathlib import Path

__all__ = ["REPO_ROOT", "provenance", "git_commit", "relative_to_repo", "code_fingerprint", "run_code", "code_changes",
           "CODE_PARTS", "machine", "load_average"]

# The code behind a row, part by part: what chose (strategy), arranged (order), built the instance
# (source), scored it (metrics), removed duplicates (dedupe), filled leftover room (fill) and gave the
# optimum the score ratio divides by (reference).
CODE_PARTS = ("strategy", "order", "source", "metrics", "dedupe", "fill", "reference")

REPO_ROOT = Path(__file__).resolve().parents[1]


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def git_commit(root: Path = REPO_ROOT) -> tuple[str | None, bool | None]:
    """(HEAD commit, whether the work tree has changes), or (None, None) outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    return head or None, bool(status.strip())


def provenance() -> dict[str, object]:
    """Flat provenance fields recorded with every row and in the manifest.

    Returns:
        ``package_version``, ``git_commit``, ``git_dirty``, ``python``,
        ``numpy``, ``ortools``, ``platform``, ``cpus`` and ``started_at``
        (UTC, ISO 8601).
    """
    commit, dirty = git_commit()
    return {
        "package_version": _version("packbench"),
        "git_commit": commit,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "ortools": _version("ortools"),
        "platform": f"{platform.system()}-{platform.machine()}",
        "cpus": os.cpu_count(),
        "started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:  # Linux; elsewhere platform's answer
            for line in fh:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or None


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, or None where the system has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def machine() -> dict[str, object]:
    """What the manifest records about the machine, so runtimes can be judged later.

    Returns:
        ``cpu_model``, ``cores`` (logical CPUs), ``cores_usable`` (this process's CPU affinity) and
        ``load_start`` (`load_average` now).
    """
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu_model": _cpu_model(), "cores": os.cpu_count(), "cores_usable": usable,
            "load_start": load_average()}


def relative_to_repo(path: str | Path) -> str:
    """`path` relative to the repository (or to the working directory), never a machine path.

    Paths outside both are reduced to their file name, so results never leak
    absolute locations of the machine they ran on.
    """
    p = Path(path).resolve()
    for base in (REPO_ROOT, Path.cwd().resolve()):
        try:
            return p.relative_to(base).as_posix()
        except ValueError:
            continue
    return p.name


@functools.lru_cache(maxsize=1)
def _distributions() -> dict[str, list[str]]:
    return metadata.packages_distributions()


def _module_files(module: types.ModuleType) -> dict[str, str]:
    """Module name -> source file of `module` and of the modules of its own top-level package it imports."""
    top = module.__name__.partition(".")[0]
    found = {module.__name__: getattr(module, "__file__", None)}
    for value in vars(module).values():
        mod = value if isinstance(value, types.ModuleType) else sys.modules.get(getattr(value, "__module__", "") or "")
        if mod is not None and mod.__name__.partition(".")[0] == top:
            found.setdefault(mod.__name__, getattr(mod, "__file__", None))
    return {name: file for name, file in found.items() if file}


@functools.lru_cache(maxsize=None)
def code_fingerprint(*components: type) -> str:
    """A fingerprint of the code behind `components` (e.g. a run's strategy class; rows use `run_code`).

    For each component: the SHA-256 of the source files of its module and of
    the modules of the same top-level package that this module imports
    directly (helpers, base classes), plus the name and version of the
    distribution that installs it. It changes when that code is edited, and
    not when unrelated files of the repository are (a commit-based
    fingerprint would redo every run after any commit). Edits deeper in the
    import graph (e.g. `pack` itself, or the runner) are not seen: pass ``--force`` then.

    Returns:
        ``"<distribution>==<version>:<16 hex digits>"`` (``"local:..."`` for code that no
        installed distribution owns).
    """
    digest = hashlib.sha256()
    dists = set()
    # A wrapper class (e.g. around a user's plain function) names what it wraps in __wrapped__.
    components = tuple(c for comp in components for c in (comp, getattr(comp, "__wrapped__", None)) if c is not None)
    for comp in components:
        module = sys.modules.get(getattr(comp, "__module__", "") or "")
        files = _module_files(module) if module is not None else {}
        if not files:  # defined interactively or in __main__ without a file: hash what can be read
            try:
                digest.update(inspect.getsource(comp).encode("utf-8"))
            except (OSError, TypeError):
                digest.update(comp.__qualname__.encode("utf-8"))
        for name in sorted(files):
            digest.update(name.encode("utf-8") + b"\0")
            try:
                digest.update(Path(files[name]).read_bytes())
            except OSError:
                digest.update(b"<unreadable>")
        top = (getattr(comp, "__module__", "") or "").partition(".")[0]
        for dist in _distributions().get(top, []):
            dists.add(f"{dist}=={_version(dist)}")
    return f"{'+'.join(sorted(dists)) or 'local'}:{digest.hexdigest()[:16]}"


@functools.cache
def _run_code(parts: tuple[tuple[str, type], ...]) -> str:
    dists: set[str] = set()
    hexes = []
    for name, comp in parts:
        where, _, digest = code_fingerprint(comp).rpartition(":")
        dists.update(d for d in where.split("+") if d != "local")
        hexes.append(f"{name}={digest[:10]}")
    return f"{'+'.join(sorted(dists)) or 'local'}:{','.join(hexes)}"


def run_code(parts: dict[str, type]) -> str:
    """The code fingerprint a row records: one `code_fingerprint` per part of `CODE_PARTS`.

    Args:
        parts: Part name -> the component (class) that ran it.

    Returns:
        ``"<distributions>:strategy=<10 hex>,order=<10 hex>,..."``, so that `code_changes` can say which
        part changed.
    """
    return _run_code(tuple(parts.items()))


def code_changes(old: object, new: str) -> list[str]:
    """The parts of `CODE_PARTS` whose code differs between two `run_code` fingerprints.

    Returns:
        The changed part names in `new`'s order; ``["packbench version"]`` when only the
        distributions differ, ``["fingerprint format"]`` for a fingerprint of an older packbench.
    """
    if old == new:
        return []
    def parse(code: object) -> tuple[str, dict[str, str]] | None:
        if not isinstance(code, str) or "=" not in code:
            return None
        where, _, rest = code.partition(":")
        try:
            return where, dict(part.split("=", 1) for part in rest.split(","))
        except ValueError:
            return None

    before, after = parse(old), parse(new)
    if before is None or after is None:
        return ["fingerprint format"]
    changed = [name for name, digest in after[1].items() if before[1].get(name) != digest]
    return changed or ["packbench version"]
