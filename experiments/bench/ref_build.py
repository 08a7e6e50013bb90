"""REF's own C extensions for the paired benchmark, built once per commit and kept in a cache.

`revisions.export_tree` writes REF's files, not its build products: without this
step REF's worker ran the numpy fallback of every optional C kernel while the
current tree ran C, and each kernel's case compared C with numpy. Here REF's own
``setup.py`` builds its extensions in place (``build_ext --inplace``), with the
interpreter the workers run, and the built files are kept under
``$PACKBENCH_BUILD_CACHE`` (default ``~/.cache/packbench/ref-builds``) in a
folder named by the commit and the interpreter's extension suffix, so a later
check against the same REF copies them instead of compiling. Where nothing
could be built (no compiler, no Python headers: the extensions are optional),
REF runs its fallback and the result says so; a failed build is not cached,
so a machine that gains a compiler builds on its next run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE_ENV", "RefBuild", "cache_root", "build_extensions"]

CACHE_ENV = "PACKBENCH_BUILD_CACHE"
MANIFEST = "manifest.json"
# Two small C files compile in seconds; a build still running after this is not going to help the check.
BUILD_TIMEOUT = 300.0


@dataclass(frozen=True)
class RefBuild:
    """What `build_extensions` did for REF's tree.

    Attributes:
        status: "built" (compiled now), "cached" (copied from the cache), "fallback" (nothing could
            be built: REF runs its non-C paths) or "none" (REF has no setup.py to build from).
        files: The extension files placed in the tree, relative to it.
        note: One line for the report.
    """

    status: str
    files: tuple[str, ...]
    note: str


def cache_root() -> Path:
    """The cache folder: ``$PACKBENCH_BUILD_CACHE``, else ``~/.cache/packbench/ref-builds``."""
    env = os.environ.get(CACHE_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "packbench" / "ref-builds"


def _suffix() -> str:
    # The extension suffix names the interpreter and platform (".cpython-311-x86_64-linux-gnu.so"):
    # a build for another Python would not import.
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def _extensions(tree: Path) -> dict[str, int]:
    """The tree's extension files (relative paths) and their modification times."""
    return {p.relative_to(tree).as_posix(): p.stat().st_mtime_ns for p in tree.rglob(f"*{_suffix()}") if p.is_file()}


def build_extensions(tree: Path, sha: str, cache: Path | None = None, python: str | None = None,
                     timeout: float = BUILD_TIMEOUT) -> RefBuild:
    """Put REF's compiled extensions into its exported `tree`, from the cache or by building them.

    Args:
        tree: REF's exported files (`revisions.export_tree`); the extensions land beside their sources.
        sha: REF's commit hash (the cache key, with the extension suffix).
        cache: The cache folder (default `cache_root()`).
        python: The interpreter that builds (default this one, which the workers also run).
        timeout: Seconds the build may take before it counts as failed.

    Returns:
        What was done; never raises for a failed build (REF then runs its fallback).

    Raises:
        ValueError: `sha` is not a hexadecimal commit hash (it names a cache folder).
    """
    if not sha or any(c not in "0123456789abcdef" for c in sha.lower()):
        raise ValueError(f"REF commit must be a hexadecimal hash, got {sha!r}")
    if not (tree / "setup.py").is_file():
        return RefBuild("none", (), "REF has no setup.py: no C extensions to build")
    folder = (cache or cache_root()) / f"{sha.lower()}{_suffix().replace('.', '-')}"
    cached = _from_cache(folder, tree)
    if cached is not None:
        return RefBuild("cached", cached, f"REF's C extensions from the cache ({len(cached)} files)")
    before = _extensions(tree)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    with tempfile.TemporaryDirectory(prefix="packbench-ref-build-") as tmp:
        # --force: a tree that holds built files (committed by mistake) is rebuilt from its sources.
        cmd = [python or sys.executable, "setup.py", "-q", "build_ext", "--inplace", "--force",
               "--build-temp", str(Path(tmp) / "temp"), "--build-lib", str(Path(tmp) / "lib")]
        try:
            out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout,
                                 check=False)
            why = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"{type(exc).__name__}: {exc}"
    built = tuple(sorted(f for f, mtime in _extensions(tree).items() if before.get(f) != mtime))
    if not built:
        return RefBuild("fallback", (), f"REF's C extensions could not be built ({why}): REF runs its fallback")
    _store(folder, tree, built)
    return RefBuild("built", built, f"REF's C extensions built ({len(built)} files)")


def _from_cache(folder: Path, tree: Path) -> tuple[str, ...] | None:
    """Copy a cached build into `tree`; None when there is none (or it is incomplete)."""
    try:
        files = tuple(json.loads((folder / MANIFEST).read_text())["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not files or not all((folder / f).is_file() for f in files):
        return None
    for f in files:
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(folder / f, tree / f)
    return files


def _store(folder: Path, tree: Path, files: tuple[str, ...]) -> None:
    """Write `files` of `tree` into the cache `folder`, whole or not at all (a rename of a full folder)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
        for f in files:
            (staging / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(tree / f, staging / f)
        (staging / MANIFEST).write_text(json.dumps({"files": list(files)}))
        try:
            staging.rename(folder)
        except OSError:  # another check stored the same build first: keep that one
            shutil.rmtree(staging, ignore_errors=True)
    except OSError:  # a read-only home or a full disk: the build is used now, just not kept
        pass


def kernels_note(kernels_a: dict[str, str], kernels_b: dict[str, str], build: RefBuild | None = None,
                 labels: tuple[str, str] = ("current tree", "REF")) -> str:
    """One line for the check's header: each side's C kernels, the REF build, and a warning where they differ.

    Args:
        kernels_a: `ABResult.kernels_a` (the current tree's).
        kernels_b: `ABResult.kernels_b` (REF's).
        build: What `build_extensions` did for REF, if it ran.
        labels: The two sides' names.
    """
    def side(label: str, kernels: dict[str, str]) -> str:
        shown = ", ".join(f"{k} {v}" for k, v in sorted(kernels.items())) or "not reported"
        return f"{label} {shown}"

    note = f"kernels: {side(labels[0], kernels_a)}; {side(labels[1], kernels_b)}"
    if build is not None:
        note += f" ({build.note})"
    differ = sorted(k for k in set(kernels_a) & set(kernels_b)
                    if {kernels_a[k], kernels_b[k]} == {"C", "fallback"})
    if differ:
        note += (f"; WARNING: {', '.join(differ)} run{'s' if len(differ) == 1 else ''} C on one side and the "
                 f"fallback on the other, so the cases using {'it' if len(differ) == 1 else 'them'} compare "
                 f"two implementations, not two revisions")
    return note
