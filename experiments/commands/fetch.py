"""`packbench fetch`: download the pinned full data files once, verified, into the data directory.

The only place packbench reaches the network for data: runs read the data directory (or the user
cache) and fall back to the embedded sample, never downloading anything themselves.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register `packbench fetch`'s options."""
    parser.add_argument("--dir", type=Path, default=None,
                        help="data directory to fill (default: $PACKBENCH_DATA_DIR, else the user cache)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds for the network operations")


def main(args: argparse.Namespace) -> int:
    """Download each pinned file that is missing (SHA-256 verified) and print where it is.

    Raises:
        DataError: A download failed or gave the wrong SHA-256 (nothing is saved then).
    """
    from ..corpora.data import DOWNLOAD_TIMEOUT, NQ_OPEN_FILE, data_dir, fetch

    directory = args.dir if args.dir is not None else data_dir()
    timeout = DOWNLOAD_TIMEOUT if args.timeout is None else args.timeout
    for datafile in (NQ_OPEN_FILE,):
        path = fetch(datafile, directory, timeout=timeout, download=True)
        print(f"{datafile.name}: {path} (SHA-256 verified)")
    return 0
