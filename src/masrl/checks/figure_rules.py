"""The rule of the survey's figure declarations (``figures`` in ``corpus/taxonomy.yaml``): a
registered kind (:data:`masrl.render.figures.KINDS`), a table of the survey with what the kind
needs, a name of its own, and footnote placeholders (:data:`masrl.render.figures.NOTE_PLACEHOLDER`)
that name real fields, values and columns. One rule of :data:`masrl.checks.validate.RULES` (T012).
"""

from __future__ import annotations

import re

from ..core.didyoumean import did_you_mean as _suggest
from ..corpus.declarations import figures as declared_figures
from ..corpus.load import TAXONOMY
from ..render.figures import KINDS, NOTE_PLACEHOLDER
from .declarations import numeric_columns, table_names


def figures(c) -> None:
    """Every declared figure: a registered kind, a table of the survey with what the kind needs,
    a name of its own, and footnote placeholders that name real fields, values and columns."""
    tax = c.tax
    names = table_names(tax)
    seen: set[str] = set()
    decls = {d.name: d for d in declared_figures(tax)}
    first: dict[str, int] = {}
    for i, spec in enumerate(tax.declared_list("figures")):
        name = spec.get("name") if isinstance(spec, dict) else None
        if isinstance(name, str):
            if name in first:  # figures are files (figures/<name>.svg): one would overwrite the other
                c.add(TAXONOMY, ("figures", i, "name"), f"{name!r} is declared twice (also figures[{first[name]}]); "
                                                        "figures are files, so give this one another name")
            first.setdefault(name, i)
    for i, spec in enumerate(tax.declared_list("figures")):
        path = ("figures", i)
        decl = decls.get(spec.get("name")) if isinstance(spec.get("name"), str) else None
        if decl is None or decl.spec is not spec:
            continue
        seen.add(decl.name)
        kind = KINDS.get(decl.kind)
        if kind is None:
            c.add(TAXONOMY, path + ("kind",), f"unknown figure kind {decl.kind!r}; masrl draws: {', '.join(KINDS)}"
                                              f"{_suggest(decl.kind, KINDS)}")
            continue
        if decl.table not in names:
            c.add(TAXONOMY, path + ("table",), f"{decl.table!r} is not a table of this survey; tables: "
                                               f"{', '.join(sorted(names))}{_suggest(decl.table, names)}")
            continue
        needed = kind.needs(tax, decl, names[decl.table])
        for key, message in needed:
            c.add(TAXONOMY, path + (key,), message)
        counts = numeric_columns(tax, decl.table)
        for key in kind.counts:
            given = decl.spec.get(key)
            for column in (given if isinstance(given, list) else [given] if given is not None else []):
                if not any(k == key for k, _ in needed) and column not in counts:
                    c.add(TAXONOMY, path + (key,), f"{column!r} is not a column of counts of table {decl.table} (a {decl.kind} "
                                                   f"figure draws it as a length); columns of counts: {', '.join(sorted(counts)) or 'none'}")
        for key, low, high in (("height", 0.5, 20.0), ("bar_height", 0.05, 1.0)):
            if key in decl.spec and not low <= float(decl.spec[key]) <= high:
                c.add(TAXONOMY, path + (key,), f"{decl.spec[key]} is out of range; allowed: {low} to {high}")
        for j, note in enumerate(decl.spec.get("notes") or []):
            _note(c, path + ("notes", j), str(note), numeric_columns(tax, decl.table))


def _note(c, path: tuple, note: str, columns) -> None:
    tax = c.tax
    braced = (m.group() for m in re.finditer(r"\{+[^{}]*\}+", note))  # as written: '{{retained}}', not what is left
    for stray in dict.fromkeys(b for b in braced if not NOTE_PLACEHOLDER.fullmatch(b)):
        c.add(TAXONOMY, path, f"{stray!r} is not a placeholder; allowed: {{retained}}, {{n}}, {{gap}}, {{sum:COLUMN}}, "
                              "{count:FIELD:VALUE}, {label:FIELD:VALUE}")
    for match in NOTE_PLACEHOLDER.finditer(note):
        _, kind, a, b = match.groups()
        if kind == "sum" and a not in columns:
            c.add(TAXONOMY, path, f"{match.group(0)}: {a!r} is not a column of counts of the figure's table; columns of "
                                  f"counts: {', '.join(sorted(columns)) or 'none'}")
        elif kind in ("count", "label"):
            field = tax.fields.get(a)
            if field is None:
                c.add(TAXONOMY, path, f"{match.group(0)}: unknown field {a!r}{_suggest(a, tax.fields)}")
            elif b not in field.values:
                c.add(TAXONOMY, path, f"{match.group(0)}: {b!r} is not a value of {a}; allowed: {', '.join(field.values)}")
