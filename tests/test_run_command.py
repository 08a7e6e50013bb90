"""`packbench run` as a user drives it: the output lock, kill -9 and resume, bad config bytes, paths, console."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from packbench.experiments.cli import main
from packbench.experiments.commands.run import default_out_dir
from packbench.experiments.config import load_config
from packbench.experiments.lock import LOCK_FILE, OutputLocked, RunLock

SLOW = """
name = "slow"
repeats = 1
seeds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
budgets = [0.2, 0.4, 0.6]
near_dup = "off"
reference = "exact_dp"
[[sources]]
name = "pisinger"
cls = "strongly_correlated"
n = 60
R = 1000
[[strategies]]
name = "exact_dp"
[[strategies]]
name = "greedy"
"""


def _cli(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PACKBENCH_PROGRESS_INTERVAL": "0.5"}
    return subprocess.Popen([sys.executable, "-m", "packbench", "run", *args, "--workers", "1"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _lines(path: Path) -> list[dict]:
    # Only complete lines: a running (or killed) run may be half-way through writing the last one.
    return [json.loads(line) for line in path.read_text().split("\n")[:-1]] if path.exists() else []


BLOCKING = SLOW.replace('[[strategies]]\nname = "greedy"', '[[strategies]]\nname = "greedy"\n[[strategies]]\n'
                                                            'name = "tests.rogue:blocks"')
REPO = Path(__file__).resolve().parents[1]


def _held_cli(cfg: Path, out: Path, fifos: Path | None) -> subprocess.Popen:
    """`packbench run` whose run of tests.rogue:blocks waits on the FIFOs in `fifos` (None: does not wait)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("PACKBENCH_TEST_FIFOS", None)
    if fifos is not None:
        env["PACKBENCH_TEST_FIFOS"] = str(fifos)
    return subprocess.Popen([sys.executable, "-m", "packbench", "run", str(cfg), "--out", str(out), "--workers", "1",
                             "--no-progress"], cwd=cfg.parent, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _fifos(tmp_path: Path) -> Path:
    folder = tmp_path / "fifos"
    folder.mkdir()
    os.mkfifo(folder / "started")
    os.mkfifo(folder / "release")
    return folder


def _wait_started(fifos: Path, proc: subprocess.Popen) -> None:
    """Block until the run is inside tests.rogue:blocks (it holds the lock and has written rows before it)."""
    import threading

    opened = threading.Event()

    def read() -> None:
        with open(fifos / "started") as fh:
            fh.read()
        opened.set()

    threading.Thread(target=read, daemon=True).start()
    if not opened.wait(300):
        proc.kill()
        raise AssertionError(f"the run never reached the blocking strategy: {proc.communicate()}")


def test_second_run_into_a_directory_exits_2_and_a_killed_runs_lock_is_taken_over(tmp_path):
    cfg = tmp_path / "slow.toml"
    cfg.write_text(BLOCKING)
    out = tmp_path / "out"
    fifos = _fifos(tmp_path)
    first = _held_cli(cfg, out, fifos)
    try:
        _wait_started(fifos, first)  # the first run holds the lock, and is held inside a run
        second = _held_cli(cfg, out, None)
        _, err = second.communicate(timeout=120)
        assert second.returncode == 2
        assert "in use by another packbench run" in err and f"pid {first.pid}" in err
        assert first.poll() is None  # the first run is untouched
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    partial = _lines(out / "runs.jsonl")
    assert (out / LOCK_FILE).exists()  # kill -9 leaves the lock file behind
    third = _held_cli(cfg, out, None)
    _, err = third.communicate(timeout=300)
    assert third.returncode == 0, err
    # the first run's worker died with it, so the lock is free and its owner is gone
    assert f"took over the lock of a run that is gone (pid {first.pid}" in err
    rows = _lines(out / "runs.jsonl")
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(rows) == len({r["run_id"] for r in rows}) == manifest["runs_total"]
    assert manifest["runs_resumed"] >= len(partial) - 1  # at most the half-written last line is redone
    assert not (out / LOCK_FILE).exists()


def test_a_symlink_planted_as_the_lock_is_refused_and_its_target_untouched(tmp_path):
    from packbench.experiments.lock import LockPathRefused

    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    out = tmp_path / "shared"
    out.mkdir()
    (out / LOCK_FILE).symlink_to(target)
    with pytest.raises(LockPathRefused, match=r"\.packbench\.lock: it is a symbolic link .*never followed"):
        RunLock(out).acquire()
    assert target.read_text() == "keep me\n"
    (out / LOCK_FILE).unlink()
    (out / LOCK_FILE).mkdir()
    with pytest.raises(LockPathRefused, match="not a regular file"):
        RunLock(out).acquire()
    assert main(["run", "smoke", "--out", str(tmp_path / "o2"), "--dry-run"]) == 0  # unrelated dirs still work


def test_a_stale_lock_whose_pid_is_alive_is_described_as_such(tmp_path):
    import socket

    sleeper = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        (tmp_path / LOCK_FILE).write_text(json.dumps({"pid": sleeper.pid, "host": socket.gethostname(),
                                                      "started": "2026-01-01T00:00:00Z"}))
        with RunLock(tmp_path) as lock:  # no flock is held on the file: stale, though the pid lives
            assert lock.took_over.startswith(f"pid {sleeper.pid} on {socket.gethostname()}")
            assert "that pid is alive but no longer holds the lock" in lock.took_over
            assert "gone" not in lock.took_over
    finally:
        sleeper.communicate(b"")
    (tmp_path / LOCK_FILE).write_text(json.dumps({"pid": sleeper.pid, "host": socket.gethostname()}))
    with RunLock(tmp_path) as lock:
        assert lock.took_over.startswith(f"a run that is gone (pid {sleeper.pid}")


def test_lock_in_process(tmp_path):
    with RunLock(tmp_path) as lock:
        assert lock.took_over is None
        with pytest.raises(OutputLocked, match=f"pid {os.getpid()}"):
            RunLock(tmp_path).acquire()
    with RunLock(tmp_path):  # released: free again
        pass


def test_config_with_a_non_utf8_byte_names_the_file_and_position(tmp_path, capsys):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "x"\n# caf\xe9\nseeds = [0]\n')
    with pytest.raises(ValueError, match=r"latin1\.toml: not UTF-8 .*byte 0xe9 at line 2, column 6 \(byte offset 16\)"):
        load_config(path)
    assert main(["run", str(path), "--out", str(tmp_path / "o")]) == 2
    assert "latin1.toml: not UTF-8" in capsys.readouterr().err


def test_default_out_dir_avoids_committed_results(tmp_path):
    assert default_out_dir("smoke", tmp_path) == tmp_path / "results" / "smoke"
    repo = tmp_path / "repo"
    (repo / "results" / "default").mkdir(parents=True)
    (repo / "results" / "default" / "summary.md").write_text("committed\n")
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q"], cwd=repo, check=True)
    subprocess.run(git + ["add", "."], cwd=repo, check=True)
    subprocess.run(git + ["commit", "-qm", "x"], cwd=repo, check=True)
    assert default_out_dir("default", repo) == repo / "results" / "local" / "default"
    assert default_out_dir("smoke", repo) == repo / "results" / "smoke"


def test_console_summary_paths_and_progress_lines(tmp_path):
    cfg = tmp_path / "slow.toml"
    cfg.write_text(SLOW.replace("seeds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]", "seeds = [0, 1, 2, 3]"))
    work = tmp_path / "work"
    work.mkdir()
    proc = _cli(str(cfg), cwd=work)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("packbench run: slow: 24 runs (ok 24, skipped 0, timeout 0, error 0; 0 resumed)")
    assert last.endswith("-> results/slow/ (report: results/slow/summary.md)")
    assert (work / "results" / "slow" / "summary.md").is_file()
    elsewhere = tmp_path / "elsewhere" / "int_test"
    proc = _cli(str(cfg), "--out", str(elsewhere), cwd=work)
    _, err = proc.communicate(timeout=300)
    assert f"-> {elsewhere.resolve().as_posix()}/" in err  # outside the working directory: the full path


def test_ctrl_c_says_how_to_resume_and_exits_130(tmp_path):
    cfg = tmp_path / "slow.toml"
    cfg.write_text(BLOCKING)
    out = tmp_path / "out"
    fifos = _fifos(tmp_path)
    proc = _held_cli(cfg, out, fifos)
    _wait_started(fifos, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "packbench run: interrupted; rerun the same command to resume"
    assert "Traceback" not in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    assert not (out / LOCK_FILE).exists()
