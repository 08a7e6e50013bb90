"""What a run writes for the decision: identical decision sections for 1 or 2 workers, the tidy
summary.csv/parquet, the manifest's machine fields."""

from __future__ import annotations

import json

import pandas as pd

from packbench.experiments.config import load_config
from packbench.experiments.provenance import REPO_ROOT
from packbench.experiments.report import decision_sections, write_report
from packbench.experiments.runner import TIMING_COLUMNS, run_experiment

SMOKE = REPO_ROOT / "configs" / "smoke.toml"


def rows_of(path):
    return [json.loads(line) for line in (path / "runs.jsonl").read_text(encoding="utf-8").splitlines()]


def test_decision_sections_do_not_depend_on_the_number_of_workers(tmp_path):
    config = load_config(SMOKE)
    one = run_experiment(config, tmp_path / "one", workers=1, progress=False)
    two = run_experiment(config, tmp_path / "two", workers=2, progress=False)
    assert one["workers"] == 1 and two["workers"] == 2
    serial, parallel = rows_of(tmp_path / "one"), rows_of(tmp_path / "two")
    # The rows' quality columns are the same; give both the serial run's timings (timing noise is
    # test_decision's business), so what is left to differ is the row order and the worker count.
    timing = {r["run_id"]: {k: r[k] for k in TIMING_COLUMNS if k in r} for r in serial}
    parallel = [{**r, **timing[r["run_id"]]} for r in reversed(parallel)]
    write_report(tmp_path / "a", serial, plots=[])
    write_report(tmp_path / "b", parallel, plots=[])
    a = decision_sections((tmp_path / "a" / "summary.md").read_text(encoding="utf-8"))
    b = decision_sections((tmp_path / "b" / "summary.md").read_text(encoding="utf-8"))
    assert "## Ship this" in a and "## Decisions per cell" in a and a == b


def test_summary_is_tidy_in_csv_and_parquet_and_the_manifest_describes_the_machine(tmp_path):
    manifest = run_experiment(load_config(SMOKE), tmp_path, workers=1, progress=False)
    csv = pd.read_csv(tmp_path / "summary.csv")
    parquet = pd.read_parquet(tmp_path / "summary.parquet")
    assert list(csv.columns) == list(parquet.columns) and len(csv) == len(parquet)
    keys = ["source", *[c for c in csv.columns if c.startswith("p_")], "budget", "near_dup", "dedupe", "order",
            "strategy"]
    assert csv.columns[: len(keys)].tolist() == keys
    assert not parquet.duplicated(keys).any()  # one line per key: nothing pooled
    assert set(parquet["order"]) == {"original", "lost_in_middle", "curve"}
    assert parquet["runs"].sum() == manifest["runs_total"]
    machine = manifest["machine"]
    assert machine["cores"] >= 1 and 1 <= machine["cores_usable"] <= machine["cores"]
    assert isinstance(machine["cpu_model"], (str, type(None)))
    assert len(machine["load_start"]) == 3 and len(machine["load_end"]) == 3
