"""REF's C extensions for ``bench --check``: built from REF's own sources, cached by commit, imported by REF's worker.

A tiny git repository holds a package with one optional C extension whose answer names its
revision, so a worker that imported the current tree's build instead of REF's would give the
wrong answer. The real tree at HEAD is exported and built too, and its worker must report its
kernels as C and load them from REF's tree, not from this checkout's editable install.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from packbench.experiments.bench import ref_build
from packbench.experiments.bench.abtest import WORKER
from packbench.experiments.bench.check import source_root
from packbench.experiments.bench.ref_build import RefBuild, build_extensions, kernels_note
from packbench.experiments.bench.revisions import export_tree, head_commit

ROOT = source_root()
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
needs_compiler = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                    reason="needs a C compiler")
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

SETUP = '''
from setuptools import Extension, setup
setup(name="tinyext", py_modules=[], ext_modules=[Extension("tinyext_native", sources=["tiny.c"], optional=True)])
'''
C_SOURCE = '''
#include <Python.h>
static PyObject *which(PyObject *self, PyObject *args) { return PyUnicode_FromString("%s"); }
static PyMethodDef methods[] = {{"which", which, METH_NOARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "tinyext_native", NULL, -1, methods};
PyMODINIT_FUNC PyInit_tinyext_native(void) { return PyModule_Create(&module); }
'''


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def _tiny_repo(tmp_path: Path, tag: str) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "setup.py").write_text(SETUP)
    (repo / "tiny.c").write_text(C_SOURCE % tag)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", tag)
    return repo, _git(repo, "rev-parse", "HEAD")


def _which(tree: Path) -> str:
    out = subprocess.run([sys.executable, "-c", "import tinyext_native; print(tinyext_native.which())"],
                         cwd=tree, capture_output=True, text=True, check=True)
    return out.stdout.strip()


@needs_git
@needs_compiler
def test_builds_refs_own_sources_then_serves_them_from_the_cache(tmp_path):
    repo, sha = _tiny_repo(tmp_path, "ref-one")
    cache = tmp_path / "cache"
    first = build_extensions(export_tree(repo, sha, tmp_path / "t1"), sha, cache=cache)
    assert first.status == "built" and first.files == (f"tinyext_native{SUFFIX}",)
    assert _which(tmp_path / "t1") == "ref-one"
    stored = next(cache.iterdir())
    assert sha in stored.name and json.loads((stored / "manifest.json").read_text())["files"] == list(first.files)
    # The sources change at a new commit: the old commit's cache entry must not be served for it.
    (repo / "tiny.c").write_text(C_SOURCE % "ref-two")
    _git(repo, "commit", "-q", "-am", "two")
    sha2 = _git(repo, "rev-parse", "HEAD")
    second = build_extensions(export_tree(repo, sha2, tmp_path / "t2"), sha2, cache=cache)
    assert second.status == "built" and _which(tmp_path / "t2") == "ref-two"
    # The first commit again: from the cache, not compiled (the compiler is made unusable).
    again = build_extensions(export_tree(repo, sha, tmp_path / "t3"), sha, cache=cache, python="/nonexistent")
    assert again.status == "cached" and _which(tmp_path / "t3") == "ref-one"


@needs_git
def test_without_a_working_build_ref_falls_back_and_nothing_is_cached(tmp_path):
    repo, sha = _tiny_repo(tmp_path, "ref-one")
    cache = tmp_path / "cache"
    got = build_extensions(export_tree(repo, sha, tmp_path / "t"), sha, cache=cache, python="/nonexistent")
    assert got.status == "fallback" and got.files == () and "fallback" in got.note
    assert not cache.exists() or not any(cache.iterdir())
    (tmp_path / "bare").mkdir()
    assert build_extensions(tmp_path / "bare", sha, cache=cache).status == "none"
    with pytest.raises(ValueError, match="hexadecimal"):
        build_extensions(tmp_path / "bare", "../escape", cache=cache)


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(ref_build.CACHE_ENV, str(tmp_path / "c"))
    assert ref_build.cache_root() == tmp_path / "c"
    monkeypatch.delenv(ref_build.CACHE_ENV)
    assert ref_build.cache_root().parts[-3:] == (".cache", "packbench", "ref-builds")


def test_the_note_warns_only_when_one_side_runs_c_and_the_other_the_fallback():
    same = kernels_note({"columns": "C", "jaccard": "C"}, {"columns": "C", "jaccard": "C"},
                        RefBuild("cached", ("x",), "from the cache"))
    assert "current tree columns C, jaccard C; REF columns C, jaccard C" in same and "WARNING" not in same
    assert "from the cache" in same
    mixed = kernels_note({"columns": "C", "jaccard": "C"}, {"columns": "fallback", "jaccard": "C"})
    assert "WARNING: columns runs C on one side and the fallback on the other" in mixed
    assert "WARNING" not in kernels_note({"columns": "C"}, {"columns": "absent"})


def _worker_kernels(tree: Path) -> tuple[dict, list[str]]:
    """The kernels REF's worker reports, and the files its compiled kernels were loaded from."""
    probe = textwrap.dedent(f'''
        import json, sys
        sys.argv = ["worker", "--root", {str(tree)!r}]
        sys.path.insert(0, {str(WORKER.parent)!r})
        import worker
        from pathlib import Path
        worker.install_tree(Path({str(tree)!r}))
        kernels = worker.kernel_report()
        files = [getattr(sys.modules.get(m), "__file__", None) for _, m, _ in worker.KERNELS]
        print(json.dumps([kernels, files]))
        ''')
    out = subprocess.run([sys.executable, "-s", "-P", "-c", probe], capture_output=True, text=True, check=True,
                         cwd=tree)
    kernels, files = json.loads(out.stdout.strip().splitlines()[-1])
    return kernels, files


@pytest.mark.skipif(ROOT is None or head_commit(ROOT) is None, reason="needs a git checkout of packbench")
@needs_compiler
def test_refs_worker_imports_refs_own_extensions_not_this_checkouts(tmp_path):
    sha = head_commit(ROOT)
    tree = export_tree(ROOT, sha, tmp_path / "ref")
    before, files = _worker_kernels(tree)
    # Unbuilt, REF must run its fallback, not this checkout's compiled modules.
    assert before == {"columns": "fallback", "jaccard": "fallback"} and files == [None, None]
    got = build_extensions(tree, sha, cache=tmp_path / "cache")
    assert got.status == "built" and len(got.files) == 2
    after, files = _worker_kernels(tree)
    assert after == {"columns": "C", "jaccard": "C"}
    assert all(f is not None and Path(f).resolve().is_relative_to(tree.resolve()) for f in files)
