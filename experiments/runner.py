"""Run an experiment: plan once, resume what is stored, execute the rest, write the report.

The driver (`run_experiment`) holds the result directory's lock, plans the
runs (`plan`), drops stored rows that must be redone (an unavailable source,
or rows whose code fingerprint no longer matches the code that would run
them), hands batches of pending units to an executor (`executors`) and alone
appends the rows that come back to ``runs.jsonl``. What a worker does with a
batch is in `measure`.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import ExperimentConfig
from .console import Console
from .planning.runs import PlannedUnit, plan
from .planning.resume import resume_state
from .schema import TIMING_COLUMNS

if TYPE_CHECKING:
    from .executors import Executor
    from .planning.resume import ResumeState

__all__ = ["run_experiment", "TIMING_COLUMNS"]


def run_experiment(config: ExperimentConfig, out_dir: str | Path, *, workers: int = 1,
                   executor: Executor | str | None = None, force: bool = False, progress: bool = True,
                   config_path: str | Path | None = None, console: Console | None = None,
                   planned: Sequence[PlannedUnit] | None = None) -> dict[str, Any]:
    """Run (or resume) `config` into `out_dir` and write the manifest, summary and plots.

    Rows already in ``runs.jsonl`` are kept and their runs skipped, unless the
    code that produced them changed (its fingerprint, see
    `provenance.code_fingerprint`) or their source was unavailable; a partial
    last line left by a crash is dropped and that run redone. One run at a
    time may use `out_dir` (a lock; a killed run's lock is taken over).

    Args:
        config: The experiment.
        out_dir: Result directory.
        workers: Worker processes when `executor` is a name or None (1: serial).
        executor: An `Executor`, or "serial", "processes" or "dask"; None picks serial for one
            worker unless the config names outside components, else (watched) processes.
        force: Delete the existing rows and start over.
        progress: Show progress (a bar on a terminal, else a periodic line).
        config_path: The config file, recorded relative to the repository.
        console: Where notes and progress go (default: stderr).
        planned: `plan(config)`, when the caller has it already.

    Returns:
        The manifest.

    Raises:
        ValueError: `out_dir` holds rows of runs that are not in this config
            (use ``force`` or another directory).
        OutputLocked: Another live run holds `out_dir`.
        KeyboardInterrupt: Interrupted; the finished rows are on disk and the
            manifest says ``interrupted``.
    """
    from .executors import make_executor
    from .lock import RunLock
    from .provenance import relative_to_repo
    from .sections import check_sections
    from .storage import RunStore

    check_sections(config)  # the report's and the gate's sections, before any run
    console = console or Console(progress=progress)
    out = Path(out_dir)
    with RunLock(out) as lock:
        if lock.took_over:
            console.note(f"took over the lock of {lock.took_over}")
        store = RunStore(out)
        if force:
            store.reset()
        planned = plan(config) if planned is None else planned
        state = resume_state(store, planned, config)
        if state.stale:
            raise ValueError(f"{relative_to_repo(store.path)} holds {len(state.stale)} rows of runs that are not in "
                             f"config {config.name!r}; pass --force to start over or --out for another directory")
        if state.redo:
            store.discard(state.redo)
        if state.redone_note():
            console.note(state.redone_note())
        if executor is None or isinstance(executor, str):
            from .outside import outside_components

            # Outside code runs in a watched worker even with one worker (see executors.watched).
            serial = workers <= 1 and not outside_components(config.model_dump(mode="json"))
            executor = make_executor(executor or ("serial" if serial else "processes"), workers)
        return _run(config, out, store, state, executor, console, config_path)


def _run(config: ExperimentConfig, out: Path, store: Any, state: ResumeState, executor: Executor,
         console: Console, config_path: str | Path | None) -> dict[str, Any]:
    from .calibration import reference_speed
    from .corpora import data_notes
    from .executors import BatchTask, batches
    from .provenance import load_average, machine
    from .provenance import provenance as current_provenance
    from .provenance import relative_to_repo
    from .report import write_report
    from .columnar import read_runs
    from .storage import REPORT_EXCLUDED, write_atomic

    prov = current_provenance()
    manifest: dict[str, Any] = {
        "experiment": config.name, "config_path": None if config_path is None else relative_to_repo(config_path),
        "config": config.model_dump(mode="json"), "reference": config.reference_name,
        "seeds": config.model_dump(mode="json")["seeds"], "runs_total": state.total, "runs_resumed": state.resumed,
        "runs_redone_code_changed": sum(state.redone_code.values()),
        "runs_redone_because": dict(state.redone_code.most_common()),
        "runs_dropped_partial_lines": store.dropped_lines, "workers": executor.workers,
        "executor": executor.name, "provenance": prov, "machine": {**machine(), **reference_speed()},
        "data": data_notes(config),
        "status": "running",
    }
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    todo = sum(len(pu) for pu in state.pending)
    if todo:
        console.note(f"{config.name}: {todo:,} runs to do ({state.resumed:,} resumed) on {executor.describe()}")
    try:
        with executor, console.bar(todo, config.name) as bar:
            for rows in executor.map(BatchTask(config, prov), batches(state.pending, executor.batch_runs)):
                store.append(rows)  # the driver alone writes rows, as they come back
                bar.update(len(rows))
    except BaseException:
        manifest["machine"]["load_end"] = load_average()
        manifest.update(status="interrupted")
        write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
        raise
    counts = Counter(status for (status,) in store.index(("status",)).values())
    manifest["machine"]["load_end"] = load_average()  # before the report: the load the runs saw
    manifest.update(status="complete", status_counts=dict(sorted(counts.items())),
                    finished_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"))
    # From runs.parquet (exported in blocks, chosen ids and provenance left out): a million rows fit.
    write_report(out, read_runs(out, exclude=REPORT_EXCLUDED), plots=config.plots)
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return manifest
