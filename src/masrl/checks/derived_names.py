"""Names masrl derives from the controlled vocabulary must stay distinct.

A field or value code becomes part of other names: the LaTeX macro of a count
(``domain`` + ``web_use`` -> ``\\NumDomainWebUse``, see
:func:`masrl.render.numbers.camel`), a table file
(``reports/tables/<field>.csv``, ``<rows>_x_<cols>.csv``) and a CSV column or
row label. Codes that differ only in ``_``, ``-``, ``.``, digits' spelling or
case (``web_use`` and ``web-use``; ``NR`` and ``nr``) would share a macro, or
a file on a case-insensitive file system, and one count would silently replace
the other. A field name holding ``_x_`` would be taken for a crosstab's table.
:func:`collisions` finds every such name.
"""

from __future__ import annotations

from ..corpus.taxonomy import Taxonomy
from ..render.numbers import camel

#: Macros of the headline counts (``reports/tex/numbers.tex``).
HEADLINE_MACROS = ("NumRetained", "NumExcluded", "NumAudited")


def collisions(tax: Taxonomy) -> list[tuple[tuple, str]]:
    """``[(taxonomy path, message)]`` for every field or value whose derived name
    (macro, table file, CSV label) is empty or equal to another's."""
    out: list[tuple[tuple, str]] = []
    macros: dict[str, str] = {name: "a headline count" for name in HEADLINE_MACROS}
    files: dict[str, str] = {}
    for field in tax.fields.values():
        path = ("fields", field.name)
        if not camel(field.name):
            out.append((path, f"field name {field.name!r} has no ASCII letter or digit, so it cannot be part of a LaTeX macro name"))
        if "_x_" in field.name:
            out.append((path, f"field name {field.name!r} holds '_x_', which names a crosstab's table (<rows>_x_<columns>): "
                              "its table would be taken for one; choose a name without it"))
        key = field.name.casefold()
        if key in files:
            out.append((path, f"field {field.name!r} and field {files[key]!r} differ only in case; their tables would "
                              "share a file on a case-insensitive file system"))
        files.setdefault(key, field.name)
        labels: dict[str, str] = {}
        for code in field.values:
            vpath = path + ("values", code)
            if not camel(code):
                out.append((vpath, f"value {code!r} has no ASCII letter or digit, so it cannot be part of a LaTeX macro "
                                   "name; use a code such as 'other'"))
                continue
            macro = f"Num{camel(field.name)}{camel(code)}"
            if macro in macros:
                out.append((vpath, f"{field.name}: {code!r} becomes the LaTeX macro \\{macro}, like {macros[macro]}; "
                                   "rename one of them (codes must differ in more than '_', '-', '.' or case)"))
            macros.setdefault(macro, f"{field.name}: {code!r}")
            label = code.casefold()
            if label in labels:
                out.append((vpath, f"{field.name}: {code!r} and {labels[label]!r} differ only in case; CSV readers and "
                                   "spreadsheets that ignore case would mix them up; rename one of them"))
            labels.setdefault(label, code)
    for i, (rows, cols) in enumerate(tax.crosstabs):
        key = f"{rows}_x_{cols}".casefold()
        if key in files:
            out.append((("crosstabs", i), f"crosstab [{rows}, {cols}] would write the table {rows}_x_{cols}, which is also "
                                          f"the table of {files[key]!r} (file names are compared ignoring case)"))
        files.setdefault(key, f"{rows}_x_{cols}")
    return out
