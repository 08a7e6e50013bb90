"""``runs.parquet``: a columnar copy of ``runs.jsonl`` for reports on millions of rows in bounded memory.

``runs.jsonl`` stays the record (append-only, crash-safe); `export_parquet`
streams it in blocks into ``runs.parquet`` (pyarrow), which `read_runs` reads
lazily, one column subset at a time. The export is redone only when
``runs.jsonl`` changed (its size and modification time are stored in the
Parquet metadata). A column whose values mix types across rows (a budget
that is a token count in one row, a share in another, ``"natural"`` in a
third) is stored as JSON text and decoded on reading, so values round-trip
exactly.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

__all__ = ["export_parquet", "read_runs", "PARQUET_FILE"]

PARQUET_FILE = "runs.parquet"
BLOCK_ROWS = 50_000
_META = b"packbench"
_INT64 = (-(2**63), 2**63 - 1)


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401 - the submodule is used through the package
    except ImportError as exc:  # pyarrow is a core dependency; this names it if an install lacks it
        raise ImportError("runs.parquet needs pyarrow: pip install pyarrow") from exc
    return pyarrow


def _stamp(jsonl: Path) -> dict[str, int]:
    st = jsonl.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _blocks(store: Any, size: int) -> Iterator[list[dict[str, Any]]]:
    block: list[dict[str, Any]] = []
    for _, row in store._scan():
        block.append(row)
        if len(block) >= size:
            yield block
            block = []
    if block:
        yield block


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        # Beyond int64 (a budget of 10**30 is valid): stored as JSON text, which holds any int exactly.
        return "int" if _INT64[0] <= value <= _INT64[1] else "json"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "strlist"
    return "json"


def _column_kinds(block: list[dict[str, Any]], kinds: dict[str, set[str]]) -> None:
    for row in block:
        for key, value in row.items():
            kinds.setdefault(key, set()).add(_kind(value))


def _arrow_type(pa: Any, kinds: set[str]) -> tuple[Any, bool]:
    """(arrow type, stored as JSON text) for a column whose values have `kinds`."""
    real = kinds - {"null"}
    if not real:
        return pa.null(), False
    if real <= {"int"}:
        return pa.int64(), False
    if real <= {"int", "float"}:
        return pa.float64(), False
    if len(real) == 1:
        only = next(iter(real))
        simple = {"bool": pa.bool_(), "str": pa.string(), "strlist": pa.list_(pa.string())}
        if only in simple:
            return simple[only], False
    return pa.string(), True


def export_parquet(out_dir: str | Path, block_rows: int = BLOCK_ROWS) -> Path:
    """Write ``runs.parquet`` from ``runs.jsonl`` (streamed; at most `block_rows` rows in memory at once).

    Two passes over ``runs.jsonl``: the first finds every column and the types
    of its values, the second writes one row group per block. Unreadable
    lines are skipped as `RunStore.load` skips them; the file is not repaired.

    Temporary files of exports that were killed (``.runs.parquet.<pid>.tmp`` of a pid that is gone)
    are deleted first.

    Returns:
        The Parquet file (written atomically; unchanged when already up to date).

    Raises:
        FileNotFoundError: No runs.jsonl in `out_dir`.
    """
    from .storage import RunStore, _fsync_dir

    pa = _pyarrow()
    store = RunStore(out_dir)
    if not store.path.is_file():
        raise FileNotFoundError(f"{store.path.as_posix()}: no runs.jsonl")
    target = Path(out_dir) / PARQUET_FILE
    _remove_stale_tmp(target.parent)
    stamp = _stamp(store.path)
    if _stored_stamp(target) == stamp:
        return target
    kinds: dict[str, set[str]] = {}
    for block in _blocks(store, block_rows):
        _column_kinds(block, kinds)
    types = {col: _arrow_type(pa, k) for col, k in kinds.items()}
    json_cols = sorted(col for col, (_, as_json) in types.items() if as_json)
    meta = {"stamp": stamp, "json_columns": json_cols, "dropped_lines": store.dropped_lines}
    schema = pa.schema([(col, typ) for col, (typ, _) in types.items()],
                       metadata={_META: json.dumps(meta).encode("utf-8")})
    tmp = target.with_name(f".{PARQUET_FILE}.{os.getpid()}.tmp")
    try:
        with pa.parquet.ParquetWriter(tmp, schema, compression="zstd") as writer:
            for block in _blocks(store, block_rows):
                arrays = []
                for col, (typ, as_json) in types.items():
                    values = [row.get(col) for row in block]
                    if as_json:
                        values = [None if v is None else json.dumps(v) for v in values]
                    arrays.append(pa.array(values, type=typ))
                writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)
    return target


def _remove_stale_tmp(folder: Path) -> None:
    """Delete ``.runs.parquet.<pid>.tmp`` files left by exports that were killed (their pid is gone)."""
    from .lock import _pid_alive

    for tmp in folder.glob(f".{PARQUET_FILE}.*.tmp"):
        pid = tmp.name[len(PARQUET_FILE) + 2:-len(".tmp")]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            tmp.unlink(missing_ok=True)


def _stored_stamp(target: Path) -> dict[str, int] | None:
    if not target.is_file():
        return None
    pa = _pyarrow()
    try:
        meta = pa.parquet.read_schema(target).metadata or {}
        return json.loads(meta[_META])["stamp"]
    except (OSError, KeyError, ValueError, pa.ArrowException):
        return None


def read_runs(out_dir: str | Path, columns: Sequence[str] | None = None, *, exclude: Sequence[str] = (),
              export: bool = True):
    """The rows of a result directory as a pandas DataFrame, read from ``runs.parquet``.

    Args:
        out_dir: The result directory.
        columns: Columns to read (missing ones are left out); None reads all. Reading only what a
            table needs keeps a million rows in a few hundred MB.
        exclude: Columns not to read (e.g. chosen ids and provenance, which no table needs).
        export: Refresh ``runs.parquet`` first when ``runs.jsonl`` changed.

    Returns:
        One row per run (first occurrence of each run id); values stored as JSON text are decoded.
        ``attrs["dropped_lines"]`` counts the unreadable lines of runs.jsonl that were left out.

    Raises:
        FileNotFoundError: Neither runs.jsonl nor runs.parquet exists.
    """
    pa = _pyarrow()
    out = Path(out_dir)
    target = out / PARQUET_FILE
    if export and (out / "runs.jsonl").is_file():
        export_parquet(out)
    if not target.is_file():
        raise FileNotFoundError(f"{target.as_posix()}: no runs.parquet or runs.jsonl in {out.as_posix()!r}")
    schema = pa.parquet.read_schema(target)
    meta = json.loads((schema.metadata or {}).get(_META, b"{}"))
    present = [c for c in (schema.names if columns is None else columns) if c in schema.names and c not in exclude]
    table = pa.parquet.read_table(target, columns=present)
    df = table.to_pandas(strings_to_categorical=False, self_destruct=True)
    for col in set(meta.get("json_columns", ())) & set(df.columns):
        decoded = {v: json.loads(v) for v in df[col].dropna().unique()}
        df[col] = df[col].map(decoded).astype(object)
    df.attrs["dropped_lines"] = int(meta.get("dropped_lines", 0))
    return df
