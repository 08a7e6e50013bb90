"""The console entry point (``packbench`` and ``python -m packbench``)."""

from .experiments.cli import main

__all__ = ["main"]
