"""Where a result came from: package and library versions, git commit, machine, start time."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

__all__ = ["REPO_ROOT", "provenance", "git_commit", "relative_to_repo"]

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
