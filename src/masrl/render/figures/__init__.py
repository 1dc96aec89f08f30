"""Figures: the registry of figure kinds, plotted data, footnotes, fingerprints, rendering.

A survey declares its figures in its taxonomy (``figures``): each names a registered kind
(:data:`KINDS`) and the table it is drawn from, a table the text reports also use (``data``
picks it from the build results), and the kind's module draws it (``draw(data, options) ->
Figure``). Under every figure a footnote states its n and what it leaves out (``notes``
computes those lines from the same results and the declaration; a caller may append more
lines, e.g. a release note). This package's ``__init__`` does not import matplotlib: the
registry, the plotted data, the notes and the fingerprints are enough for ``masrl build
--check``, which compares fingerprints recorded in ``reports/figures/manifest.json`` instead of
redrawing.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ...corpus.declarations import FLOW_TABLE, figures, tables
from .marks import FORMATS, GAP_SYMBOL, YEARS_SHOWN  # noqa: F401  (re-exported)

if TYPE_CHECKING:  # pandas is imported where a frame is made: `masrl validate` reads the kinds without it (-X importtime: 2 s)
    from masrl.core.tabular import pd


@dataclass(frozen=True)
class FigureSpec:
    """One figure of a survey: a declaration of its taxonomy (``figures``) bound to its kind.

    Attributes:
        name: file stem under ``reports/figures/``.
        caption: one line for the index (what the figure shows).
        table: name of the report table it is drawn from.
        module: module of this package whose ``draw(data, options)`` returns the figure (the kind).
        data: picks the plotted data (a DataFrame or a JSON-able dict) from the build results.
        notes: the footnote lines from the build results: the figure's n and
            what it leaves out (each line a sentence or two).
        options: what the kind draws besides the data (title, which columns, ...), JSON-able.
    """

    name: str
    caption: str
    table: str
    module: str
    data: Callable[[Any], Any]
    notes: Callable[[Any], list[str]]
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Kind:
    """One registered figure kind.

    Attributes:
        module: the module of this package that draws it (``draw(data, options)``).
        data: ``(results, declaration) -> plotted data``.
        notes: ``(results, declaration) -> footnote lines`` the kind writes itself (the declared
            ``notes`` follow them).
        options: ``(tax, declaration) -> options`` passed to ``draw``.
        needs: ``(tax, declaration, columns) -> [(key, message)]``: what the declaration lacks for
            this kind (``columns``: the column names of its table, or None when it has no such table).
        counts: the options that must name columns of counts (what is drawn as a length).
    """

    module: str
    data: Callable[[Any, Any], Any]
    notes: Callable[[Any, Any], list[str]]
    options: Callable[[Any, Any], dict]
    needs: Callable[[Any, Any, Any], list[tuple[str, str]]]
    counts: tuple[str, ...] = ()


# --- plotted data -------------------------------------------------------------------------------

def _table(results: Any, decl: Any) -> pd.DataFrame:
    return results.table(decl.table).frame


def year_bins(table: pd.DataFrame, shown: int = YEARS_SHOWN) -> pd.DataFrame:
    """``table`` (index = every year, int) with the years before the last ``shown``
    summed into one first row ``before <year>``; index = year labels (str).

    A span of at most ``shown`` years is returned with string labels only.
    """
    from masrl.core.tabular import pd

    years = [int(y) for y in table.index]
    frame = table.copy()
    frame.index = [str(y) for y in years]
    if len(years) <= shown:
        frame.index.name = "year"
        return frame
    cut = years[-1] - shown + 1
    early = table.loc[[y for y in years if y < cut]].sum().to_frame(f"before {cut}").T.astype("int64")
    late = table.loc[[y for y in years if y >= cut]]
    late.index = [str(y) for y in late.index]
    out = pd.concat([early, late])
    out.index.name = "year"
    return out


def _table_decl(tax: Any, name: str):
    return next((t for t in tables(tax) if t.name == name), None)


def _not_of_kind(tax: Any, name: str, kind: str) -> str:
    """``'x' is none of a, b`` (the tables of ``kind`` the taxonomy declares), or that it declares none."""
    names = [t.name for t in tables(tax) if t.kind == kind]
    return (f"{name!r} is none of {', '.join(names)}" if names else
            f"{name!r} is not one, and the taxonomy declares none (declare a table of kind {kind} under tables)")


def _years(results: Any, decl: Any) -> pd.DataFrame:
    """The years table, early years binned, the values' labels as column names (legend); a label
    that two values share is followed by each one's code (``dry (D1)``), so that no two columns
    of the legend have one name."""
    field = results.tax.fields[_table_decl(results.tax, decl.table).by]
    frame = year_bins(results.table(decl.table).frame)
    labels = [field.value_label(str(c)) for c in frame.columns]
    shared = {label for label in labels if labels.count(label) > 1}
    return frame.set_axis([f"{label} ({c})" if label in shared else label for c, label in zip(frame.columns, labels)], axis=1)


def _crosstab(tax: Any, name: str) -> tuple[str, str] | None:
    return next(((r, c) for r, c in tax.crosstabs if f"{r}_x_{c}" == name), None)


def _heatmap(results: Any, decl: Any) -> dict:
    """The crosstab with taxonomy labels: ``{"counts": [[int]], "rows": [label], "columns": [label],
    "row_codes", "column_codes", "structural": the not-applicable code, "row_title", "column_title"}``."""
    tax = results.tax
    frame = results.table(decl.table).frame
    row_field, col_field = _crosstab(tax, decl.table)
    rows, cols = tax.fields[row_field], tax.fields[col_field]
    return {
        "counts": [[int(v) for v in row] for row in frame.to_numpy()],
        "row_codes": [str(v) for v in frame.index], "column_codes": [str(v) for v in frame.columns],
        "rows": [rows.value_label(str(v)) for v in frame.index],
        "columns": [cols.value_label(str(v)) for v in frame.columns],
        "structural": tax.not_applicable, "row_title": rows.label, "column_title": cols.label,
    }


def _prisma(results: Any, decl: Any) -> dict:
    return results.prisma


# --- footnotes: n and what is left out ------------------------------------------------------------

def _retained(n: int) -> str:
    """``1 retained record``, ``84 retained records``."""
    return f"{n} retained record{'' if n == 1 else 's'}"


def _count(results: Any, field: str, value: str) -> int:
    if not results.has_table(field):
        return 0
    frame = results.table(field).frame
    return int(frame.loc[value, "count"]) if value in frame.index else 0


#: A placeholder of a declared footnote: ``{retained}``, ``{n}``, ``{gap}``, ``{sum:COLUMN}``,
#: ``{count:FIELD:VALUE}``, ``{label:FIELD:VALUE}``.
NOTE_PLACEHOLDER = re.compile(r"\{(retained|n|gap)\}|\{(sum|count|label):([^{}:]+)(?::([^{}]+))?\}")


def note_text(template: str, results: Any, table: str) -> str:
    """A declared footnote line with its placeholders (:data:`NOTE_PLACEHOLDER`) filled in from the
    build results (``table``: the figure's table, for ``{sum:COLUMN}``)."""
    n = results.headline["retained"]

    def fill(match: re.Match) -> str:
        simple, kind, a, b = match.groups()
        if simple == "retained":
            return _retained(n)
        if simple == "n":
            return str(n)
        if simple == "gap":
            return GAP_SYMBOL
        if kind == "sum":
            frame = results.table(table).frame
            return str(int(frame[a].sum())) if a in frame.columns else match.group(0)
        if kind == "count":
            return str(_count(results, a, b or ""))
        return results.tax.label(a, b or "")

    return NOTE_PLACEHOLDER.sub(fill, template)


def _no_notes(results: Any, decl: Any) -> list[str]:
    return []


def _chain_notes(results: Any, decl: Any) -> list[str]:
    n = results.headline["retained"]
    item = str(decl.spec.get("item", "value"))
    field = _table_decl(results.tax, decl.table).field
    tagged = int(results.retained[field].map(bool).sum()) if len(results.retained) else 0
    total = int(results.table(decl.table).frame[decl.spec["count_column"]].sum())
    several = f" (a record can address several, so the boxes sum to {total})" if total != tagged else ""
    return [f"n = {_retained(n)}; {tagged} address at least one {item}{several}. "
            f"Left out: {n - tagged} record{'' if n - tagged == 1 else 's'} tagged with no {item}."]


def _year_notes(results: Any, decl: Any) -> list[str]:
    n = results.headline["retained"]
    table = results.table(decl.table).frame
    binned = year_bins(table)
    notes = [f"n = {_retained(n)}, none left out."]
    first = str(binned.index[0]) if len(binned) else ""
    if first.startswith("before "):
        years = [int(y) for y in table.index if int(y) < int(first.split()[-1]) and int(table.loc[y].sum())]
        early = int(binned.iloc[0].sum())
        span = f"{years[0]}–{years[-1]}" if len(years) > 1 else (str(years[0]) if years else "")
        notes.append(f"The {early} record{'' if early == 1 else 's'} published {span} "
                     f"{'is counted in' if early == 1 else 'share'} the first bar "
                     f"('{first}'); grey = a year without records." if early else
                     f"No record was published {first}; grey = a year without records.")
    else:
        notes.append("Grey = a year without records.")
    return notes


def _prisma_notes(results: Any, decl: Any) -> list[str]:
    flow = results.prisma
    up = flow.get("update")
    if up:
        # with update rounds, "identified" is what the searches found (the figure's first box); the
        # note counts the new records that have a screening decision
        what = "new records with a screening decision" if up.get("identification") else "records identified"
        return [f"n = {up['identified']} {what} since {up['previous']} ({up['new_included']} included, "
                f"{up['identified'] - up['new_included']} excluded); the whole review: {flow['audited']} audited records, "
                f"{flow['retained']} retained."]
    return [f"n = {flow['audited']} audited records ({flow['retained']} retained, "
            f"{flow['audited'] - flow['retained']} excluded); none left out."]


# --- options: what each kind draws besides the data -------------------------------------------------

_PLAIN = ("title", "xlabel", "ylabel", "height", "bar_height", "labels", "values", "groups", "series", "name_column",
          "count_column", "flag_column", "anchors_column", "empty_title", "gap_legend", "legend_title")


def _plain(tax: Any, decl: Any) -> dict:
    return {k: decl.spec[k] for k in _PLAIN if k in decl.spec}


def _hatched(field: Any, tax: Any) -> dict:
    """``{"hatches": ...}`` of a field with more values than the palette has colours, else nothing (the options, and
    so the fingerprints, of every other figure stay as they were)."""
    from .colours import value_hatches

    hatches = value_hatches(field, tax.not_applicable) if field else {}
    return {"hatches": hatches} if hatches else {}


def _chain_options(tax: Any, decl: Any) -> dict:
    from .colours import value_colours

    field = tax.fields.get(str(decl.spec.get("split", "")))
    table = _table_decl(tax, decl.table)
    boxes = tax.fields.get(table.field) if table is not None else None
    return {**_plain(tax, decl), "split_columns": [field.value_label(v) for v in field.values] if field else [],
            "colours": value_colours(field, tax.not_applicable) if field else {},
            "arrows": bool(boxes is not None and boxes.ordered), **_hatched(field, tax)}


def _year_options(tax: Any, decl: Any) -> dict:
    from .colours import value_colours

    table = _table_decl(tax, decl.table)
    by = tax.fields.get(table.by) if table is not None else None
    return {"legend_title": by.label.lower() if by else "", **_plain(tax, decl),
            "colours": value_colours(by, tax.not_applicable) if by else {}, **_hatched(by, tax)}


def _flow_options(tax: Any, decl: Any) -> dict:
    field = tax.role("included_by")
    return {"by": tax.fields[field].label.lower() if field else ""}


# --- what each kind needs --------------------------------------------------------------------------

def _columns_needed(*keys: str, optional: tuple[str, ...] = ()):
    def needs(tax: Any, decl: Any, columns) -> list[tuple[str, str]]:
        out = []
        if columns is None:
            return [("table", f"{decl.table!r} is not a table of this survey")]
        for key in (*keys, *optional):
            value = decl.spec.get(key)
            if value is None:
                if key in keys:
                    out.append((key, f"a {decl.kind} figure needs {key!r} (a column of table {decl.table})"))
                continue
            for column in value if isinstance(value, list) else [value]:
                if column not in columns:
                    out.append((key, f"{column!r} is not a column of table {decl.table}; columns: {', '.join(map(str, columns))}"))
        return out
    return needs


def _heatmap_needs(tax: Any, decl: Any, columns) -> list[tuple[str, str]]:
    return [] if _crosstab(tax, decl.table) else [("table", f"a heatmap is drawn from a crosstab; {decl.table!r} is none "
                                                            f"of {', '.join(f'{r}_x_{c}' for r, c in tax.crosstabs) or 'none (crosstabs is empty)'}")]


def _chain_needs(tax: Any, decl: Any, columns) -> list[tuple[str, str]]:
    table = _table_decl(tax, decl.table)
    if table is None or table.kind != "values":
        return [("table", f"a chain figure is drawn from a values table; {_not_of_kind(tax, decl.table, 'values')}")]
    out = _columns_needed("name_column", "count_column", optional=("flag_column", "anchors_column"))(tax, decl, columns)
    split = tax.fields.get(str(decl.spec.get("split", "")))
    if split is None:
        out.append(("split", "a chain figure needs 'split': the field whose values its columns count"))
    elif columns is not None:
        out += [("split", f"table {decl.table} has no column {split.value_label(v)!r} (split {split.name} by label)")
                for v in split.values if split.value_label(v) not in columns]
    if tax.fields.get(table.field) is None or not tax.fields[table.field].multi:
        out.append(("table", f"a chain figure shows the values of a list field; {table.field!r} is not one"))
    return out


def _years_needs(tax: Any, decl: Any, columns) -> list[tuple[str, str]]:
    table = _table_decl(tax, decl.table)
    return [] if table is not None and table.kind == "years" else [
        ("table", f"a years figure is drawn from a years table; {_not_of_kind(tax, decl.table, 'years')}")]


def _flow_needs(tax: Any, decl: Any, columns) -> list[tuple[str, str]]:
    return [] if decl.table == FLOW_TABLE else [("table", f"a flow figure is drawn from the table {FLOW_TABLE!r}")]



#: Every figure kind masrl draws, by name.
KINDS: dict[str, Kind] = {
    "bars": Kind("bars", _table, _no_notes, _plain, _columns_needed("labels", "values"), counts=("values",)),
    "heatmap": Kind("heatmap", _heatmap, _no_notes, _plain, _heatmap_needs),
    "paired_bars": Kind("paired_bars", _table, _no_notes, _plain, _columns_needed("labels", "series", optional=("groups",)),
                        counts=("series",)),
    "chain": Kind("chain", _table, _chain_notes, _chain_options, _chain_needs, counts=("count_column",)),
    "years": Kind("years", _years, _year_notes, _year_options, _years_needs),
    "flow": Kind("flow", _prisma, _prisma_notes, _flow_options, _flow_needs),
}


def figure_spec(decl: Any, tax: Any) -> FigureSpec:
    """The :class:`FigureSpec` of one declared figure (:class:`masrl.corpus.declarations.FigureDecl`)
    of a taxonomy whose declarations validate."""
    kind = KINDS[decl.kind]
    templates = [str(n) for n in decl.spec.get("notes") or []]

    def notes(results: Any) -> list[str]:
        return [*kind.notes(results, decl), *(note_text(t, results, decl.table) for t in templates)]

    return FigureSpec(decl.name, decl.caption, decl.table, kind.module, lambda results: kind.data(results, decl), notes,
                      kind.options(tax, decl))


def figures_of(tax: Any) -> tuple[FigureSpec, ...]:
    """Every figure the taxonomy declares (``figures``), in order, bound to its kind."""
    return tuple(figure_spec(d, tax) for d in figures(tax) if d.kind in KINDS)


# --- fingerprints and rendering -------------------------------------------------------------------

def data_bytes(data: Any) -> bytes:
    """Canonical bytes of plotted data (CSV of a DataFrame, sorted JSON of a dict)."""
    pd = sys.modules.get("pandas")  # a DataFrame means pandas is loaded; validate imports this module without it
    if pd is not None and isinstance(data, pd.DataFrame):
        return data.to_csv(lineterminator="\n").encode("utf-8")
    return json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")


def code_fingerprint(sources: dict[str, bytes]) -> str:
    """SHA-256 over the source files of this package (``{file name: bytes}``, from
    :func:`masrl.corpus.load.package_sources`): a change to how figures are drawn makes
    every figure stale."""
    digest = hashlib.sha256()
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name])
    return digest.hexdigest()


def fingerprint(spec: FigureSpec, data: Any, code: str, notes: Sequence[str] = (), toolchain: str = "") -> str:
    """SHA-256 of what decides the figure's bytes: its name, kind, options, plotted data, footnote,
    drawing code and the drawing toolchain (:func:`masrl.render.figures.draw.toolchain_text`)."""
    footnote = "\n".join(notes).encode("utf-8")
    how = json.dumps([spec.module, spec.options], sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(spec.name.encode() + b"\0" + how + b"\0" + data_bytes(data) + b"\0" + footnote + b"\0"
                          + code.encode() + b"\0" + toolchain.encode()).hexdigest()

