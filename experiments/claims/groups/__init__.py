"""The claim groups, one module each: a function ``Settings -> GroupOutput`` and the measures it names.

They import `checks` and `core` (never each other, never `measures` or `run`),
so `measures` and `run` can collect them without a circle.
"""
