"""The README's paper list (jinja2 template spliced between the two marker
comments of ``README.md``).

Display text is Unicode (authors are stored decoded: ``Müller``, never
``M{\\"u}ller``); Markdown-significant characters of titles are escaped.
"""

from __future__ import annotations

import re

from ..bib import venues
from ..bib.bibtex import display_name
from .escape import MdSafe, md_code, md_text
from .markdown import render_template

START = "<!-- masrl:papers:start -->"
END = "<!-- masrl:papers:end -->"


def authors_display(authors: list[str]) -> str:
    """``Liu, Shuo`` + others -> ``Shuo Liu et al.``; each name read as the BibTeX export reads it
    (:func:`masrl.bib.bibtex.display_name`: ``Doe, Jr., John`` -> ``John Doe Jr.``, an organisation
    as written without its braces)."""
    name = display_name
    real = [a for a in authors if a != "others"]
    if not real:
        return "unknown"
    if len(real) == 1 and len(authors) == 1:
        return name(real[0])
    if len(real) == 2 and len(authors) == 2:
        return f"{name(real[0])} and {name(real[1])}"
    return f"{name(real[0])} et al."


def _tags(record: dict, tax) -> MdSafe:
    """The tags line of one record (taxonomy ``readme.tags``): each single value as a code span
    (after its ``prefix``), a list field's values as text and only when it holds any, joined by `` · ``."""
    parts = []
    for tag in tax.declared("readme").get("tags") or []:
        if not isinstance(tag, dict) or tag.get("field") not in tax.fields or tag["field"] not in record:
            continue
        value = record[tag["field"]]
        if isinstance(value, list):
            if value:
                parts.append(md_text(", ".join(str(v) for v in value)))
            continue
        prefix = f"{md_text(tag['prefix'])} " if tag.get("prefix") else ""
        parts.append(prefix + md_code(value))
    return MdSafe(" · ".join(parts))


def papers_markdown(records: list[dict], tax, headline: dict) -> str:
    """The generated paper list (Markdown), grouped by the taxonomy's ``readme.group_by`` field in
    taxonomy order (one group of all records when it declares none), each record with its tags."""
    readme = tax.declared("readme")
    group = readme.get("group_by") if readme.get("group_by") in tax.fields else None
    noun = readme.get("group_noun") if isinstance(readme.get("group_noun"), list) else ["group", "groups"]
    field = tax.fields.get(group) if group else None
    codes = field.values if field else ("",)
    groups = []
    for code in codes:
        members = sorted((r for r in records if field is None or r.get(group) == code),
                         key=lambda r: (-int(r["year"]), str(r["title"]).casefold(), r["key"]))
        if not members:
            continue
        rows = []
        for r in members:
            rows.append({**r, "authors_display": authors_display(r["authors"]), "venue": venues.shown(r.get("venue", "")),
                         "link": r["url"].split(" ; ")[0], "tag_line": _tags(r, tax)})
        groups.append({"code": code, "label": field.value_label(code) if field else "Papers", "records": rows})
    labels = [tax.fields[t["field"]].label for t in readme.get("tags") or []
              if isinstance(t, dict) and t.get("field") in tax.fields]
    legend = str(readme.get("tags_legend") or " · ".join(labels))
    return render_template("readme_papers.md.j2", groups=groups, headline=headline, grouped=field is not None,
                           noun=noun, legend=legend)


class MarkersMissing(ValueError):
    """README.md lacks the paper-list markers (a user mistake)."""


def _fenced(readme: str) -> list[tuple[int, int]]:
    """The spans of the fenced code blocks of ``readme`` (from a line opening with ```` ``` ```` or ``~~~``
    to the line that closes it with the same characters, or to the end)."""
    spans, opened = [], None
    for line in re.finditer(r"^[ \t]{0,3}(`{3,}|~{3,}).*$", readme, re.MULTILINE):
        fence = line.group(1)
        if opened is None:
            opened = (line.start(), fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]) and not line.group().strip().strip(fence[0]):
            spans.append((opened[0], line.end()))
            opened = None
    return spans + ([(opened[0], len(readme))] if opened else [])


def _marker_lines(readme: str, marker: str) -> list[re.Match]:
    """Where ``marker`` stands on a line of its own (spaces around it allowed), outside fenced code blocks; the
    same text inside a line (a title, a sentence quoting it) or in a code block showing it is text."""
    fenced = _fenced(readme)
    return [m for m in re.finditer(rf"^[ \t]*{re.escape(marker)}[ \t]*\r?$", readme, re.MULTILINE)
            if not any(start <= m.start() < end for start, end in fenced)]


def list_bounds(readme: str) -> tuple[int, int]:
    """Where the paper list is: from the end of the start marker to the start of the end marker. Each marker
    is a line of its own, once: the text around the list is never taken for it.

    Raises:
        MarkersMissing: if a marker line is missing, given twice, or the end comes first.
    """
    starts, ends = _marker_lines(readme, START), _marker_lines(readme, END)
    if len(starts) > 1 or len(ends) > 1:
        twice, found = (START, starts) if len(starts) > 1 else (END, ends)
        lines = ", ".join(str(readme.count("\n", 0, m.start()) + 1) for m in found)
        raise MarkersMissing(f"README.md has the line {twice} {len(found)} times (lines {lines}): "
                             "keep the one where the paper list goes")
    if not starts or not ends or ends[0].start() < starts[0].end():
        raise MarkersMissing(f"README.md must contain the lines {START} and {END} (in that order, each on a line of "
                             "its own) around the paper list")
    return (starts[0].start() + starts[0].group().index(START) + len(START),
            ends[0].start() + ends[0].group().index(END))


def splice(readme: str, generated: str) -> str:
    """``readme`` with the text between the markers (:func:`list_bounds`) replaced by ``generated``.

    Raises:
        MarkersMissing: as :func:`list_bounds`.
    """
    start, end = list_bounds(readme)
    newline = "\r\n" if "\r\n" in readme else "\n"  # keep the file's line endings (a Windows checkout)
    block = newline + generated.rstrip("\n").replace("\n", newline) + newline
    return readme[:start] + block + readme[end:]
