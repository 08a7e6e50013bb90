"""Corpora from your own files: one query per JSON line (``jsonl``) or per Parquet row (``parquet``).

Each record is one packing instance::

    {"id": "q1", "query": "who wrote ...", "budget": 600,
     "candidates": [
        {"id": "sys", "text": "Answer from the passages.", "score": 0, "pinned": true},
        {"id": "d1", "text": "...", "score": 12.5, "tokens": 48, "source": "doc-3",
         "dup_group": "g7", "has_answer": true},
        ...]}

Record fields: ``candidates`` (required, a non-empty list), ``id`` (the instance key; default
``line=N`` / ``row=N``), ``query`` (kept in the instance's meta), ``budget`` (a positive int: the
instance's natural budget, used by ``budgets = ["natural"]``). Candidate fields: ``id``, ``text``,
``score`` (required), ``tokens`` (counted with the source's tiktoken `encoding` when absent),
``pinned``, ``source``, ``dup_group`` and ``has_answer`` (optional; null counts as absent).

Ground truth feeds the leakage and recall metrics. When any candidate of the file has
``dup_group``, every instance has duplicate groups (a candidate without one is its own group);
otherwise leakage falls back to the independent containment detector. Likewise, when any candidate
has ``has_answer``, every instance has answer labels (absent means false); otherwise answer recall
is not reported. The decision is per file so that one corpus never mixes the two kinds of metric.

Paths are read relative to the working directory; ``.jsonl.gz`` is read transparently. Every
record is used for every seed unless `sample` is set, in which case the seed picks that many
records (without repetition, in file order). Errors name the file, the line (or row) and the field.

Limits, so that a hostile or broken file gets a clear error instead of a crash or an endless count:
a JSON line nested deeper than `MAX_DEPTH` levels (a record needs 3), and a candidate text longer
than `MAX_TEXT_CHARS` characters (about two million tokens, more than any context window).
"""

from __future__ import annotations

import gzip
import json
import numbers
import zlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from packbench.algorithms import Item
from packbench.algorithms.params import Param
from packbench.algorithms.tokens import DEFAULT_ENCODING, check_encoding_param, count_tokens_batch

from ..instances import Instance, Source
from .limits import MAX_DEPTH, MAX_TEXT_CHARS, CorpusFileError, check_depth, check_text_size

__all__ = ["JSONLCorpus", "ParquetCorpus", "CorpusFileError", "read_records", "instances_from_records",
           "MAX_DEPTH", "MAX_TEXT_CHARS"]

_RECORD_KEYS = frozenset({"id", "query", "budget", "candidates"})
_CANDIDATE_KEYS = frozenset({"id", "text", "score", "tokens", "pinned", "source", "dup_group", "has_answer"})


def _path_param(owner: str, name: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{owner}: parameter {name!r} must be the corpus file's path (a non-empty str), "
                        f"got {value!r}")
    return value


def _sample_param(owner: str, name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{owner}: parameter {name!r} must be an int >= 1 or None (all records), got {value!r}")
    return int(value)


def _read_jsonl(path: Path, label: str) -> list[tuple[str, str, Any]]:
    opener = gzip.open if path.name.endswith(".gz") else open
    records = []
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                check_depth(line, f"{label}:{lineno}")
                try:
                    records.append((f"{label}:{lineno}", f"line={lineno}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise CorpusFileError(f"{label}:{lineno}: not valid JSON ({exc.msg} at column "
                                          f"{exc.colno})") from None
                except RecursionError:
                    raise CorpusFileError(f"{label}:{lineno}: JSON nested too deeply to parse") from None
    except UnicodeDecodeError as exc:
        raise CorpusFileError(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise CorpusFileError(f"{label}: corrupt or truncated gzip data ({type(exc).__name__}: {exc})") from None
    return records


def _read_parquet(path: Path, label: str) -> list[tuple[str, str, Any]]:
    import pyarrow.parquet as pq  # a declared dependency; imported here so jsonl users never load it
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises its own ArrowInvalid etc.; name the file instead
        raise CorpusFileError(f"{label}: not a readable Parquet file ({type(exc).__name__}: {exc})") from None
    return [(f"{label} row {k}", f"row={k}", rec) for k, rec in enumerate(table.to_pylist())]


def read_records(path: str | Path, fmt: str) -> list[tuple[str, str, Any]]:
    """The records of a corpus file: (location ``file:line`` or ``file row N``, default key, record).

    Args:
        path: The file.
        fmt: ``"jsonl"`` or ``"parquet"``.

    Raises:
        FileNotFoundError: No such file.
        CorpusFileError: The file is not valid JSON lines / Parquet, or holds no record.
    """
    label = str(path)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"corpus file {label!r} not found (relative paths are read from the working "
                                f"directory {Path.cwd().name!r})")
    records = _read_jsonl(path, label) if fmt == "jsonl" else _read_parquet(path, label)
    if not records:
        raise CorpusFileError(f"{label}: holds no record (one query per line is expected)")
    return records


def _optional(cand: Mapping[str, Any], key: str) -> Any:
    return cand.get(key)  # absent and null mean the same (Parquet fills missing struct fields with null)


def _check_type(where: str, field: str, value: Any, types: tuple[type, ...], what: str) -> None:
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        raise CorpusFileError(f"{where}: {field} must be {what}, got {type(value).__name__} {value!r}")


def _parse(where: str, record: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if not isinstance(record, Mapping):
        raise CorpusFileError(f"{where}: expected a JSON object with 'candidates', got {type(record).__name__}")
    unknown = sorted(set(record) - _RECORD_KEYS)
    if unknown:
        raise CorpusFileError(f"{where}: unknown field {unknown[0]!r}; valid: {', '.join(sorted(_RECORD_KEYS))}")
    cands = record.get("candidates")
    if not isinstance(cands, list) or not cands:
        raise CorpusFileError(f"{where}: field 'candidates' must be a non-empty list of objects, got {cands!r:.60}")
    for k, cand in enumerate(cands):
        field = f"candidates[{k}]"
        if not isinstance(cand, Mapping):
            raise CorpusFileError(f"{where}: {field} must be an object, got {type(cand).__name__}")
        extra = sorted(k2 for k2 in set(cand) - _CANDIDATE_KEYS if cand[k2] is not None)
        if extra:
            raise CorpusFileError(f"{where}: {field}: unknown field {extra[0]!r}; valid: "
                                  f"{', '.join(sorted(_CANDIDATE_KEYS))}")
        for key in ("id", "text", "score"):
            if cand.get(key) is None:
                raise CorpusFileError(f"{where}: {field}: missing required field {key!r}")
        check_text_size(f"{where}: {field} ({cand['id']!r})", cand["text"])
        _check_type(where, f"{field}.id", cand["id"], (str,), "a non-empty str")
        _check_type(where, f"{field}.text", cand["text"], (str,), "a str")
        _check_type(where, f"{field}.score", cand["score"], (numbers.Real,), "a number")
        for key, types, what in (("tokens", (numbers.Integral,), "a positive int"),
                                 ("pinned", (bool,), "true or false"), ("has_answer", (bool,), "true or false"),
                                 ("source", (str,), "a str"), ("dup_group", (str, numbers.Integral), "a str")):
            if _optional(cand, key) is not None:
                _check_type(where, f"{field}.{key}", cand[key], types, what)
    meta = {}
    if record.get("id") is not None:
        _check_type(where, "id", record["id"], (str, numbers.Integral), "a str")
        meta["id"] = str(record["id"])
    if record.get("query") is not None:
        _check_type(where, "query", record["query"], (str,), "a str")
        meta["query"] = record["query"]
    if record.get("budget") is not None:
        _check_type(where, "budget", record["budget"], (numbers.Integral,), "a non-negative int")
        if record["budget"] < 0:
            raise CorpusFileError(f"{where}: budget must be a non-negative int, got {record['budget']!r}")
        meta["budget"] = int(record["budget"])
    return meta, cands


def instances_from_records(records: Sequence[tuple[str, str, Any]], encoding: str) -> list[Instance]:
    """Validate records and build their instances, counting missing token counts in one batch.

    Args:
        records: ``(location, default key, record)`` triples from `read_records`.
        encoding: tiktoken encoding or model name for candidates without ``tokens``.

    Raises:
        CorpusFileError: A record or candidate is malformed (the message names its location and field),
            two candidates of a record share an id, or two records share an instance id.
    """
    parsed = [(where, default, *_parse(where, rec)) for where, default, rec in records]
    uncounted = [c["text"] for *_, cands in parsed for c in cands if _optional(c, "tokens") is None]
    counts = iter(count_tokens_batch(uncounted, encoding) if uncounted else [])
    has_groups = any(_optional(c, "dup_group") is not None for *_, cands in parsed for c in cands)
    has_answers = any(_optional(c, "has_answer") is not None for *_, cands in parsed for c in cands)
    out, keys = [], {}
    for where, default, meta, cands in parsed:
        key = meta.pop("id", default)
        if key in keys:
            raise CorpusFileError(f"{where}: instance id {key!r} is used by {keys[key]} too")
        keys[key] = where
        items, groups, answers, seen = [], {}, set(), set()
        for k, c in enumerate(cands):
            field = f"candidates[{k}]"
            tokens = c["tokens"] if _optional(c, "tokens") is not None else next(counts)
            if c["id"] in seen:
                raise CorpusFileError(f"{where}: {field}.id {c['id']!r} is repeated within the record")
            seen.add(c["id"])
            if tokens <= 0:
                why = "tokens must be a positive int" if _optional(c, "tokens") is not None else \
                    f"text has 0 tokens under {encoding!r}; give 'tokens' or a non-empty text"
                raise CorpusFileError(f"{where}: {field} ({c['id']!r}): {why}, got {tokens!r}")
            try:
                item = Item(c["id"], c["text"], c["score"], int(tokens), pinned=bool(c.get("pinned") or False),
                            source=_optional(c, "source"))
            except (TypeError, ValueError) as exc:
                raise CorpusFileError(f"{where}: {field}: {exc}") from None
            items.append(item)
            if not item.pinned:
                if has_groups:
                    group = _optional(c, "dup_group")
                    groups[item.id] = item.id if group is None else str(group)
                if c.get("has_answer"):
                    answers.add(item.id)
        out.append(Instance(key=key, items=tuple(items), groups=groups if has_groups else None,
                            answers=frozenset(answers) if has_answers else None,
                            meta={**meta, "location": where}))
    return out


class _FileCorpus(Source):
    kind = "corpus"
    DOMAIN = "retrieval"
    FORMAT = ""
    PARAMS = MappingProxyType({
        "path": Param(None, _path_param, "the corpus file (required; relative to the working directory)"),
        "encoding": Param(DEFAULT_ENCODING, check_encoding_param,
                          "tiktoken encoding or model name for candidates without 'tokens'"),
        "sample": Param(None, _sample_param, "records per seed (the seed picks them); None: every record"),
    })

    def __init__(self, **params: Any) -> None:
        if "path" not in params:
            raise ValueError(f"corpus {self.name!r} needs parameter 'path' (the {self.FORMAT} file to read)")
        super().__init__(**params)

    def instances(self, seed: int) -> Iterator[Instance]:
        p = self.params
        insts = instances_from_records(read_records(p["path"], self.FORMAT), p["encoding"])
        if p["sample"] is not None and p["sample"] < len(insts):
            rng = np.random.default_rng([int(seed), 17])
            insts = [insts[int(k)] for k in sorted(rng.choice(len(insts), size=p["sample"], replace=False))]
        yield from insts


class JSONLCorpus(_FileCorpus):
    """Your own queries and candidates from a JSON-lines file (``.jsonl`` or ``.jsonl.gz``), one query a line.

    Params:
        path: The file, relative to the working directory.
        encoding: tiktoken encoding or model name for candidates without ``tokens``.
        sample: Records per seed (the seed picks them), or None for every record.
    """

    name = "jsonl"
    FORMAT = "jsonl"


class ParquetCorpus(_FileCorpus):
    """Your own queries and candidates from a Parquet file: one row a query, a ``candidates`` list of structs.

    Params:
        path: The file, relative to the working directory.
        encoding: tiktoken encoding or model name for candidates without ``tokens``.
        sample: Records per seed (the seed picks them), or None for every record.
    """

    name = "parquet"
    FORMAT = "parquet"
