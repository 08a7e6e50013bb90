"""Build the embedded NQ-Open sample from the pinned full file.

``python -m packbench.experiments.corpora.make_sample [--rows 300] [--seed 0]``
reads ``nq-open-oracle.jsonl.gz`` from the data directory (``$PACKBENCH_DATA_DIR``
or the user cache, downloading and verifying it when missing), draws `rows`
questions with a seeded generator, keeps them in file order with only the fields
`corpora.nq_open` reads (plus ``source_row``, the row's index in the full file),
and writes ``corpora/samples/nq-open-sample.jsonl.gz`` byte-reproducibly (gzip
without a timestamp). It prints the new SHA-256 for ``data.NQ_OPEN_SAMPLE``.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from .data import NQ_OPEN_FILE, NQ_OPEN_SAMPLE, fetch, read_jsonl_gz

__all__ = ["sample_rows", "write_sample", "main"]


def _slim(row: dict[str, Any], index: int) -> dict[str, Any]:
    ctx, gold = row["ctxs"][0], row["nq_annotated_gold"]
    return {"question": row["question"], "answers": list(row["answers"]),
            "ctxs": [{"title": ctx["title"], "text": ctx["text"]}],
            "nq_annotated_gold": {"title": gold["title"], "long_answer": gold["long_answer"]},
            "source_row": index}


def sample_rows(rows: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """`n` rows drawn without repetition by a seeded generator, in file order, with only the needed fields.

    Raises:
        ValueError: `n` is not in [1, len(rows)].
    """
    if not 1 <= n <= len(rows):
        raise ValueError(f"--rows must be in [1, {len(rows)}], got {n}")
    picked = sorted(int(i) for i in np.random.default_rng(seed).choice(len(rows), size=n, replace=False))
    return [_slim(rows[i], i) for i in picked]


def write_sample(rows: list[dict[str, Any]], path: Path) -> str:
    """Write rows as gzip JSON lines with a fixed header (mtime 0); return the SHA-256."""
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows).encode("utf-8")
    payload = gzip.compress(text, compresslevel=9, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(payload)
    return hashlib.sha256(payload).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m packbench.experiments.corpora.make_sample",
                                     description="Build the embedded NQ-Open sample from the pinned file.")
    parser.add_argument("--rows", type=int, default=NQ_OPEN_SAMPLE.rows, help="questions in the sample")
    parser.add_argument("--seed", type=int, default=0, help="seed of the draw")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "samples" / NQ_OPEN_SAMPLE.name,
                        help="output file")
    args = parser.parse_args(argv)
    rows = read_jsonl_gz(fetch(NQ_OPEN_FILE))
    digest = write_sample(sample_rows(rows, args.rows, args.seed), args.out)
    print(f"wrote {args.out.name}: {args.rows} of {len(rows)} rows, SHA-256 {digest}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
