"""The generated parts of the reference pages, as Markdown: file formats (from masrl's JSON
Schemas), the kinds of tables, columns and figures, the columns of an update round's sheets,
the exit codes and the environment variables. Each function reads masrl's code; each
``problems_*`` function says what the code has that the descriptions lack, or the reverse (the
docs build turns each into a warning, and ``sphinx-build -W`` into a failure)."""

from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path
from typing import Callable

from . import schemas

#: The source of masrl (the package, not the tests).
PACKAGE = Path(__file__).resolve().parents[3] / "src" / "masrl"


def _cell(text: str) -> str:
    """Text for a cell of a Markdown table (a ``|`` of the text would end the cell)."""
    return text.replace("|", "\\|")


def _tax_of_schemes():
    """A taxonomy with no field and every identifier scheme masrl knows: the schemas of records
    made from it hold masrl's own keys only."""
    from masrl.bib.identifiers import STORED_PATTERNS
    from masrl.corpus.taxonomy import Taxonomy

    schemes = {name: {"label": name, "definition": name, **({"list": True} if name == "url" else {})}
               for name in STORED_PATTERNS}
    return Taxonomy({"format_version": 2, "fields": {}, "identifier_schemes": schemes})


def _excluded() -> dict:
    from masrl.corpus.schema import excluded_schema

    schema = copy.deepcopy(excluded_schema(_tax_of_schemes()))
    year = schema["properties"]["year"]
    year.pop("maximum", None)  # next year: the page would change on New Year's Day
    return schema


def _retained() -> dict:
    from masrl.corpus.schema import retained_schema

    return retained_schema(_tax_of_schemes(), for_report=True)


def _releases() -> dict:
    from masrl.corpus.schema import ERRATA_SCHEMA, RELEASES_SCHEMA

    schema = copy.deepcopy(RELEASES_SCHEMA)
    schema["properties"]["errata"] = ERRATA_SCHEMA
    return schema


def _trace() -> dict:
    return json.loads((PACKAGE / "trace" / "trace.schema.json").read_text(encoding="utf-8"))


def _import(module: str, name: str) -> Callable[[], dict]:
    def load() -> dict:
        import importlib

        return getattr(importlib.import_module(module), name)

    return load


#: Every file format the reference documents: its name (and descriptions file) -> its schema.
FORMATS: dict[str, Callable[[], dict]] = {
    "taxonomy": _import("masrl.corpus.taxonomy_schema", "TAXONOMY_SCHEMA"),
    "retained": _retained,
    "excluded": _excluded,
    "claims": _import("masrl.corpus.schema", "CLAIMS_SCHEMA"),
    "releases": _releases,
    "protocol": _import("masrl.checks.protocol", "PROTOCOL_SCHEMA"),
    "round": _import("masrl.checks.protocol", "ROUND_SCHEMA"),
    "trace": _trace,
}


def format_markdown(name: str, level: int = 3) -> str:
    """Every key of the format ``name``, one table per object."""
    return schemas.markdown(FORMATS[name](), name, level=level, anchor=name)


def problems_format(name: str) -> list[str]:
    schema = FORMATS[name]()
    out = [f"{name}: the key {p} has no description (docs/_ext/masrl_docs/descriptions/{name}.txt)"
           for p in schemas.missing(schema, name)]
    out += [f"{name}: descriptions/{name}.txt describes {p}, which is no key of the format" for p in schemas.stale(schema, name)]
    return out


# --- columns of the sheets of an update round ------------------------------------------------

def _columns(name: str) -> tuple[str, ...]:
    from masrl.corpus import rounds

    return {"queue": rounds.QUEUE_COLUMNS, "duplicates": rounds.DUPLICATE_COLUMNS}[name]


def columns_markdown(name: str) -> str:
    """The columns of ``queue.csv`` or ``duplicates.csv``, in order, each with what it holds."""
    text = schemas.descriptions(name)
    from masrl.corpus.rounds import SCREENER_COLUMNS

    lines = ["| column | filled by | what it holds |", "| --- | --- | --- |"]
    for column in _columns(name):
        who = "the screener" if name == "queue" and column in SCREENER_COLUMNS else "masrl"
        lines.append(f"| `{column}` | {who} | {_cell(text.get(column, ('', ''))[1])} |")
    return "\n".join(lines) + "\n"


def problems_columns(name: str) -> list[str]:
    columns = set(_columns(name))
    text = schemas.descriptions(name)
    return ([f"{name}.csv: the column {c} has no description" for c in sorted(columns - set(text))]
            + [f"{name}.csv: descriptions/{name}.txt describes {c}, which is no column" for c in sorted(set(text) - columns)])


# --- kinds of tables, columns and figures --------------------------------------------------

def _kinds() -> dict[str, tuple[str, ...]]:
    from masrl.corpus.declarations import COLUMN_KINDS, TABLE_KINDS
    from masrl.render.figures import KINDS

    return {"table": TABLE_KINDS, "column": COLUMN_KINDS, "figure": tuple(KINDS)}


def _figure_summary(kind: str) -> str:
    """The first line of the docstring of the module that draws the figure kind."""
    from masrl.render.figures import KINDS

    source = (PACKAGE / "render" / "figures" / f"{KINDS[kind].module}.py").read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(source)) or ""
    first = doc.split("\n\n")[0].replace("\n", " ")
    return re.sub(r"^Figure kind ``\w+``: ", "", first).replace("``", "`")


def kinds_markdown(group: str) -> str:
    """A table of every kind of ``group`` (``table``, ``column`` or ``figure``), from masrl's registries."""
    from masrl.corpus.declarations import DEFAULT_INDEX

    text = schemas.descriptions("kinds")
    if group == "table":
        lines = ["| kind | rows | index column |", "| --- | --- | --- |"]
        for kind in _kinds()["table"]:
            lines.append(f"| `{kind}` | {_cell(text.get(f'table.{kind}', ('', ''))[1])} | `{DEFAULT_INDEX[kind]}` |")
    elif group == "column":
        lines = ["| kind | declared as, and what the cells hold |", "| --- | --- |"]
        for kind in _kinds()["column"]:
            lines.append(f"| `{kind}` | {_cell(text.get(f'column.{kind}', ('', ''))[1])} |")
    else:
        lines = ["| kind | what it draws | what it reads |", "| --- | --- | --- |"]
        for kind in _kinds()["figure"]:
            lines.append(f"| `{kind}` | {_cell(_figure_summary(kind))} | {_cell(text.get(f'figure.{kind}', ('', ''))[1])} |")
    return "\n".join(lines) + "\n"


def problems_kinds() -> list[str]:
    known = {f"{group}.{kind}" for group, kinds in _kinds().items() for kind in kinds}
    text = set(schemas.descriptions("kinds"))
    return ([f"kinds: {k} has no description (descriptions/kinds.txt)" for k in sorted(known - text)]
            + [f"kinds: descriptions/kinds.txt describes {k}, which masrl does not have" for k in sorted(text - known)])


# --- exit codes and environment variables --------------------------------------------------

def exit_codes_markdown() -> str:
    from masrl.cli import EXIT_CODES

    lines = ["| code | meaning |", "| --- | --- |"]
    lines += [f"| `{code}` | {_cell(meaning)} |" for code, meaning in sorted(EXIT_CODES.items())]
    return "\n".join(lines) + "\n"


_VARIABLE = re.compile(r"\bMASRL_[A-Z][A-Z0-9_]*\b")


def variables() -> list[str]:
    """Every ``MASRL_*`` name in masrl's code and package data, sorted."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*"):
        if path.suffix in (".py", ".yaml", ".json", ".j2") and path.is_file():
            found |= set(_VARIABLE.findall(path.read_text(encoding="utf-8")))
    return sorted(found - {"MASRL_"})


def environment_markdown() -> str:
    text = schemas.descriptions("environment")
    lines = ["| variable | what it does |", "| --- | --- |"]
    lines += [f"| `{name}` | {_cell(text.get(name, ('', ''))[1])} |" for name in variables()]
    return "\n".join(lines) + "\n"


def problems_environment() -> list[str]:
    found, text = set(variables()), set(schemas.descriptions("environment"))
    return ([f"environment: masrl reads {v}, which descriptions/environment.txt does not describe" for v in sorted(found - text)]
            + [f"environment: descriptions/environment.txt describes {v}, which masrl's code never names" for v in sorted(text - found)])


def problems() -> list[str]:
    """Everything the descriptions lack or have too many, for every generated page."""
    out = [p for name in FORMATS for p in problems_format(name)]
    out += problems_columns("queue") + problems_columns("duplicates") + problems_kinds() + problems_environment()
    return out
