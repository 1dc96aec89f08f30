"""Rules of ``corpus/taxonomy.yaml``: its schema and its cross-references.

Each function is one rule of :data:`masrl.checks.validate.RULES`: it takes the
:class:`~masrl.checks.collector.Checker` and adds a problem for each finding. The records are
checked only when no taxonomy rule found anything (a broken vocabulary would make every record
look wrong).
"""

from __future__ import annotations

import re
import unicodedata

from jsonschema import Draft202012Validator

from ..analyses.gap_plan import declaration_problems as gap_declaration_problems
from ..bib.identifiers import STORED_PATTERNS, arxiv_problem
from ..bib.urls import url_problem
from ..core.didyoumean import did_you_mean as _suggest
from ..corpus import schema as schemas
from ..corpus.declarations import table_of
from ..corpus.load import TAXONOMY
from ..corpus.records import UNTAGGED
from ..corpus.migrate import FORMAT, format_of, implying_values, missing_declarations, moved_keys
from .derived_names import collisions
from ..core import clock


def format_version(c) -> bool:
    """The taxonomy is in the format this masrl reads (``format_version``); an older file is
    told what it lacks. Returns True when the format is current."""
    data = c.corpus.taxonomy
    found = format_of(data)
    if found == FORMAT:
        return True
    if found == 1:
        lacking = [k for k in missing_declarations(data) if k != "format_version"]
        moved = [k for k in moved_keys() if k in data]
        steps = [f"set format_version: {FORMAT} (the one key format {FORMAT} requires)"]
        if moved:
            steps.append(f"move {' and '.join(moved)} into a table of kind families")
        implying = implying_values(data)
        if implying:
            steps.append(f"write the implied value of another field as implies in {', '.join(implying[:3])}"
                         + (f" and {len(implying) - 3} more" if len(implying) > 3 else ""))
        c.add(TAXONOMY, ("format_version",) if "format_version" in data else (),
              f"this taxonomy is in format 1 (it has no format_version): {'; '.join(steps)}. Format 1 built the "
              f"declarations of masrl's own survey into every survey; format {FORMAT} makes only what the taxonomy "
              f"declares, so declare those of them you want (optional; this file declares none of "
              f"{', '.join(lacking) or 'them'}; see `masrl init` or corpus/taxonomy.yaml of masrl's own survey). "
              "Declare not_applicable if a value means 'not applicable' (format 1 implied one): without it, it is an "
              "ordinary value, which the gap analysis and the figures treat as one", field="format_version")
    elif found is None and isinstance(data, dict):
        c.add(TAXONOMY, ("format_version",), f"must be an integer, the format of the file ({FORMAT})")
    else:
        c.add(TAXONOMY, ("format_version",), f"format {found} is not one masrl reads; this masrl reads format {FORMAT}")
    return False


def schema(c) -> None:
    """The taxonomy against its JSON Schema (:data:`masrl.corpus.schema.TAXONOMY_SCHEMA`)."""
    c.schema_errors(TAXONOMY, c.corpus.taxonomy, Draft202012Validator(schemas.TAXONOMY_SCHEMA))


def crosstabs(c) -> None:
    """A crosstab names two fields of the same kind of record."""
    tax = c.tax
    for i, (rows, cols) in enumerate(tax.crosstabs):
        for name in (rows, cols):
            if name not in tax.fields:
                c.add(TAXONOMY, ("crosstabs", i), f"crosstab names unknown field {name!r}{_suggest(name, tax.fields)}")
        if rows == cols:
            c.add(TAXONOMY, ("crosstabs", i), f"crosstab [{rows}, {cols}] crosses a field with itself; its count table "
                                              "already has every value")
        elif (rows, cols) in tax.crosstabs[:i]:
            c.add(TAXONOMY, ("crosstabs", i), f"crosstab [{rows}, {cols}] is listed twice")
        if rows in tax.fields and cols in tax.fields and tax.fields[rows].applies_to != tax.fields[cols].applies_to:
            c.add(TAXONOMY, ("crosstabs", i), f"crosstab [{rows}, {cols}] mixes a field of {tax.fields[rows].applies_to} "
                                              f"records with one of {tax.fields[cols].applies_to} records")


def identifier_schemes(c) -> None:
    """Each identifier scheme is known to masrl or gives its pattern (a known one gives none: masrl's
    is the one definition); patterns compile; resolvers are URLs with one ``{id}`` placeholder."""
    for name, scheme in c.tax.identifier_schemes.items():
        if name not in STORED_PATTERNS and "pattern" not in scheme:
            c.add(TAXONOMY, ("identifier_schemes", name), f"masrl does not know the scheme {name!r}: give its pattern (a regular expression of its ids)")
        elif name in STORED_PATTERNS and "pattern" in scheme:
            # one definition of a known scheme's ids (masrl.bib.identifiers), which the schema, add,
            # exclude, the BibTeX import and the update rounds all read: a second one could only disagree
            c.add(TAXONOMY, ("identifier_schemes", name, "pattern"), f"masrl knows the ids of {name} (their forms and "
                  "the dates and numbers they can have); remove this pattern, which masrl would not use")
        try:
            re.compile(str(scheme.get("pattern", "")))
        except re.error as err:
            c.add(TAXONOMY, ("identifier_schemes", name, "pattern"), f"not a valid regular expression: {err}")
        resolver = scheme.get("resolver")
        if resolver is not None:
            try:
                ok = "{id}" in resolver and resolver.format(id="x")
            except (KeyError, IndexError, ValueError):
                ok = False
            if not ok:
                c.add(TAXONOMY, ("identifier_schemes", name, "resolver"), f"{resolver!r} must be a URL with the placeholder {{id}} and no other braces")


def gap_declarations(c) -> None:
    """The gap analysis declarations name real tables, rows and columns (:mod:`masrl.analyses.gap_plan`); a named
    gap's selections are filters of retained records, judged as a claim's (fields, operators, values); the fields
    and values it never counts are the taxonomy's."""
    from .claims import filter_condition

    for path, message in gap_declaration_problems(c.tax):
        c.add(TAXONOMY, path, message)
    plan = c.tax.gap_analysis
    for i, gap in enumerate(plan.get("named") or []):
        for j, sel in enumerate(gap.get("selections") or [] if isinstance(gap, dict) else []):
            where = sel.get("where") if isinstance(sel, dict) else None
            for name, cond in (where.items() if isinstance(where, dict) else []):
                filter_condition(c, ("gap_analysis", "named", i, "selections", j, "where", name), name, cond, "retained",
                                 c.tax, file=TAXONOMY)
    for j, name in enumerate(plan.get("skip_fields") or []):
        if name not in c.tax.fields:
            c.add(TAXONOMY, ("gap_analysis", "skip_fields", j), f"{name!r} is not a field of the taxonomy"
                                                                f"{_suggest(str(name), c.tax.fields)}")
    values = {code for field in c.tax.fields.values() for code in field.values}
    for j, code in enumerate(plan.get("skip_values") or []):
        if code not in values:
            c.add(TAXONOMY, ("gap_analysis", "skip_values", j), f"{code!r} is not a value of any field of the taxonomy"
                                                                f"{_suggest(str(code), sorted(values))}")


def derived_names(c) -> None:
    """Names derived from codes (LaTeX macros, table files) stay distinct (:mod:`masrl.checks.derived_names`)."""
    for path, message in collisions(c.tax):
        c.add(TAXONOMY, path, message)


def year_minimum(c) -> None:
    """The earliest allowed publication year is not in the future."""
    if c.tax.year_minimum > clock.today().year:
        c.add(TAXONOMY, ("year_minimum",), f"{c.tax.year_minimum} is after this year; no record could be valid")


def conditions(c) -> None:
    """``required_when`` and ``na_iff`` name real fields and values (``na_iff`` only with a
    ``not_applicable`` value); what a value ``implies`` is a value of another field of the same records."""
    tax = c.tax
    for field in tax.fields.values():
        for key in ("required_when", "na_iff"):
            for other, vals in (field.spec.get(key) or {}).items():
                if other not in tax.fields:
                    c.add(TAXONOMY, ("fields", field.name, key), f"names unknown field {other!r}")
                    continue
                if tax.fields[other].multi:  # a record's list is no one value to compare: no record could keep the rule
                    c.add(TAXONOMY, ("fields", field.name, key), f"names {other!r}, a list field; {key} names "
                                                                 "single-valued fields")
                    continue
                for val in vals if isinstance(vals, list) else [vals]:
                    if val not in tax.values(other):
                        c.add(TAXONOMY, ("fields", field.name, key), f"{val!r} is not a value of {other}")
        if field.spec.get("na_iff") and field.multi:
            c.add(TAXONOMY, ("fields", field.name, "na_iff"), "a list field has no na_iff (its not-applicable value would "
                                                             "sit in a list); give it to a single-valued field")
        elif field.spec.get("na_iff") and (tax.not_applicable is None or tax.not_applicable not in field.values):
            c.add(TAXONOMY, ("fields", field.name, "na_iff"), "na_iff says when the field is not applicable: declare "
                                                             "not_applicable (the code) and give the field that value")
        for code in field.values:
            for other, implied in (field.value_spec(code).get("implies") or {}).items():
                target = tax.fields.get(other)
                if target is None or target.applies_to != field.applies_to or other == field.name:
                    c.add(TAXONOMY, ("fields", field.name, "values", code, "implies"),
                          f"implies names {other!r}, which is no other field of {field.applies_to} records")
                elif target.multi:
                    c.add(TAXONOMY, ("fields", field.name, "values", code, "implies"),
                          f"implies names {other!r}, a list field; a value implies the value of a single-valued field")
                elif implied not in target.values:
                    c.add(TAXONOMY, ("fields", field.name, "values", code, "implies"),
                          f"{implied!r} is not a value of {other}; allowed: {', '.join(target.values)}")


def value_keys(c) -> None:
    """Each value of a controlled field has only known keys, each with a value: the keys of every
    value (:data:`masrl.corpus.schema.VALUE_KEYS`) and the field's own ``value_attributes``
    (editorial attributes such as a bracket, read by ``attr`` columns of declared tables). Keys
    without a value after a text are what YAML makes of the rest of that unquoted text after a
    comma inside a flow mapping (``{definition: a, b, source: s}`` reads ``b`` as a key), so the
    text was cut short: one problem names the whole text to quote."""
    fields = c.corpus.taxonomy.get("fields") if isinstance(c.corpus.taxonomy, dict) else None
    for name, spec in fields.items() if isinstance(fields, dict) else []:
        values = spec.get("values") if isinstance(spec, dict) else None
        extra = spec.get("value_attributes") if isinstance(spec, dict) else None
        allowed = (*schemas.VALUE_KEYS, *(str(k) for k in extra if isinstance(k, str))) if isinstance(extra, list) \
            else schemas.VALUE_KEYS
        for code, value in values.items() if isinstance(values, dict) else []:
            if isinstance(value, dict):
                _value_keys(c, ("fields", name, "values", code), value, allowed)


def value_codes(c) -> None:
    """A value's code is what records write: not ``untagged`` (masrl's word for a field not tagged yet),
    and in Unicode's composed form (NFC), so that a code that reads the same is written the same
    (``café`` once, not a composed and a decomposed twin)."""
    fields = c.corpus.taxonomy.get("fields") if isinstance(c.corpus.taxonomy, dict) else None
    for name, spec in fields.items() if isinstance(fields, dict) else []:
        values = spec.get("values") if isinstance(spec, dict) else None
        for code in values if isinstance(values, dict) else []:
            if not isinstance(code, str):
                continue  # masrl's YAML reader makes every key a text
            if code == UNTAGGED:
                c.add(TAXONOMY, ("fields", name, "values", code), f"{code!r} is masrl's placeholder for a field not "
                                                                   "tagged yet, so no value's code; name this value otherwise "
                                                                   "(e.g. unknown)")
            elif unicodedata.normalize("NFC", code) != code:
                c.add(TAXONOMY, ("fields", name, "values", code),
                      f"{code!r} is written decomposed ({ascii(code)}: a letter and a combining mark); write it composed "
                      f"(NFC: {ascii(unicodedata.normalize('NFC', code))}), as a keyboard does, so that records that write "
                      "it the usual way match it")


def value_labels(c) -> None:
    """Two values of one field have two labels: tables, figures and the site show a value by its label
    (its code when it has none), so a reader could not tell two counts of one label apart."""
    fields = c.corpus.taxonomy.get("fields") if isinstance(c.corpus.taxonomy, dict) else None
    for name, spec in fields.items() if isinstance(fields, dict) else []:
        values = spec.get("values") if isinstance(spec, dict) else None
        first: dict[str, str] = {}
        for code, value in values.items() if isinstance(values, dict) else []:
            label = value.get("label", code) if isinstance(value, dict) else code
            if not isinstance(label, str):
                continue  # the schema names it
            shown = " ".join(label.split())
            if first.setdefault(shown, code) != code:
                where = ("fields", name, "values", code) + (("label",) if isinstance(value, dict) and "label" in value else ())
                c.add(TAXONOMY, where, f"the label {label!r} is also {first[shown]!r}'s: tables, figures and the site show "
                                       "a value by its label, so give each value of the field its own")


def survey_links(c) -> None:
    """``survey.link`` (the survey's own page) and ``survey.site_url`` (where the catalogue is published)
    are http(s) URLs: the README, the site and the feed link to them; ``site_url`` is a folder's address
    (the site's pages and feed are under it: no query, no fragment). ``survey.arxiv`` is an arXiv id (the
    feed's ids are made of it)."""
    survey = c.corpus.taxonomy.get("survey") if isinstance(c.corpus.taxonomy, dict) else None
    survey = survey if isinstance(survey, dict) else {}
    for key in ("link", "site_url"):
        value = survey.get(key)
        if isinstance(value, str) and (why := url_problem(value)):
            c.add(TAXONOMY, ("survey", key), f"{value!r} {why}")
        elif key == "site_url" and isinstance(value, str) and ("?" in value or "#" in value):
            c.add(TAXONOMY, ("survey", key), f"{value!r} has a query ('?') or a fragment ('#'): site_url is the address "
                                             "of the folder the catalogue is published in, under which its index.html and "
                                             "feed.xml are found, such as https://you.github.io/survey/")
    arxiv = survey.get("arxiv")
    if isinstance(arxiv, str) and (why := arxiv_problem(arxiv)):
        c.add(TAXONOMY, ("survey", "arxiv"), f"{arxiv!r}: {why}; it is the survey's own arXiv id (such as 2605.02801): "
                                             "leave it out when the survey is not on arXiv")


def _cut_texts(c, path: tuple, value: dict, known: tuple = ()) -> list:
    """Report each text of ``value`` that YAML cut at a comma (a text followed by keys without a
    value that are not in ``known``); return the other keys, in order."""
    keys, rest, i = list(value), [], 0
    while i < len(keys):
        key, run = keys[i], []
        while i + 1 + len(run) < len(keys) and value[keys[i + 1 + len(run)]] is None \
                and keys[i + 1 + len(run)] not in known:
            run.append(keys[i + 1 + len(run)])
        if run and isinstance(value[key], str):
            whole = ", ".join([value[key], *map(str, run)])
            c.add(TAXONOMY, path + (key,), f"the text was cut at a comma: YAML read {value[key]!r} and made "
                                           f"{', '.join(repr(str(k)) for k in run)} {'a key' if len(run) == 1 else 'keys'} "
                                           f"without a value; quote the whole text: {key}: \"{whole}\"")
            i += 1 + len(run)
            continue
        rest.append(key)
        i += 1
    return rest


def _value_keys(c, path: tuple, value: dict, allowed: tuple) -> None:
    for key in _cut_texts(c, path, value, allowed):
        if key not in allowed:
            what = "a key without a value" if value[key] is None else "an unknown key"
            c.add(TAXONOMY, path + (key,), f"{key!r} is {what}; allowed: {', '.join(allowed)} "
                                           f"(a field adds its own in value_attributes){_suggest(key, allowed)}")


def keys_without_value(c) -> None:
    """No key of the taxonomy is left without a value (the values of controlled fields are
    :func:`value_keys`'s). A key without a value after a text is what YAML makes of an unquoted
    text cut at a comma inside a flow mapping (``{name: Small, medium, codes: [s]}`` reads
    ``medium`` as a key): one problem names the whole text to quote."""
    _empty_keys(c, c.corpus.taxonomy, ())


def _empty_keys(c, value, path: tuple) -> None:
    if isinstance(value, list):
        for i, item in enumerate(value):
            _empty_keys(c, item, path + (i,))
        return
    if not isinstance(value, dict):
        return
    if len(path) == 3 and path[0] == "fields" and path[2] == "values":
        return  # rule T019
    for key in _cut_texts(c, path, value):
        if value[key] is None:
            c.add(TAXONOMY, path + (key,), f"{key!r} has no value; write one, or remove the key")
        else:
            _empty_keys(c, value[key], path + (key,))


def editorial_keys(c, keys: set[str]) -> None:
    """Representatives and anchors named in the taxonomy (of values and of families) are retained records."""
    tax = c.tax
    named: list[tuple[tuple, str]] = []
    for i, spec in enumerate(tax.declared_list("tables")):
        decl = table_of(spec)
        for fid, fam in (decl.families.items() if decl is not None else []):
            named += [(("tables", i, "families", fid, "representatives"), k) for k in fam.get("representatives") or []]
    for field in tax.fields.values():
        for code in field.values:
            spec = field.value_spec(code)
            for role in ("representatives", "anchors"):
                named += [(("fields", field.name, "values", code, role), k) for k in spec.get(role) or []]
    for path, key in named:
        if key not in keys:
            c.add(TAXONOMY, path, f"names record {key!r}, which is not a retained record{_suggest(key, keys)}")
