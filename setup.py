"""The optional C kernels (the default dedupe's join, `pack`'s pass over the items); the rest is in pyproject.toml.

The extension is `optional`: where it cannot be compiled (no compiler, no
Python headers) the install still succeeds and `algorithms/dedupe/exact.py`
runs its numpy path, with the same answers (and `algorithms/columns.py` its Python path).
"""

import sys

from setuptools import Extension, setup

_FLAGS = [] if sys.platform == "win32" else ["-O3", "-fno-strict-aliasing"]

setup(ext_modules=[Extension("packbench.algorithms.dedupe._jaccard_native",
                             sources=["algorithms/dedupe/_native/jaccard.c"],
                             extra_compile_args=_FLAGS, optional=True),
                   Extension("packbench.algorithms._columns_native", sources=["algorithms/_native/columns.c"],
                             extra_compile_args=_FLAGS, optional=True)])
