"""Tables and documents as Markdown (GitHub-flavoured), deterministic.

:func:`table_md` renders one :class:`pandas.DataFrame` (index first); cells
are escaped for Markdown tables (``|`` and line breaks). Documents are jinja2
templates from ``masrl/templates`` rendered with :func:`render_template`
(strict undefined variables; HTML templates autoescape).
"""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd


def cell(value: object) -> str:
    """One Markdown table cell: ``|`` escaped, line breaks folded, floats as given."""
    text = str(value)
    return " ".join(text.replace("\\", "\\\\").replace("|", "\\|").split()) if text else ""


def md_inline(text: object) -> str:
    """Inline Markdown text: ``\\ * _ [ ] < > ` |`` escaped, whitespace collapsed."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", " ".join(str(text).split()))


def table_md(frame: pd.DataFrame, numeric_right: bool = True) -> str:
    """A Markdown table: first column = the index (header = index name), then the columns.

    Integer columns are right-aligned. Returns the table with a final newline.
    """
    header = [frame.index.name or ""] + [str(c) for c in frame.columns]
    align = ["---"] + ["---:" if numeric_right and pd.api.types.is_integer_dtype(frame[c]) else "---" for c in frame.columns]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join(align) + "|"]
    for idx, row in zip(frame.index, frame.itertuples(index=False)):
        lines.append("| " + " | ".join(cell(v) for v in (idx, *row)) + " |")
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=1)
def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("masrl", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html", "htm", "html.j2"), default_for_string=False, default=False),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(md_table=table_md, md_cell=cell, md_inline=md_inline)
    return env


def render_template(name: str, **context: object) -> str:
    """Render template ``name`` (e.g. ``stats.md.j2``) with ``context``. Filters:
    ``md_table`` (a DataFrame), ``md_cell`` (a table cell), ``md_inline`` (inline
    text). Raises ``jinja2.UndefinedError`` on a missing variable (a programming
    error, never user data)."""
    return _environment().get_template(name).render(**context)
