"""Word statistics of NQ-Open's Wikipedia passages, for the realistic text workload of the benchmarks.

``python -m packbench.experiments.corpora.word_stats`` reads the full
``nq-open-oracle.jsonl.gz`` from the data directory (`data.fetch`), fits a
sentence-aware word bigram model on the DPR passages of the rows that are NOT
in the embedded sample (so the sample stays held out), and writes
``corpora/samples/nq-open-wordstats.json.gz`` byte-reproducibly. Only counts
are stored: the words seen at least `MIN_COUNT` times, their counts, the
bigrams seen at least twice, the passage lengths in words, and a tail exponent.

The model (`WordStats`): a sentence starts in state ``<s>``; the next token
follows the bigram counts with absolute discounting (``max(c - d, 0) / c(prev)``)
and the held-back mass goes to the unigram distribution. Token ``</s>`` ends a
sentence; token ``<unk>`` stands for a word outside the kept vocabulary and is
spelled as a fresh word drawn from a Zipf law over an unbounded index, so the
vocabulary keeps growing with the corpus as real text does. The tail exponent
is the one (on a grid) whose generated passages have the fitting rows' word-trigram
distinct share (`trigram_distinct_share`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from packbench.algorithms.dedupe import words

from .data import NQ_OPEN_FILE, NQ_OPEN_SAMPLE, DataError, fetch, read_jsonl_gz, sample_path

__all__ = ["WordStats", "trigram_distinct_share", "passage_words", "fit", "load_word_stats", "STATS_NAME",
           "MIN_COUNT", "main"]

STATS_NAME = "nq-open-wordstats.json.gz"
MIN_COUNT = 3
DISCOUNT = 0.75
START, END, UNK = "<s>", "</s>", "<unk>"
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_TAIL_GRID = (1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.0)


def trigram_distinct_share(texts: Iterable[Sequence[str]]) -> float:
    """Distinct word trigrams over trigram occurrences, across all the word lists given.

    Args:
        texts: Word lists (normalised words, `dedupe.words`).

    Returns:
        The share in (0, 1]; 1.0 when there is no trigram at all. It falls as
        the number of texts grows (common phrases recur), so compare shares
        of equally many texts.
    """
    seen: set[tuple[str, ...]] = set()
    total = 0
    for ws in texts:
        total += max(len(ws) - 2, 0)
        seen.update(zip(ws, ws[1:], ws[2:]))
    return len(seen) / total if total else 1.0


def passage_words(rows: Sequence[dict]) -> list[tuple[str, ...]]:
    """The distinct DPR passages of `rows` (ctx text, no title) as word tuples, in row order."""
    seen: dict[tuple[str, ...], None] = {}
    for row in rows:
        seen.setdefault(words(row["ctxs"][0]["text"]), None)
    return list(seen)


@dataclass(frozen=True)
class WordStats:
    """A fitted bigram model over sentences (see the module doc).

    Attributes:
        vocab: Token strings; ids 0, 1, 2 are ``<s>``, ``</s>``, ``<unk>``.
        unigram: Count per token (``<s>`` has 0: it is never emitted).
        prev, nxt, count: The kept bigrams (count >= 2), sorted by (prev, next).
        prev_total: Per token, how many bigrams start with it (all counts).
        lengths: Words per passage of the fitting rows.
        tail_exponent: Zipf exponent of the spelled ``<unk>`` words (> 1).
        source: Where the counts come from.
    """

    vocab: tuple[str, ...]
    unigram: np.ndarray
    prev: np.ndarray
    nxt: np.ndarray
    count: np.ndarray
    prev_total: np.ndarray
    lengths: np.ndarray
    tail_exponent: float
    source: str

    def to_json(self) -> dict:
        """The stats as plain JSON values."""
        return {"source": self.source, "discount": DISCOUNT, "tail_exponent": self.tail_exponent,
                "vocab": list(self.vocab), "unigram": self.unigram.tolist(), "prev": self.prev.tolist(),
                "next": self.nxt.tolist(), "count": self.count.tolist(), "prev_total": self.prev_total.tolist(),
                "lengths": self.lengths.tolist()}

    @classmethod
    def from_json(cls, data: dict) -> "WordStats":
        """Stats from `to_json`'s values.

        Raises:
            ValueError: A field is missing or the arrays disagree in size.
        """
        try:
            stats = cls(tuple(data["vocab"]), np.asarray(data["unigram"], dtype=np.int64),
                        np.asarray(data["prev"], dtype=np.int64), np.asarray(data["next"], dtype=np.int64),
                        np.asarray(data["count"], dtype=np.int64), np.asarray(data["prev_total"], dtype=np.int64),
                        np.asarray(data["lengths"], dtype=np.int64), float(data["tail_exponent"]),
                        str(data["source"]))
        except KeyError as exc:
            raise ValueError(f"word stats: field {exc.args[0]!r} is missing") from None
        v = len(stats.vocab)
        if len(stats.unigram) != v or len(stats.prev_total) != v or not len(stats.prev) == len(stats.nxt) == len(
                stats.count) or not len(stats.lengths) or stats.tail_exponent <= 1.0:
            raise ValueError("word stats: the arrays disagree in size (vocab, unigram, prev_total, bigrams, "
                             "lengths) or tail_exponent <= 1")
        return stats

    def generate(self, n: int, rng: np.random.Generator, lengths: np.ndarray | None = None) -> list[str]:
        """`n` passages: sentences capitalised and ended by a full stop, the last one cut mid-sentence.

        Args:
            n: Number of passages.
            rng: The generator (every draw comes from it, in a fixed order).
            lengths: Words per passage; default: drawn from the fitted lengths.

        Returns:
            The passages; each has its length in words and ends where that
            length is reached, as DPR chunks cut Wikipedia mid-sentence.
        """
        return _generate(self, n, rng, lengths)


def _tables(stats: WordStats) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(bigram mass per token, cumulative row-offset bigram weights, first bigram per token, unigram cdf)."""
    v = len(stats.vocab)
    weight = np.maximum(stats.count - DISCOUNT, 0.0)
    kept = np.bincount(stats.prev, weights=weight, minlength=v)
    mass = np.divide(kept, stats.prev_total, out=np.zeros(v), where=stats.prev_total > 0)
    row_sum = np.where(kept > 0, kept, 1.0)
    # Each row's cumulative weights scaled into [prev, prev + 1): one searchsorted serves every row.
    start = np.searchsorted(stats.prev, np.arange(v + 1))
    cum = np.cumsum(weight) - np.repeat(np.concatenate([[0.0], np.cumsum(weight)])[start[:-1]], np.diff(start))
    scaled = stats.prev + cum / row_sum[stats.prev]
    cdf = np.cumsum(stats.unigram) / stats.unigram.sum()
    return mass, scaled, start, cdf


@lru_cache(maxsize=1 << 18)
def _tail_word(k: int) -> str:
    """The spelling of tail word `k` (>= 1): its base-26 letters, "zq" after short ones (no clash with real words)."""
    out = []
    while k:
        k, r = divmod(k, 26)
        out.append(chr(97 + r))
    return "".join(out) + ("zq" if len(out) < 3 else "")


def _generate(stats: WordStats, n: int, rng: np.random.Generator, lengths: np.ndarray | None) -> list[str]:
    mass, scaled, start, cdf = _tables(stats)
    want = rng.choice(stats.lengths, size=n) if lengths is None else np.asarray(lengths, dtype=np.int64)
    cur = np.zeros(n, dtype=np.int64)  # every passage starts a sentence
    have = np.zeros(n, dtype=np.int64)
    steps: list[np.ndarray] = []
    live = np.flatnonzero(have < want)
    while len(live):
        u = rng.random((3, len(live)))
        c = cur[live]
        by_bigram = u[0] < mass[c]
        nxt = np.minimum(np.searchsorted(cdf, u[2], side="right"), len(cdf) - 1)
        pick = np.searchsorted(scaled, c[by_bigram] + u[1][by_bigram], side="right")
        nxt[by_bigram] = stats.nxt[np.clip(pick, start[c[by_bigram]], start[c[by_bigram] + 1] - 1)]
        nxt[(nxt == 0) | ((nxt == 1) & (c == 0))] = 2  # no empty sentences
        step = np.full(n, -1, dtype=np.int64)
        step[live] = nxt
        steps.append(step)
        cur[live] = np.where(nxt == 1, 0, nxt)
        have[live] += nxt != 1
        live = live[have[live] < want[live]]
    grid = np.stack(steps, axis=1) if steps else np.zeros((n, 0), dtype=np.int64)
    return _render(stats.vocab, grid, rng.zipf(stats.tail_exponent, size=int(np.count_nonzero(grid == 2))))


def _render(vocab: Sequence[str], grid: np.ndarray, tail: np.ndarray) -> list[str]:
    """The texts of a token grid (a row per text, -1 after its end): sentences capitalised, ended by a full stop."""
    if grid.size == 0:
        return [""] * len(grid)
    strings = np.array(["", ".", "", *vocab[3:]], dtype=object)
    capital = np.array(["", ".", "", *(w.capitalize() for w in vocab[3:])], dtype=object)
    first = np.ones(grid.shape, dtype=bool)
    first[:, 1:] = grid[:, :-1] == 1
    out = np.where(first, capital[np.maximum(grid, 0)], strings[np.maximum(grid, 0)])
    unk = grid == 2
    spelled, inverse = np.unique(tail, return_inverse=True)
    names = np.array([_tail_word(k) for k in spelled.tolist()], dtype=object)
    out[unk] = np.where(first[unk], np.array([w.capitalize() for w in names], dtype=object)[inverse] if len(
        names) else names, names[inverse])
    lengths = np.count_nonzero(grid >= 0, axis=1).tolist()  # a text's tokens come first, then its padding
    return [" ".join(row[:k]).replace(" .", ".") for row, k in zip(out.tolist(), lengths)]


def _fit_counts(texts: Sequence[str], lengths: Sequence[int], source: str, tail_exponent: float) -> WordStats:
    sentences = [[words(s) for s in _SENTENCE.split(t)] for t in texts]
    freq = Counter(w for doc in sentences for s in doc for w in s)
    kept = sorted((w for w, c in freq.items() if c >= MIN_COUNT), key=lambda w: (-freq[w], w))
    vocab = (START, END, UNK, *kept)
    ids = {w: k for k, w in enumerate(vocab)}
    unigram = np.zeros(len(vocab), dtype=np.int64)
    pairs: Counter = Counter()
    for doc in sentences:
        for s in doc:
            seq = [0, *(ids.get(w, 2) for w in s), 1]
            for a, b in zip(seq, seq[1:]):
                pairs[a, b] += 1
                unigram[b] += 1
    prev_total = np.zeros(len(vocab), dtype=np.int64)
    for (a, _), c in pairs.items():
        prev_total[a] += c
    kept_pairs = sorted((a, b, c) for (a, b), c in pairs.items() if c >= 2)
    arr = np.array(kept_pairs, dtype=np.int64).reshape(-1, 3)
    return WordStats(vocab, unigram, arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), prev_total,
                     np.asarray(lengths, dtype=np.int64), tail_exponent, source)


def fit(rows: Sequence[dict], source: str) -> WordStats:
    """Fit the model on the distinct DPR passages of `rows`, the tail exponent by their trigram share.

    Args:
        rows: NQ-Open rows (``ctxs[0].text`` is read).
        source: What to record as the stats' source.

    Returns:
        The fitted stats.
    """
    seen: dict[tuple[str, ...], str] = {}
    for row in rows:
        seen.setdefault(words(row["ctxs"][0]["text"]), row["ctxs"][0]["text"])
    texts, word_lists = list(seen.values()), list(seen)
    real = trigram_distinct_share(word_lists)
    lengths = [len(ws) for ws in word_lists]
    best = None
    for a in _TAIL_GRID:
        stats = _fit_counts(texts, lengths, source, a)
        gen = stats.generate(len(texts), np.random.default_rng(0), np.asarray(lengths))
        share = trigram_distinct_share(map(words, gen))
        if best is None or abs(share - real) < best[0]:
            best = (abs(share - real), stats)
    return best[1]


@lru_cache(maxsize=2)
def load_word_stats(path: str | None = None) -> WordStats:
    """The shipped stats (or those at `path`).

    Raises:
        DataError: The shipped file is missing from the install.
        ValueError: The file is not word stats.
    """
    target = Path(path) if path else Path(__file__).resolve().parent / "samples" / STATS_NAME
    if not target.is_file():
        raise DataError(f"word stats {target.name} missing (expected in packbench/experiments/corpora/samples/); "
                        "reinstall packbench or rebuild with python -m packbench.experiments.corpora.word_stats")
    with gzip.open(target, "rt", encoding="utf-8") as fh:
        return WordStats.from_json(json.load(fh))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m packbench.experiments.corpora.word_stats",
                                     description="Fit the realistic workload's word statistics on NQ-Open.")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "samples" / STATS_NAME)
    args = parser.parse_args(argv)
    rows = read_jsonl_gz(fetch(NQ_OPEN_FILE))
    held_out = {r["source_row"] for r in read_jsonl_gz(sample_path(NQ_OPEN_SAMPLE))}
    fitting = [r for k, r in enumerate(rows) if k not in held_out]
    stats = fit(fitting, f"{NQ_OPEN_FILE.name} (sha256 {NQ_OPEN_FILE.sha256[:12]}...), ctx passages of the "
                         f"{len(fitting)} rows outside the embedded sample")
    text = json.dumps(stats.to_json(), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    args.out.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
    print(f"wrote {args.out.name}: {len(stats.vocab)} tokens, {len(stats.prev)} bigrams, "
          f"tail exponent {stats.tail_exponent}, {args.out.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
