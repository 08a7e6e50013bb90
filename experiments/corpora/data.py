"""Data files of the real corpora: find, download, verify, read; the embedded samples.

The data directory is ``$PACKBENCH_DATA_DIR`` when set (CI points it at the
shared data folder), else ``$XDG_CACHE_HOME/packbench`` (``~/.cache/packbench``).
Nothing is downloaded at run time: ``packbench fetch`` downloads a missing file
once from its pinned upstream address, verifies its SHA-256 and moves it into
place atomically, so a crash or a bad download never leaves a partial file
under the real name. A present file is verified
too: a corrupt or truncated copy is an error, never a silent partial corpus.

A small sample of a corpus ships inside the package (``corpora/samples/``, with
its source and licence in the README there). `load_rows` uses it when no data
directory is set and the user cache does not hold the full file, so the main
job runs on a machine with neither network nor data; the result says which
data it read.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import tempfile
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["DATA_DIR_ENV", "DataFile", "DataError", "DataUnavailableError", "NQ_OPEN_FILE", "NQ_OPEN_SAMPLE",
           "EmbeddedSample", "LoadedData", "DATA_MODES", "data_dir", "sha256_of", "fetch", "read_jsonl_gz",
           "load_rows", "sample_path"]

DATA_DIR_ENV = "PACKBENCH_DATA_DIR"
DOWNLOAD_TIMEOUT = 60.0


class DataError(FileNotFoundError):
    """A data file is missing and cannot be downloaded, or is corrupt."""


class DataUnavailableError(DataError):
    """A data file is not in the data directory and downloading it failed (as opposed to corrupt)."""


@dataclass(frozen=True)
class DataFile:
    """A pinned data file.

    Attributes:
        name: File name inside the data directory.
        url: Pinned upstream address (a commit, not a branch).
        sha256: Expected SHA-256 of the file's bytes.
    """

    name: str
    url: str
    sha256: str


NQ_OPEN_FILE = DataFile(
    "nq-open-oracle.jsonl.gz",
    "https://github.com/nelson-liu/lost-in-the-middle/raw/29b8a6d042ce29abccee3db1a73171a107d7e6af/"
    "qa_data/nq-open-oracle.jsonl.gz",
    "6a7f72b846f663a133ef952244e5a4e43f06bcf190afe34e8fbe687ce0d1653e",
)


def data_dir() -> Path:
    """The data directory: ``$PACKBENCH_DATA_DIR``, else the user cache directory."""
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "packbench"


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(datafile: DataFile, target: Path, timeout: float) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{datafile.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(datafile.url, timeout=timeout) as resp:
            for block in iter(lambda: resp.read(1 << 16), b""):
                digest.update(block)
                out.write(block)
        if digest.hexdigest() != datafile.sha256:
            raise DataError(f"downloaded {datafile.name} from {datafile.url} has SHA-256 {digest.hexdigest()}, "
                            f"expected {datafile.sha256}; nothing was saved")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def fetch(datafile: DataFile, directory: Path | None = None, timeout: float = DOWNLOAD_TIMEOUT,
          download: bool = False) -> Path:
    """Path of a verified local copy of `datafile`; downloaded when missing only if `download`.

    Args:
        datafile: The pinned file.
        directory: Data directory (default `data_dir()`).
        timeout: Seconds for the download's network operations.
        download: Download a missing file (``packbench fetch``); run-time readers leave it False.

    Returns:
        The path of the verified file.

    Raises:
        DataError: The file is missing and the download failed (the message says
            where it looked and which variable to set), or a copy has the wrong SHA-256.
    """
    directory = data_dir() if directory is None else Path(directory)
    path = directory / datafile.name
    if not path.exists() and not download:
        raise DataUnavailableError(f"{datafile.name} is not in {directory}; set {DATA_DIR_ENV} to a directory that "
                                   f"holds it, or run `packbench fetch` once to download it there (packbench "
                                   f"never downloads at run time)")
    if not path.exists():
        try:
            _download(datafile, path, timeout)
        except DataError:
            raise
        except OSError as exc:  # URLError, timeouts, refused connections, unwritable directory
            raise DataUnavailableError(f"{datafile.name} is not in {directory} and downloading it from {datafile.url} "
                            f"failed ({exc}); set {DATA_DIR_ENV} to a directory that holds the file, or "
                            f"allow network access once") from exc
    actual = sha256_of(path)
    if actual != datafile.sha256:
        raise DataError(f"{path} has SHA-256 {actual}, expected {datafile.sha256}: the file is corrupt or "
                        f"truncated; delete it to download it again")
    return path


def read_jsonl_gz(path: Path) -> list[dict[str, Any]]:
    """All JSON objects of a gzip-compressed JSON-lines file.

    Raises:
        DataError: The gzip stream is corrupt or truncated, or a line is not a
            JSON object (the message gives the line number).
    """
    rows = []
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}:{lineno}: not valid JSON ({exc.msg}); the file is corrupt") from None
                if not isinstance(row, dict):
                    raise DataError(f"{path}:{lineno}: expected a JSON object, got {type(row).__name__}")
                rows.append(row)
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: corrupt or truncated gzip data ({type(exc).__name__}: {exc}); "
                        f"delete it to download it again") from None
    return rows


@dataclass(frozen=True)
class EmbeddedSample:
    """A sample of a pinned data file, shipped as package data.

    Attributes:
        name: File name inside ``corpora/samples/``.
        sha256: Expected SHA-256 of the file's bytes (a damaged install is an error).
        rows: Rows in the sample.
        of: The full file it was drawn from.
        full_rows: Rows in the full file.
    """

    name: str
    sha256: str
    rows: int
    of: DataFile
    full_rows: int


# Built by `python -m packbench.experiments.corpora.make_sample` from the pinned file.
NQ_OPEN_SAMPLE = EmbeddedSample("nq-open-sample.jsonl.gz",
                                "e978874cc9412ff5ae05d52c85ce6a87b6349f30cd3457ab5c550e40f6a44588",
                                300, NQ_OPEN_FILE, 2655)

DATA_MODES = ("auto", "full", "sample")


@dataclass(frozen=True)
class LoadedData:
    """Rows of a corpus and which data they came from.

    Attributes:
        rows: The JSON rows.
        origin: ``"full"`` (the pinned file) or ``"sample"`` (the embedded sample).
        note: One line for the console and the manifest saying which data was used and why.
    """

    rows: list[dict[str, Any]]
    origin: str
    note: str


def sample_path(sample: EmbeddedSample) -> Path:
    """Path of an embedded sample inside the installed package, its SHA-256 verified.

    Raises:
        DataError: The file is missing from the install or damaged.
    """
    path = Path(__file__).resolve().parent / "samples" / sample.name
    if not path.is_file():
        raise DataError(f"the embedded sample {sample.name} is missing from the installed package "
                        f"(expected at packbench/experiments/corpora/samples/); reinstall packbench")
    actual = sha256_of(path)
    if actual != sample.sha256:
        raise DataError(f"the embedded sample {sample.name} has SHA-256 {actual}, expected {sample.sha256}: "
                        f"the install is damaged; reinstall packbench")
    return path


def _sample_rows(sample: EmbeddedSample, why: str) -> LoadedData:
    rows = read_jsonl_gz(sample_path(sample))
    note = f"embedded sample, {len(rows):,} of the {sample.full_rows:,} questions of {sample.of.name} ({why})"
    return LoadedData(rows, "sample", note)


def load_rows(full: DataFile, sample: EmbeddedSample, mode: str = "auto",
              timeout: float = DOWNLOAD_TIMEOUT) -> LoadedData:
    """The rows of a corpus: the full pinned file, or its embedded sample.

    Args:
        full: The pinned full file.
        sample: Its embedded sample.
        mode: ``"full"``: the pinned file from the data directory, an error when
            it is not there. ``"sample"``: the embedded sample. ``"auto"``: the
            full file when ``$PACKBENCH_DATA_DIR`` is set (an error when it is
            missing there) or when the user cache has it; otherwise the
            embedded sample. Nothing is downloaded (``packbench fetch`` does).
        timeout: Seconds for the download's network operations.

    Returns:
        The rows, their origin and a one-line note.

    Raises:
        ValueError: Unknown mode.
        DataError: The full file is required but missing and not downloadable,
            or a copy (or the sample) is corrupt.
    """
    if mode not in DATA_MODES:
        raise ValueError(f"unknown data mode {mode!r}; valid: {', '.join(DATA_MODES)}")
    if mode == "sample":
        return _sample_rows(sample, "data = 'sample'")
    directory = data_dir()
    explicit = bool(os.environ.get(DATA_DIR_ENV))
    try:
        path = fetch(full, directory, timeout=timeout)
    except DataUnavailableError as exc:
        if mode == "full" or explicit:
            raise
        # The note goes into manifests users commit: no path of their machine in it.
        return _sample_rows(sample, f"{DATA_DIR_ENV} is not set and the user cache does not hold {full.name}; "
                                    f"for the full file set {DATA_DIR_ENV} to a folder holding it or run "
                                    f"`packbench fetch` once")
    where = f"${DATA_DIR_ENV}" if explicit else "the user cache"
    rows = read_jsonl_gz(path)
    return LoadedData(rows, "full", f"full file {full.name} ({len(rows):,} rows) from {where}")
