"""Git revisions for the paired benchmark: which REF to compare with, and REF's tree on disk.

REF's tree is exported with ``git archive`` into a temporary directory: the
same files a temporary ``git worktree`` would check out, without registering a
worktree in the repository (nothing to clean up in ``.git`` if the run dies).
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

__all__ = ["RevisionError", "git_toplevel", "repo_root", "resolve", "default_ref", "export_tree", "head_commit"]

# Branch names tried, in order, for "the main branch".
MAIN_BRANCHES = ("main", "origin/main", "master", "origin/master")


class RevisionError(ValueError):
    """A revision could not be found or exported (the gate exits 2)."""


def _git(repo: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    except OSError:  # no git installed
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_toplevel(start: Path) -> Path | None:
    """The top of the git checkout holding `start` (any repository), or None."""
    top = _git(start, "rev-parse", "--show-toplevel")
    return None if top is None else Path(top).resolve()


def repo_root(start: Path) -> Path | None:
    """The top of the git checkout holding `start` if it is a packbench source tree, else None."""
    top = _git(start, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    root = Path(top)
    return root if (root / "pyproject.toml").is_file() and (root / "experiments").is_dir() else None


def resolve(repo: Path, ref: str) -> str:
    """The commit hash of `ref`.

    Raises:
        RevisionError: `ref` names no commit of `repo`.
    """
    sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if not sha:
        raise RevisionError(f"REF {ref!r} is not a commit of {repo} (a shallow clone lacks history: fetch it)")
    return sha


def head_commit(repo: Path) -> str | None:
    """HEAD's commit hash, or None outside a repository."""
    return _git(repo, "rev-parse", "--verify", "--quiet", "HEAD")


def default_ref(repo: Path, baseline_commit: str | None = None) -> tuple[str, str] | None:
    """The revision to compare with when none is given, and why it was chosen.

    The merge-base of HEAD with the main branch; when that is HEAD itself (CI
    on main, or a branch with nothing new), HEAD's first parent; without a
    main branch, the commit recorded in the committed baseline, if the
    repository has it.

    Returns:
        (commit hash, description) or None when there is no usable history.
    """
    head = head_commit(repo)
    if head is None:
        return None
    for branch in MAIN_BRANCHES:
        if _git(repo, "rev-parse", "--verify", "--quiet", branch) is None:
            continue
        base = _git(repo, "merge-base", "HEAD", branch)
        if base and base != head:
            return base, f"merge-base of HEAD with {branch}"
        parent = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD~1")
        if parent:
            return parent, f"HEAD~1 (HEAD is the merge-base with {branch})"
        break
    if baseline_commit and _git(repo, "rev-parse", "--verify", "--quiet", f"{baseline_commit}^{{commit}}"):
        return baseline_commit, "the commit recorded in the baseline"
    return None


def export_tree(repo: Path, sha: str, dest: Path) -> Path:
    """Write the files of commit `sha` under `dest` and return `dest`.

    Raises:
        RevisionError: git could not archive the commit.
    """
    try:
        out = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", sha],
                             capture_output=True, check=False)
    except OSError as exc:
        raise RevisionError(f"cannot run git to export {sha}: {exc}") from exc
    if out.returncode != 0:
        raise RevisionError(f"git archive {sha} failed: {out.stderr.decode(errors='replace').strip()}")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(out.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return dest
