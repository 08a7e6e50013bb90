"""`packbench reader --reader openai:MODEL --base-url URL`: pack NQ-Open contexts, ask a reader, score its answers.

Nothing is sent anywhere unless ``--reader`` names a reader. ``--reader module:attr`` loads a callable
``(context, question) -> str`` (or a zero-argument factory of one) instead of the HTTP adapter.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib
import io
import sys
from pathlib import Path

__all__ = ["add_arguments", "main", "make_reader"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reader", required=True,
                        help="openai:MODEL (an OpenAI-compatible chat endpoint, needs --base-url) or module:attr")
    parser.add_argument("--base-url", default=None, help="endpoint root, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--budget", type=int, default=2000, help="token budget per context (default 2000)")
    parser.add_argument("--questions", type=int, default=20, help="NQ-Open questions (default 20)")
    parser.add_argument("--strategy", default="greedy_best_single", help="packing strategy")
    parser.add_argument("--order", default="original", help="order of the packed passages")
    parser.add_argument("--seed", type=int, default=0, help="which questions (default 0)")
    parser.add_argument("--data", default="auto", help="'auto', 'full' or 'sample' (the embedded sample)")
    parser.add_argument("--cache-dir", type=Path, default=Path(".packbench-cache/reader"),
                        help="answer cache of the HTTP adapter (default .packbench-cache/reader)")
    parser.add_argument("--rps", type=float, default=None, help="HTTP requests per second (default unlimited)")
    parser.add_argument("--out", type=Path, default=None, help="write the per-question rows to this CSV")


def make_reader(spec: str, base_url: str | None, cache_dir: Path | None = None, rps: float | None = None):
    """The reader a ``--reader`` value names.

    Raises:
        ValueError: ``openai:`` without a model or without `base_url`, or a spec that is neither form.
        TypeError: ``module:attr`` that is not callable.
    """
    if spec.startswith("openai:"):
        model = spec.split(":", 1)[1]
        if not model or not base_url:
            raise ValueError(f"--reader {spec!r}: openai:MODEL needs a model name and --base-url")
        from packbench.experiments.reader.openai_chat import OpenAIChatReader

        return OpenAIChatReader(model, base_url, cache_dir=cache_dir, requests_per_second=rps)
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ValueError(f"--reader {spec!r}: expected openai:MODEL or module:attr")
    obj = getattr(importlib.import_module(module), attr)
    if isinstance(obj, type):
        obj = obj()
    if not callable(obj):
        raise TypeError(f"--reader {spec!r} is not callable")
    return obj


def main(args: argparse.Namespace) -> int:
    from packbench.experiments.corpora.nq_open import NQOpen
    from packbench.experiments.reader.step import run_reader, summarise

    if args.budget < 1 or args.questions < 1:
        raise ValueError(f"--budget and --questions must be >= 1, got {args.budget} and {args.questions}")
    reader = make_reader(args.reader, args.base_url, args.cache_dir, args.rps)
    source = NQOpen(n_questions=args.questions, data=args.data)
    rows = run_reader(source.instances(args.seed), reader, args.budget, strategy=args.strategy, order=args.order)
    if args.out is not None:
        from packbench.experiments.storage import write_atomic

        buf = io.StringIO(newline="")
        fields = [f.name for f in dataclasses.fields(rows[0])] if rows else []
        writer = csv.DictWriter(buf, fieldnames=fields)
        writer.writeheader()
        writer.writerows(dataclasses.asdict(r) for r in rows)
        write_atomic(args.out, buf.getvalue())
    s = summarise(rows)
    print(f"{s['questions']} questions ({source.data_note()}): exact match {s['exact_match']:.3f}, "
          f"F1 {s['f1']:.3f}, answer in context {s['answer_in_context']:.3f}")
    usage = getattr(reader, "usage", None)
    if usage:
        print("reader usage: " + ", ".join(f"{k} {v:.6g}" if isinstance(v, float) else f"{k} {v}"
                                          for k, v in usage.items()), file=sys.stderr)
    return 0
