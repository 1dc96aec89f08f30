"""Tables and documents as Markdown (GitHub-flavoured), deterministic.

:func:`table_md` renders one :class:`pandas.DataFrame` (index first), every
cell through :func:`masrl.render.escape.md_text`. Documents are jinja2
templates from ``masrl/templates`` rendered with :func:`render_template`
(strict undefined variables). Markdown templates (``*.md.j2``) escape every
``{{ value }}`` with :func:`~masrl.render.escape.md_text` unless the value is
:class:`~masrl.render.escape.MdSafe` (a rendered table, link or code span);
HTML templates (``*.html.j2``) autoescape HTML.
"""

from __future__ import annotations

from functools import lru_cache

from masrl.core.tabular import pd

from .escape import MdSafe, html_href, md_code, md_link, md_text, md_url


def cell(value: object) -> MdSafe:
    """One Markdown table cell (:func:`~masrl.render.escape.md_text`)."""
    return md_text(value)


def md_inline(text: object) -> MdSafe:
    """Inline Markdown text (:func:`~masrl.render.escape.md_text`)."""
    return md_text(text)


def table_md(frame: pd.DataFrame, numeric_right: bool = True) -> MdSafe:
    """A Markdown table: first column = the index (header = index name), then the columns.

    Integer columns are right-aligned; an integer column named ``change`` (a pool minus its
    release) is shown signed (``+1``, ``-2``, ``0``). Returns the table with a final newline.
    """
    header = [frame.index.name or ""] + [str(c) for c in frame.columns]
    integer = [pd.api.types.is_integer_dtype(frame[c]) or _digits(frame[c]) for c in frame.columns]
    align = ["---"] + ["---:" if numeric_right and i else "---" for i in integer]
    signed = [str(c) == "change" and i for c, i in zip(frame.columns, integer)]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "|".join(align) + "|"]
    for idx, row in zip(frame.index, frame.itertuples(index=False, name=None)):
        values = [f"{int(v):+d}" if s and v else v for v, s in zip(row, signed)]  # 0 and blanks as they are
        lines.append("| " + " | ".join(cell(v) for v in (idx, *values)) + " |")
    return MdSafe("\n".join(lines) + "\n")


def _digits(column: pd.Series) -> bool:
    """A text column of counts with blanks (an updated review's PRISMA classes): ``"3"``, ``""``."""
    values = [str(v) for v in column if str(v) != ""]
    text = column.dtype == object or pd.api.types.is_string_dtype(column.dtype)
    return text and bool(values) and all(v.isdigit() for v in values)


def _finalize(value: object) -> object:
    """Applied by jinja2 to every ``{{ value }}`` of a Markdown template."""
    if isinstance(value, MdSafe) or value is None:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return md_text(value)


def _raw(value: object) -> MdSafe:
    """Markup written by the template itself (a macro's output), not user data."""
    return MdSafe(str(value))


@lru_cache(maxsize=2)
def _environment(html: bool):
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("masrl", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=html,
        finalize=None if html else _finalize,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    if html:
        env.filters.update(http_href=html_href)
    else:
        env.filters.update(md_table=table_md, md_cell=cell, md_inline=md_inline, md_code=md_code, md_link=md_link,
                           md_url=md_url, md_raw=_raw)
    return env


def render_template(name: str, **context: object) -> str:
    """Render template ``name`` (e.g. ``stats.md.j2``) with ``context``.

    Markdown filters: ``md_table`` (a DataFrame), ``md_code`` (a code span),
    ``md_link(url)`` (``{{ text | md_link(url) }}``: a link, or the text alone if
    ``url`` is not http(s)), ``md_raw`` (template-made markup such as a macro's
    output); every other value is escaped as text. HTML filter: ``http_href``.
    Raises ``jinja2.UndefinedError`` on a missing variable (a programming error,
    never user data).
    """
    html = name.endswith((".html.j2", ".htm.j2"))
    return _environment(html).get_template(name).render(**context)
