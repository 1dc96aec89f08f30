"""Rules of the survey's declarations in ``corpus/taxonomy.yaml``: what each names exists and fits.

Each public function is one rule of :data:`masrl.checks.validate.RULES`: tables (figures: :mod:`.figure_rules`), the
README list and the site, the screening roles and audit defaults, the field names, the free
fields and the report sentences. A problem names the declaration (its path in the taxonomy) and
what is allowed, so that a new survey's taxonomy can be fixed from the messages alone; a taxonomy
these rules accept builds without a traceback.
"""

from __future__ import annotations


from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from ..analyses.claims import PLAIN_FIELDS
from ..corpus.declarations import all_of_name, column_names, split_values
from ..core.didyoumean import did_you_mean as _suggest
from ..corpus.declarations import COLUMN_KINDS, TableDecl, table_of
from ..corpus.load import TAXONOMY
from ..corpus.records import EXCLUDED_OWN, RETAINED_AFTER, RETAINED_BEFORE, SITE_ADDRESS_KEYS
from ..corpus.taxonomy import EXCLUDE_OPTIONS
from ..render.figures import FLOW_TABLE
from .claims import filter_condition

#: The sentences of the reports a taxonomy may give (``sentences``).
SENTENCES = ("audited_term", "structural_values", "tables_intro", "near_misses", "near_misses_conclusion")


#: Names of tables every survey has besides its fields' count tables and its crosstabs.
OWN_TABLES = (FLOW_TABLE, "exclusion_log")


def _single(c, path: tuple, name, kind: str, what: str) -> None:
    """``name`` is a single-valued controlled field of ``kind`` records (else a problem at ``path``)."""
    tax = c.tax
    field = tax.fields.get(name) if isinstance(name, str) else None
    allowed = [f.name for f in tax.of(kind) if not f.multi]
    if field is None:
        c.add(TAXONOMY, path, f"{what} names unknown field {name!r}; allowed: {', '.join(allowed) or 'none'}"
                              f"{_suggest(name, allowed)}")
    elif field.applies_to != kind or field.multi:
        c.add(TAXONOMY, path, f"{what} must be a single-valued field of {kind} records; {name!r} is "
                              f"{'a list field' if field.multi else f'a field of {field.applies_to} records'}; "
                              f"allowed: {', '.join(allowed) or 'none'}")


def _field(c, path: tuple, name, kind: str, what: str, multi: bool | None = None) -> bool:
    """``name`` is a controlled field of ``kind`` records (and a list field when ``multi``)."""
    tax = c.tax
    field = tax.fields.get(name) if isinstance(name, str) else None
    allowed = [f.name for f in tax.of(kind) if multi is None or f.multi == multi]
    if field is None or field.applies_to != kind or (multi is not None and field.multi != multi):
        shape = "" if multi is None else (" list" if multi else " single-valued")
        c.add(TAXONOMY, path, f"{what} must name a{shape} field of {kind} records; {name!r} is none; "
                              f"allowed: {', '.join(allowed) or 'none'}{_suggest(name, allowed)}")
        return False
    return True


def _where(c, path: tuple, where) -> None:
    if not isinstance(where, dict):
        return
    for name, cond in where.items():
        filter_condition(c, path + (name,), name, cond, "retained", c.tax, None, file=TAXONOMY)


def table_names(tax) -> dict[str, list[str] | None]:
    """Every table of a survey by name -> its column names (None when not known statically):
    the count tables of its fields, its crosstabs, its declared tables and masrl's own."""
    out: dict[str, list[str] | None] = {f.name: ["label", "count"] for f in tax.fields.values()}
    for rows, cols in tax.crosstabs:
        out[f"{rows}_x_{cols}"] = list(tax.values(cols))
    for spec in tax.declared_list("tables"):
        decl = table_of(spec)
        if decl is not None and decl.name:
            out[decl.name] = list(tax.values(decl.by)) if decl.kind == "years" else column_names(decl, tax)
    out[FLOW_TABLE] = None
    return out


def numeric_columns(tax, name: str) -> set[str]:
    """The columns of table ``name`` that hold counts (what ``{sum:COLUMN}`` can add up)."""
    if name in tax.fields:
        return {"count"}
    if any(f"{r}_x_{c}" == name for r, c in tax.crosstabs):
        return set(next(tax.values(c) for r, c in tax.crosstabs if f"{r}_x_{c}" == name))
    for spec in tax.declared_list("tables"):
        decl = table_of(spec)
        if decl is not None and decl.name == name:
            if decl.kind == "years":
                return set(tax.values(decl.by))
            out = set()
            for column in decl.columns:
                if column.kind in ("count", "all_of"):
                    out.add(column.name if column.kind == "count" else all_of_name(column, tax))
                elif column.kind == "split":
                    out |= {n for _, n in split_values(column, tax)}
            return out
    return set()


def _columns(c, path: tuple, decl: TableDecl, raw: list) -> None:
    tax = c.tax
    by_spec = {id(col.spec): col for col in decl.columns}
    for j, item in enumerate(raw):
        cpath = path + ("columns", j)
        kinds = [k for k in COLUMN_KINDS if isinstance(item, dict) and k in item]
        if len(kinds) != 1:
            c.add(TAXONOMY, cpath, f"a column computes one thing: give exactly one of {', '.join(COLUMN_KINDS)}"
                                   + (f" (this one gives {', '.join(kinds)})" if kinds else ""))
            continue
        spec = by_spec[id(item)]
        if decl.kind == "records" and spec.kind != "field":
            c.add(TAXONOMY, cpath, f"a column of a records table is {{name, field}}; this one is {spec.kind!r}")
            continue
        if decl.kind != "records" and spec.kind == "field":
            c.add(TAXONOMY, cpath, f"'field' columns are for records tables; a {decl.kind} table's columns are attr, count, "
                                   "keys, distinct, split, all_of or flag")
            continue
        if spec.kind != "split" and not spec.spec.get("name"):
            c.add(TAXONOMY, cpath, f"a {spec.kind} column needs a name")
        if spec.kind in ("count", "keys"):
            _where(c, cpath + (spec.kind,), spec.arg)
        elif spec.kind == "flag":
            for k, rule in enumerate(spec.arg if isinstance(spec.arg, list) else []):
                if isinstance(rule, dict):
                    _where(c, cpath + ("flag", k, "zero"), rule.get("zero"))
        elif spec.kind == "distinct":
            _field(c, cpath + ("distinct",), spec.arg, "retained", "distinct")
        elif spec.kind == "split":
            _field(c, cpath + ("split",), spec.arg, "retained", "split")
            if spec.spec.get("name", "label") not in ("label", "code"):
                c.add(TAXONOMY, cpath + ("name",), "a split column is named by the values' label or code: name: label or name: code")
        elif spec.kind == "all_of":
            _field(c, cpath + ("all_of",), spec.arg, "retained", "all_of", multi=True)
        elif spec.kind == "field":
            head = str(spec.arg).split(".", 1)[0]
            known = {*tax.fields, *tax.free_fields, *RETAINED_BEFORE, tax.abstract_field, *RETAINED_AFTER}
            if head not in known:
                c.add(TAXONOMY, cpath + ("field",), f"{spec.arg!r} names no field of retained records{_suggest(head, known)}")
    names = [decl.index] + column_names(decl, tax)
    for name in sorted({n for n in names if names.count(n) > 1}):
        c.add(TAXONOMY, path + ("columns",), f"two columns of table {decl.name!r} are called {name!r} (the index "
                                             f"is {decl.index!r}); give each a name of its own")


def _site(c, path: tuple, decl: TableDecl) -> None:
    site = decl.site
    if not site:
        return
    columns = {col.name: col for col in decl.columns}
    names = set(column_names(decl, c.tax))
    splits = {str(col.arg) for col in decl.columns if col.kind == "split"}
    header = site.get("row_header") or {}
    if isinstance(header, dict) and header.get("column") is not None and header["column"] not in names:
        c.add(TAXONOMY, path + ("row_header", "column"), f"{header['column']!r} is not a column of table {decl.name}; "
                                                        f"columns: {', '.join(sorted(names))}")
    for j, col in enumerate(site.get("columns") or []):
        if not isinstance(col, dict):
            continue
        if ("column" in col) == ("split" in col):
            c.add(TAXONOMY, path + ("columns", j), "a site column shows one column of the table (column: NAME) or the "
                                                   "columns of one split (split: FIELD)")
        elif "column" in col and col["column"] not in columns and col["column"] not in names:
            c.add(TAXONOMY, path + ("columns", j, "column"), f"{col['column']!r} is not a column of table {decl.name}; "
                                                             f"columns: {', '.join(sorted(names))}")
        elif "split" in col and col["split"] not in splits:
            c.add(TAXONOMY, path + ("columns", j, "split"), f"table {decl.name} has no split by {col['split']!r}; "
                                                            f"splits: {', '.join(sorted(splits)) or 'none'}")
        elif "split" in col and col.get("header", "label") not in ("label", "abbr"):
            c.add(TAXONOMY, path + ("columns", j, "header"), "the header of a split is its values' label (header: label) "
                                                             "or their code with the label as a tooltip (header: abbr)")
        elif col.get("show") == "labels" and (columns.get(col.get("column")) is None or decl.kind != "families"
                                              or columns[col["column"]].arg != "codes"):
            c.add(TAXONOMY, path + ("columns", j, "show"), "show: labels is for the codes column of a families table "
                                                           "(attr: codes)")


def _table(c, path: tuple, decl: TableDecl, raw: dict) -> None:
    tax = c.tax
    if decl.kind in ("values", "families"):
        if not _field(c, path + ("field",), decl.field, "retained", f"a {decl.kind} table"):
            return
        for j, value in enumerate(decl.skip):
            if value not in tax.values(decl.field):
                c.add(TAXONOMY, path + ("skip", j), f"{value!r} is not a value of {decl.field}; allowed: "
                                                    f"{', '.join(tax.values(decl.field))}{_suggest(value, tax.values(decl.field))}")
    elif decl.kind == "years":
        _single(c, path + ("by",), decl.by, "retained", "a years table's 'by'")
    elif decl.kind == "records" and decl.require and decl.require not in {*tax.fields, *tax.free_fields, *RETAINED_BEFORE,
                                                                          tax.abstract_field, *RETAINED_AFTER}:
        c.add(TAXONOMY, path + ("require",), f"{decl.require!r} names no field of retained records")
    if decl.kind == "families" and not decl.families:
        c.add(TAXONOMY, path + ("families",), "a families table lists its families: {ID: {name, codes: [values]}}")
    if decl.kind != "families" and decl.families:
        c.add(TAXONOMY, path + ("families",), f"only a families table has families; this one is a {decl.kind} table")
    if decl.kind in ("records", "years") and decl.skip:
        c.add(TAXONOMY, path + ("skip",), f"a {decl.kind} table has no values to skip")
    _where(c, path + ("where",), decl.where)
    _columns(c, path, decl, raw.get("columns") if isinstance(raw.get("columns"), list) else [])
    _site(c, path, decl)


def tables(c) -> None:
    """Every declared table (``tables`` and the tables of ``gap_analysis.sections``): its kind's
    fields exist and fit, its filters name fields and values, its columns compute something and
    have distinct names, its name is no other table's, and its site columns are its own."""
    tax = c.tax
    taken = {f.name: "the count table of a field" for f in tax.fields.values()}
    taken.update({f"{r}_x_{c_}": "a crosstab" for r, c_ in tax.crosstabs})
    taken.update({name: "a table of masrl's own" for name in OWN_TABLES})
    for i, spec in enumerate(tax.declared_list("tables")):
        decl = table_of(spec)
        if decl is None:
            continue  # the schema rule reports the kind
        path = ("tables", i)
        if decl.name in taken:
            c.add(TAXONOMY, path + ("name",), f"{decl.name!r} is already {taken[decl.name]}; tables are files "
                                              "(tables/<name>.csv), so give this one another name")
        taken.setdefault(decl.name, "a declared table")
        _table(c, path, decl, spec)
    sections = [s for s in tax.gap_analysis.get("sections") or [] if isinstance(s, dict)]
    seen: set[str] = set()
    for i, spec in enumerate(sections):
        path = ("gap_analysis", "sections", i)
        if spec.get("json") in seen or spec.get("json") in ("sparse_threshold", "named_gaps", "cells", "tables_combine",
                                                               "tables_left_out"):
            c.add(TAXONOMY, path + ("json",), f"{spec.get('json')!r} is already a key of gaps.json")
        seen.add(str(spec.get("json")))
        if spec.get("kind") == "table":
            decl = table_of(spec.get("table"), name=str(spec.get("json")))
            if decl is None:
                c.add(TAXONOMY, path + ("table",), "a table section declares its table (kind: values, families, records or years)")
            else:
                _table(c, path + ("table",), decl, spec["table"])
        elif spec.get("kind") == "coverage":
            _field(c, path + ("field",), spec.get("field"), "retained", "a coverage section", multi=True)
            _where(c, path + ("where",), spec.get("where"))
            if "table" in spec:
                c.add(TAXONOMY, path + ("table",), "a coverage section has no table; it lists the records of where")


def families(c) -> None:
    """In a families table, every code of a family is a value of its field, no value is in two
    families, and every value of the field is in one (except the table's ``skip`` values)."""
    tax = c.tax
    for i, spec in enumerate(tax.declared_list("tables")):
        decl = table_of(spec)
        if decl is None or decl.kind != "families" or decl.field not in tax.fields:
            continue
        codes = set(tax.values(decl.field))
        seen: dict[str, str] = {}
        for fid, family in decl.families.items():
            path = ("tables", i, "families", fid, "codes")
            for code in family.get("codes") or []:
                if code not in codes:
                    c.add(TAXONOMY, path, f"{code!r} is not a value of {decl.field}{_suggest(code, codes)}")
                elif code in seen:
                    c.add(TAXONOMY, path, f"{code!r} is in two families ({seen[code]} and {fid})")
                seen[code] = fid
        for code in [v for v in tax.values(decl.field) if v not in seen and v not in decl.skip]:
            c.add(TAXONOMY, ("fields", decl.field, "values", code), f"value {code!r} belongs to no family of table "
                                                                  f"{decl.name} (list it under a family, or under skip)")


def readme_and_site(c) -> None:
    """The README list groups by a single-valued field of retained records and tags with fields of
    retained records; the site's columns are fields of retained records, its exclusion columns
    fields of excluded records."""
    tax = c.tax
    readme = tax.declared("readme")
    if "group_by" in readme:
        _single(c, ("readme", "group_by"), readme["group_by"], "retained", "readme.group_by")
    for j, tag in enumerate(readme.get("tags") or []):
        if isinstance(tag, dict):
            _field(c, ("readme", "tags", j, "field"), tag.get("field"), "retained", "a README tag")
    site = tax.declared("site")
    for j, name in enumerate(site.get("columns") or []):
        _field(c, ("site", "columns", j), name, "retained", "a site column")
    for j, col in enumerate(site.get("exclusion_columns") or []):
        name = col.get("field") if isinstance(col, dict) else None
        if name not in {f.name for f in tax.of("excluded")} | {f.name for f in tax.free_of("excluded")}:
            allowed = [f.name for f in tax.of("excluded")] + [f.name for f in tax.free_of("excluded")]
            c.add(TAXONOMY, ("site", "exclusion_columns", j, "field"), f"{name!r} is no field of excluded records; "
                                                                      f"allowed: {', '.join(allowed) or 'none'}")


def screening(c) -> None:
    """The screening roles name single-valued fields: the stage and the reason class of excluded
    records, the source and the query family that found them (update rounds fill these), the split
    of the included records and the inclusion criterion of retained ones; and the abstract's role
    names a free text field of retained records."""
    roles = c.tax.declared("screening")
    for role, kind in (("stages", "excluded"), ("reasons", "excluded"), ("found_in", "excluded"), ("found_by", "excluded"),
                       ("included_by", "retained"), ("inclusion", "retained")):
        if role in roles:
            _single(c, ("screening", role), roles[role], kind, f"screening.{role}")
    if "stages" in roles and roles.get("stages") == roles.get("reasons"):
        c.add(TAXONOMY, ("screening", "reasons"), f"{roles['reasons']!r} is also the field of the screening stages; the "
                                                  "stage and the reason class are two fields of excluded records")
    if "abstract" in roles:
        name = roles["abstract"]
        field = c.tax.free_fields.get(name) if isinstance(name, str) else None
        allowed = [f.name for f in c.tax.free_of("retained") if f.type in ("text", "multiline")]
        if field is None or field.applies_to != "retained" or field.type not in ("text", "multiline"):
            c.add(TAXONOMY, ("screening", "abstract"), f"screening.abstract must name a free text field of retained records "
                                                       f"(type text or multiline, under free_fields); {name!r} is none; "
                                                       f"allowed: {', '.join(allowed) or 'none'}{_suggest(name, allowed)}")


def audit_defaults(c) -> None:
    """An audit's default fields are single-valued fields every retained record carries."""
    for j, name in enumerate(c.tax.declared("audit").get("default_fields") or []):
        _single(c, ("audit", "default_fields", j), name, "retained", "an audit's default field")
        field = c.tax.fields.get(name) if isinstance(name, str) else None
        if field is not None and field.required_when is not None:
            c.add(TAXONOMY, ("audit", "default_fields", j), f"{name!r} applies only to the records its required_when "
                                                            "names, and a reader of the others would have no value to give; "
                                                            "an audit asks a field every retained record carries")


def field_names(c) -> None:
    """A field of the survey is not one of masrl's own fields of records, is declared once
    (controlled or free), and a field of excluded records does not take an option of ``masrl
    exclude`` itself; record orders list each field once."""
    tax = c.tax
    own = {"retained": {*RETAINED_BEFORE, *RETAINED_AFTER}, "excluded": set(EXCLUDED_OWN)}
    options = {name: option for option, name in tax.exclusion_options()}
    for group, items in (("fields", tax.fields.values()), ("free_fields", tax.free_fields.values())):
        for field in items:
            if field.name in own.get(field.applies_to, set()):
                c.add(TAXONOMY, (group, field.name), f"{field.name!r} is one of masrl's own fields of {field.applies_to} "
                                                     "records; give the survey's field another name")
            elif group == "fields" and field.applies_to == "retained" and field.name in SITE_ADDRESS_KEYS:
                c.add(TAXONOMY, (group, field.name), f"{field.name!r} is one of the names the catalogue site's address "
                                                     f"gives its own state ({', '.join(SITE_ADDRESS_KEYS)}): a filter on the "
                                                     "field would be read as that; give the survey's field another name")
            elif field.name in PLAIN_FIELDS:
                c.add(TAXONOMY, (group, field.name), f"{field.name!r} is one of the names a claim's `where` selects "
                                                     f"records by ({', '.join(PLAIN_FIELDS)}), whatever the field; give the "
                                                     "survey's field another name")
            if group == "free_fields" and field.name in tax.fields:
                c.add(TAXONOMY, (group, field.name), f"{field.name!r} is also a controlled field; declare it once")
            if field.name in options and options[field.name] in EXCLUDE_OPTIONS:
                c.add(TAXONOMY, (group, field.name), f"masrl exclude would ask for it as {options[field.name]}, "
                                                     "which is one of its own options; give the field another name")
    for kind, order in tax.declared("record_order").items():
        if isinstance(order, list):
            for name in sorted({n for n in order if order.count(n) > 1}):
                c.add(TAXONOMY, ("record_order", kind), f"{name!r} is listed twice")


def free_fields(c) -> None:
    """A free field of type ``mapping`` has a valid JSON Schema (and names its text keys); the
    other types have none."""
    for name, field in c.tax.free_fields.items():
        schema = field.spec.get("schema")
        if field.type == "mapping":
            if not isinstance(schema, dict):
                c.add(TAXONOMY, ("free_fields", name), "a mapping field gives its JSON Schema under schema")
                continue
            try:
                Draft202012Validator.check_schema(schema)
            except SchemaError as err:
                c.add(TAXONOMY, ("free_fields", name, "schema"), f"not a valid JSON Schema: {err.message}")
        elif schema is not None or field.spec.get("text"):
            c.add(TAXONOMY, ("free_fields", name), f"only a mapping field has a schema and text keys; this one is {field.type}")


def sentences(c) -> None:
    """The report sentences the taxonomy gives are sentences masrl writes."""
    for name in c.tax.declared("sentences"):
        if name not in SENTENCES:
            c.add(TAXONOMY, ("sentences", name), f"masrl writes no sentence {name!r}; sentences: {', '.join(SENTENCES)}"
                                                 f"{_suggest(name, SENTENCES)}")
