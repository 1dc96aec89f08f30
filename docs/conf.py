"""Sphinx configuration of masrl's manual (docs/). Build it with
``sphinx-build -W --keep-going -b html docs docs/_build/html`` (the `docs` extra of pyproject.toml
installs the generator; CONTRIBUTING.md has the command CI runs). Nothing is fetched from the
network: no intersphinx, no remote images."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))  # masrl_docs: the reference pages generated from masrl's code

from masrl import __version__  # noqa: E402

project = "masrl"
author = "masrl developers"
copyright = "masrl developers; code MIT, corpus data CC0-1.0"  # noqa: A001 - Sphinx's name
version = release = __version__

extensions = [
    "myst_parser",      # the pages are Markdown (MyST)
    "sphinxarg.ext",    # the CLI reference, from masrl's argument parser
    "masrl_docs",       # the file formats, kinds, exit codes and environment, from masrl's code
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
language = "en"

myst_heading_anchors = 3
smartquotes = False  # `--root` stays two hyphens, 'quotes' stay as typed: this is a manual of a command line
myst_enable_extensions = ["colon_fence"]

highlight_language = "text"  # a literal block (the CLI's examples) is shown as written, not as Python

html_theme = "furo"
html_title = f"masrl {version}"
html_static_path = ["_static"]
html_show_sourcelink = False
