"""Executors: serial, processes and Dask give the same rows; a Dask worker killed mid-run loses nothing."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from packbench.experiments.config import parse_config
from packbench.experiments.executors import BATCH_RUNS, Processes, Serial, batches, make_executor
from packbench.experiments.planning import plan
from packbench.experiments.runner import TIMING_COLUMNS, run_experiment
from packbench.experiments.storage import RunStore

NOT_RESULTS = set(TIMING_COLUMNS) | {"git_commit", "git_dirty"}

CONFIG = {
    "name": "ex", "seeds": [0, 1, 2], "repeats": 1, "budgets": [0.3, 0.6], "near_dup": [0.8, "off"],
    "orders": ["original", "lost_in_middle"], "reference": "exact_dp",
    "sources": [{"name": "pisinger", "n": 10, "R": 100}, {"name": "retrieval", "n": 10, "len_median": 30,
                                                           "instances": 2}],
    "strategies": [{"name": "greedy"}, {"name": "exact_dp"}], "plots": [],
}


def results(out):
    return {r["run_id"]: {k: v for k, v in r.items() if k not in NOT_RESULTS} for r in RunStore(out).load()}


def test_batches_cover_every_pending_run_once_in_bounded_pieces():
    planned = plan(parse_config(CONFIG))
    pieces = list(batches(planned, 7))
    ids = [run.run_id for batch in pieces for pu in batch for run in pu.runs()]
    assert sorted(ids) == sorted(rid for pu in planned for rid in pu.run_ids)
    assert all(sum(len(pu) for pu in batch) <= 7 for batch in pieces)
    assert list(batches(planned)) and BATCH_RUNS >= 1
    with pytest.raises(ValueError, match="batch size"):
        list(batches(planned, 0))


def test_unknown_executor_and_misplaced_scheduler_are_named():
    with pytest.raises(ValueError, match="unknown executor 'spark'; valid: serial, processes, dask"):
        make_executor("spark")
    with pytest.raises(ValueError, match="--scheduler is only for --executor dask"):
        make_executor("processes", 2, "tcp://localhost:8786")


def test_dask_extra_missing_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("No module named 'distributed'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(ImportError, match=r"pip install 'packbench\[dask\]'"):
        make_executor("dask", 2)


def test_serial_processes_and_dask_give_identical_rows_and_dask_resumes(tmp_path):
    pytest.importorskip("distributed")
    from packbench.experiments.executors.dask import DaskExecutor

    cfg = parse_config(CONFIG)
    run_experiment(cfg, tmp_path / "serial", executor=Serial(), progress=False)
    run_experiment(cfg, tmp_path / "proc", executor=Processes(2, batch_runs=16), progress=False)
    # the Dask run resumes a directory holding the first 40 rows (and a half-written 41st)
    lines = (tmp_path / "serial" / "runs.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "dask").mkdir()
    (tmp_path / "dask" / "runs.jsonl").write_bytes(b"".join(lines[:40]) + lines[40][:30])
    manifest = run_experiment(cfg, tmp_path / "dask", executor=DaskExecutor(2, batch_runs=16), progress=False)
    serial = results(tmp_path / "serial")
    assert len(serial) == manifest["runs_total"] > 100
    assert results(tmp_path / "proc") == serial
    assert results(tmp_path / "dask") == serial
    assert manifest["runs_resumed"] == 40 and manifest["runs_dropped_partial_lines"] == 1
    assert manifest["executor"] == "dask" and manifest["status_counts"] == {"ok": len(serial)}


def test_a_dask_worker_killed_mid_run_loses_and_duplicates_no_row(tmp_path):
    pytest.importorskip("distributed")
    from packbench.experiments.executors.dask import DaskExecutor

    cfg = parse_config({**CONFIG, "name": "kill", "seeds": list(range(12)),
                        "sources": [{"name": "pisinger", "n": 40, "R": 1000, "cls": "strongly_correlated"}],
                        "strategies": ["greedy", "exact_dp", "prefix"]})
    executor = DaskExecutor(2, batch_runs=4)
    pids = list(executor.client.run(os.getpid).values())
    assert len(pids) == 2
    out = tmp_path / "kill"
    result: dict = {}

    def run():
        try:
            result["manifest"] = run_experiment(cfg, out, executor=executor, progress=False)
        except BaseException as exc:  # noqa: BLE001 - reported below
            result["error"] = exc

    # The kill comes once the driver has written the first batch's rows: an event, not a poll.
    written_once = threading.Event()
    resume = threading.Event()
    inner = executor.map

    def map_and_report(task, work):
        for k, rows in enumerate(inner(task, work)):
            yield rows
            if k == 0:  # the driver has appended these rows by the time the generator resumes
                written_once.set()
                resume.wait(60)  # hold the driver until the worker is dead: the loss is mid-run for sure

    executor.map = map_and_report
    thread = threading.Thread(target=run)
    thread.start()
    assert written_once.wait(120), result
    written = len((out / "runs.jsonl").read_text().splitlines())
    os.kill(pids[0], signal.SIGKILL)  # one worker process dies mid-run
    resume.set()
    assert written < sum(len(pu.run_ids) for pu in plan(cfg))
    thread.join(timeout=300)
    assert "error" not in result, result.get("error")
    manifest = result["manifest"]
    lines = (out / "runs.jsonl").read_text().splitlines()
    ids = [json.loads(line)["run_id"] for line in lines]
    assert len(ids) == len(set(ids)) == manifest["runs_total"] == sum(len(pu.run_ids) for pu in plan(cfg))
    assert manifest["status"] == "complete"


def test_a_scheduler_address_that_never_answers_ends_within_the_connect_timeout():
    pytest.importorskip("distributed")
    import socket

    from packbench.experiments.executors.dask import ClusterLost, DaskExecutor

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # accepts TCP (the kernel completes the handshake) and never says a word
    try:
        executor = DaskExecutor(1, scheduler=f"tcp://127.0.0.1:{server.getsockname()[1]}")
        executor.connect_timeout = 2.0
        start = time.monotonic()
        with pytest.raises(ClusterLost, match=r"did not answer within 2 s"):
            _ = executor.client
        assert time.monotonic() - start < 60
    finally:
        server.close()


class _FakeClient:
    """A Dask client whose cluster state the test controls (no cluster is started)."""

    def __init__(self, workers=None, error=None, status="running"):
        self.workers, self.error, self.status = workers or {}, error, status

    def scheduler_info(self):
        if self.error is not None:
            raise self.error
        return {"workers": self.workers}


class _FakeFuture:
    def __init__(self, exc):
        self.exc = exc

    def result(self):
        raise self.exc


def test_a_cluster_without_workers_or_scheduler_is_lost_with_one_line():
    distributed = pytest.importorskip("distributed")
    from concurrent.futures import CancelledError

    from packbench.experiments.executors.dask import ClusterLost, DaskExecutor

    executor = DaskExecutor(1, scheduler="tcp://10.0.0.5:8786")
    executor.lost_after = 5.0
    now = time.monotonic()
    executor._check_cluster(_FakeClient({"w1": {}}), now)  # a worker: fine
    executor._check_cluster(_FakeClient({}), now)  # none yet: waits up to lost_after
    executor._no_workers_since = now - 10  # as if the last worker had gone 10 s ago
    with pytest.raises(ClusterLost, match=r"^Dask cluster at tcp://10.0.0.5:8786 lost: no worker for 5 s; the "
                                          r"rows written so far stay, rerun to resume$"):
        executor._check_cluster(_FakeClient({}), now - 10)
    with pytest.raises(ClusterLost, match="the scheduler does not answer"):
        executor._check_cluster(_FakeClient(error=OSError("comm closed")), now)
    with pytest.raises(ClusterLost, match="the connection to the scheduler closed"):
        executor._check_cluster(_FakeClient({"w1": {}}, status="closed"), now)
    cancelled = CancelledError("4 Futures cancelled for reason: scheduler-connection-lost.\nMessage: ...")
    with pytest.raises(ClusterLost) as caught:
        executor._result(_FakeFuture(cancelled), distributed)
    assert "\n" not in str(caught.value) and "the connection to the scheduler was lost" in str(caught.value)
    assert issubclass(ClusterLost, OSError)  # the CLI's exit 2 with a one-line message
