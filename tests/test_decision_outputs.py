"""What a run writes for the decision: identical decision sections for 1 or 2 workers, the tidy
summary.csv/parquet, the manifest's machine fields."""

from __future__ import annotations

import pandas as pd

from packbench.experiments.config import load_config
from packbench.experiments.provenance import REPO_ROOT
from packbench.experiments.report import decision_sections
from packbench.experiments.runner import run_experiment

SMOKE = REPO_ROOT / "configs" / "smoke.toml"


def test_decision_sections_do_not_depend_on_the_number_of_workers(tmp_path):
    config = load_config(SMOKE)
    one = run_experiment(config, tmp_path / "one", workers=1, progress=False)
    two = run_experiment(config, tmp_path / "two", workers=2, progress=False)
    assert one["workers"] == 1 and two["workers"] == 2
    a = decision_sections((tmp_path / "one" / "summary.md").read_text(encoding="utf-8"))
    b = decision_sections((tmp_path / "two" / "summary.md").read_text(encoding="utf-8"))
    assert "## Ship this" in a and "## Decisions per cell" in a and a == b
    assert " ms |" not in a.split("## Decisions per cell")[0].replace("≤ ", "").replace("> 10 ms", "")


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
