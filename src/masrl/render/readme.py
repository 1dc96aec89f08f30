"""The README's paper list (jinja2 template spliced between the two marker
comments of ``README.md``).

Display text is Unicode (authors are stored decoded: ``Müller``, never
``M{\\"u}ller``); Markdown-significant characters of titles are escaped.
"""

from __future__ import annotations

from ..bib.bibtex import display_name
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


def papers_markdown(records: list[dict], tax, headline: dict) -> str:
    """The generated paper list (Markdown), grouped by category in taxonomy order."""
    field = tax.fields["category"]
    groups = []
    for code in field.values:
        members = sorted((r for r in records if r["category"] == code), key=lambda r: (-int(r["year"]), str(r["title"]).casefold(), r["key"]))
        if not members:
            continue
        rows = []
        for r in members:
            rows.append({**r, "authors_display": authors_display(r["authors"]),
                         "link": r["url"].split(" ; ")[0]})
        groups.append({"code": code, "label": field.value_label(code), "records": rows})
    return render_template("readme_papers.md.j2", groups=groups, headline=headline)


class MarkersMissing(ValueError):
    """README.md lacks the paper-list markers (a user mistake)."""


def splice(readme: str, generated: str) -> str:
    """``readme`` with the text between the markers replaced by ``generated``.

    Raises:
        MarkersMissing: if the markers are missing or out of order.
    """
    start, end = readme.find(START), readme.find(END)
    if start < 0 or end < start:
        raise MarkersMissing(f"README.md must contain the lines {START} and {END} (in that order) around the paper list")
    newline = "\r\n" if "\r\n" in readme else "\n"  # keep the file's line endings (a Windows checkout)
    block = newline + generated.rstrip("\n").replace("\n", newline) + newline
    return readme[: start + len(START)] + block + readme[end:]
