"""The optional C kernel of the default dedupe; everything else is declared in pyproject.toml.

The extension is `optional`: where it cannot be compiled (no compiler, no
Python headers) the install still succeeds and `algorithms/dedupe/exact.py`
runs its numpy path, with the same answers.
"""

import sys

from setuptools import Extension, setup

_FLAGS = [] if sys.platform == "win32" else ["-O3", "-fno-strict-aliasing"]

setup(ext_modules=[Extension("packbench.algorithms.dedupe._jaccard_native",
                             sources=["algorithms/dedupe/_native/jaccard.c"],
                             extra_compile_args=_FLAGS, optional=True)])
