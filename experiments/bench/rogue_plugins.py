"""Rogue plug-ins for `kills` and the containment tests: each misbehaves in its own way.

Named from outside packbench (`kills` copies this file into a user folder; the tests re-export these
from ``tests.rogue``), they stand in for a user's strategy with a bug.
"""

from __future__ import annotations

import os
import sys
import time

__all__ = ["exits", "hangs", "kills", "raises"]


def exits(items, budget):
    """Calls sys.exit(3), as a script's main would."""
    sys.exit(3)


def kills(items, budget):
    """Ends its process at once (os._exit): no exception, no cleanup."""
    os._exit(7)


def hangs(items, budget):
    """Never returns."""
    while True:
        time.sleep(60)


def raises(items, budget):
    """A plain bug."""
    raise ZeroDivisionError("bug in the plug-in")
