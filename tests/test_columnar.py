"""runs.parquet: an exact, lazily read columnar copy of runs.jsonl."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from packbench.experiments.columnar import PARQUET_FILE, export_parquet, read_runs
from packbench.experiments.storage import RunStore

VALUE = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False, allow_infinity=False),
                  st.text(max_size=5), st.lists(st.text(max_size=3), max_size=3))


def _same(a, b) -> bool:
    if hasattr(b, "tolist"):
        b = b.tolist()
    if a is None:
        return b is None or (isinstance(b, float) and math.isnan(b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b and type(a) is type(b)
    return a == b


@settings(max_examples=40, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "budget_spec", "chosen_ids"]), VALUE), min_size=1,
                max_size=12), st.integers(1, 5))
def test_values_round_trip_exactly_whatever_their_types(tmp_path_factory, rows, block):
    out = tmp_path_factory.mktemp("pq")
    rows = [{"run_id": f"r{k}", **row} for k, row in enumerate(rows)]
    RunStore(out).append(rows)
    export_parquet(out, block_rows=block)
    df = read_runs(out, export=False)
    for row, rec in zip(rows, df.to_dict("records")):
        for key in {"a", "b", "budget_spec", "chosen_ids", "run_id"}:
            assert _same(row.get(key), rec.get(key)), (key, row.get(key), rec.get(key))


def test_export_is_redone_only_when_runs_change_and_columns_are_a_subset(tmp_path):
    store = RunStore(tmp_path)
    store.append([{"run_id": "a", "x": 1, "y": "u"}, {"run_id": "b", "x": 2, "y": "v"}])
    path = export_parquet(tmp_path)
    first = path.stat().st_mtime_ns
    assert export_parquet(tmp_path).stat().st_mtime_ns == first  # up to date: untouched
    assert list(read_runs(tmp_path, columns=["x", "missing"]).columns) == ["x"]
    store.append([{"run_id": "c", "x": 3.5, "y": None}])
    df = read_runs(tmp_path)
    assert list(df["x"]) == [1.0, 2.0, 3.5] and (tmp_path / PARQUET_FILE).stat().st_mtime_ns != first
