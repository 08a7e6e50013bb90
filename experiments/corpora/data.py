"""Data files of the real corpora: find, download, verify, read.

The data directory is ``$PACKBENCH_DATA_DIR`` when set (CI points it at the
shared data folder), else ``$XDG_CACHE_HOME/packbench`` (``~/.cache/packbench``).
A file missing there is downloaded from its pinned upstream address, its
SHA-256 verified, and moved into place atomically, so a crash or a bad download
never leaves a partial file under the real name. A present file is verified
too: a corrupt or truncated copy is an error, never a silent partial corpus.
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

__all__ = ["DATA_DIR_ENV", "DataFile", "DataError", "NQ_OPEN_FILE", "data_dir", "sha256_of", "fetch",
           "read_jsonl_gz"]

DATA_DIR_ENV = "PACKBENCH_DATA_DIR"
DOWNLOAD_TIMEOUT = 60.0


class DataError(FileNotFoundError):
    """A data file is missing and cannot be downloaded, or is corrupt."""


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


def fetch(datafile: DataFile, directory: Path | None = None, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """Path of a verified local copy of `datafile`, downloading it when missing.

    Args:
        datafile: The pinned file.
        directory: Data directory (default `data_dir()`).
        timeout: Seconds for the download's network operations.

    Returns:
        The path of the verified file.

    Raises:
        DataError: The file is missing and the download failed (the message says
            where it looked and which variable to set), or a copy has the wrong SHA-256.
    """
    directory = data_dir() if directory is None else Path(directory)
    path = directory / datafile.name
    if not path.exists():
        try:
            _download(datafile, path, timeout)
        except DataError:
            raise
        except OSError as exc:  # URLError, timeouts, refused connections, unwritable directory
            raise DataError(f"{datafile.name} is not in {directory} and downloading it from {datafile.url} "
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
