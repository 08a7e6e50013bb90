"""Sphinx configuration of packbench's API reference, built from the docstrings (Google style).

Build (offline; CI runs it with warnings as errors):
    pip install -e '.[docs]' && sphinx-build -W -b html docs/api docs/api/_build
"""

project = "packbench"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
# `name` in a docstring refers to a Python object; unresolved ones stay plain text (no nitpicky mode).
default_role = "py:obj"
html_theme = "alabaster"
exclude_patterns = ["_build"]
napoleon_use_ivar = True  # a NamedTuple's fields are documented once, from its Attributes section

import re  # noqa: E402 - below the settings it serves


def _plain_docstring(app, what, name, obj, options, lines):
    """Docstrings are written to be read as text: make the two habits reST misreads literal.

    ```Item`s``` (a role glued to a plural s) and ``|A & B|`` (a set size, not a substitution).
    """
    for k, line in enumerate(lines):
        line = re.sub(r"`(\w[^`]*)`s\b", r"`\1`\\ s", line)
        lines[k] = re.sub(r"(?<![`\\])\|", r"\\|", line) if "|" in line and "||" not in line else line


def setup(app):
    app.connect("autodoc-process-docstring", _plain_docstring)
