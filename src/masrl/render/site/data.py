"""Plain data of the catalogue site, from the build results (pure functions, no I/O).

Everything a page shows or filters on is prepared here: records with their
display fields, tags as taxonomy labels, identifiers as links, BibTeX; the
exclusion log; the taxonomy tables and crosstabs with the filter of every
cell; the claims with the records of every check. Links are kept only when
they are http(s) URLs (:func:`safe_url`).
"""

from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit

from ...analyses import gaps as gap_analysis
from ...corpus.declarations import all_of_name, split_values
from ...bib import bibexport, venues
from ...bib.bibtex import display_name
from ...core.fold import ascii_words
from ...corpus import provenance
from ...corpus.records import SITE_ADDRESS_KEYS
from ...corpus.declarations import tables as declared_tables
from ..readme import authors_display

#: How many fields of retained records the paper list shows as columns when the taxonomy names none.
DEFAULT_COLUMNS = 6

#: The exclusion log's filters in the URL (``screening.html#stage=...&reason_class=...``), by the
#: screening role of the field they filter: the names the site's script reads, whatever the fields are called.
LOG_FILTERS = {"stages": "stage", "reasons": "reason_class"}


def columns(tax) -> list[str]:
    """The fields of retained records shown as columns of the paper list (besides title, authors,
    year, venue): the taxonomy's ``site.columns``, else its first retained fields."""
    declared = tax.declared("site").get("columns")
    if isinstance(declared, list):
        return [str(c) for c in declared if c in tax.fields]
    return [f.name for f in tax.of("retained")][:DEFAULT_COLUMNS]


def log_param(tax, field: str) -> str:
    """The URL parameter that filters the exclusion log by ``field`` (:data:`LOG_FILTERS`), or the
    field's own name for a field that plays no screening role."""
    return next((param for role, param in LOG_FILTERS.items() if tax.role(role) == field), field)


def safe_url(url: object) -> str | None:
    """``url`` if it is an absolute http(s) URL with a host, else None (never a javascript: link)."""
    text = str(url or "").strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    return text if parts.scheme in ("http", "https") and parts.netloc and not re.search(r"\s", text) else None


def filter_link(page: str, filters: dict[str, list[str] | str]) -> str:
    """``page#field=value&...``: the URL of a filtered view (values in given order, one pair each)."""
    pairs = []
    for name, values in filters.items():
        for value in values if isinstance(values, list) else [values]:
            pairs.append((name, value))
    return f"{page}#{urlencode(pairs)}" if pairs else page


def _full_name(author: str) -> str:
    """A record author as the exports read it (:func:`masrl.bib.bibtex.display_name`)."""
    return display_name(author)


def _bibtex_entries(records, text: str | None = None) -> dict[str, str]:
    """Citation key (the record key) -> its entry in ``reports/papers.bib``: ``text``, the entries
    of that file (:func:`masrl.bib.bibexport.entries` of ``records``, computed when None), split."""
    if text is None:
        text = bibexport.entries(list(records))
    out = {}
    for block in re.split(r"\n(?=@)", text):
        match = re.match(r"@\w+\{([^,]+),", block)
        if match:
            out[match.group(1)] = block.strip() + "\n"
    return out


def _identifier_links(record: dict, tax) -> list[dict]:
    """``[{"scheme", "label", "id", "url" or None}]`` of a record: identifiers through their resolvers,
    then landing-page URLs not already given."""
    schemes = tax.identifier_schemes
    links, seen = [], set()
    for scheme, value in (record.get("identifiers") or {}).items():
        spec = schemes.get(scheme, {})
        for item in value if isinstance(value, list) else [value]:
            resolver = spec.get("resolver")
            url = safe_url(resolver.format(id=item)) if resolver else (safe_url(item) if scheme == "url" else None)
            links.append({"scheme": scheme, "label": str(spec.get("label", scheme)), "id": str(item), "url": url})
            if url:
                seen.add(url)
    for url in str(record.get("url") or "").split(" ; "):
        url = safe_url(url)
        if url and url not in seen:
            links.append({"scheme": "url", "label": "landing page", "id": url, "url": url})
            seen.add(url)
    return links


def _ascii(*texts: str) -> dict:
    """``{"ascii": ...}``, the searched texts as masrl's keys spell them (:func:`masrl.core.fold.ascii_words`), when they are
    not ASCII: the site's search meets "eliyev" in Əliyev and "ivanov" in Иванов, which no folding in the browser spells."""
    text = " ".join(texts)
    return {} if text.isascii() else {"ascii": ascii_words(text)}


def _tags(record: dict, tax) -> list[dict]:
    """Every controlled field the record carries: ``{"field", "label", "values": [{"code", "label"}],
    "provenance"}``; provenance is the record's ``tag_provenance`` for the field, else where its
    tags came from: its import source, or, for a stub that masrl wrote with every field
    ``untagged`` (its provenance has the date ``added``), a person who set them by hand. A value
    ``masrl suggest --draft`` wrote that no person has confirmed yet (:mod:`masrl.corpus.provenance`)
    also has ``"suggested": True``; the detail view shows its provenance, which ends in "not confirmed"."""
    how = record.get("tag_provenance") or {}
    prov = record.get("provenance") or {}
    source = str(prov.get("source", ""))
    if source.startswith("masrl ") and "added" in prov:  # a stub masrl wrote with every field untagged
        default = f"set by hand: {source.split(' (')[0]} wrote the record untagged (no tag_provenance given)"
    elif source and "added" in prov:  # a record a person wrote
        default = f"set by hand (the record's source: {source}; no tag_provenance given)"
    else:
        default = f"as imported ({source})" if source else "as recorded"
    out = []
    for field in tax.of("retained"):
        if field.name not in record:
            continue
        raw = record[field.name]
        codes = [str(v) for v in (raw if isinstance(raw, list) else [raw])]
        out.append({"field": field.name, "label": field.label,
                    "values": [{"code": c, "label": field.value_label(c)} for c in codes],
                    "provenance": str(how.get(field.name, default)),
                    **({"suggested": True} if provenance.state(how.get(field.name)) == provenance.NOT_CONFIRMED else {})})
    return out


#: The facet that tells the published release from what was added since (not a taxonomy field).
RELEASE_FIELD = "release"
assert RELEASE_FIELD in SITE_ADDRESS_KEYS, "the release facet's name is one the site's address gives its state"


def release_facet(baseline_name: str) -> dict:
    """The facet of :data:`RELEASE_FIELD`: records of release ``baseline_name`` vs added since."""
    return {"field": RELEASE_FIELD, "label": "Release", "multi": False,
            "values": [{"code": baseline_name, "label": f"in release {baseline_name} (published)"},
                       {"code": "new", "label": f"new since {baseline_name}"}]}


def papers(results, baseline_name: str = "", new: frozenset[str] = frozenset(), bibtex: str | None = None) -> list[dict]:
    """One dict per retained record, in the default order (newest first, then title).

    With ``baseline_name`` (a release exists), every record carries the tag
    :data:`RELEASE_FIELD`: ``new`` for the keys in ``new`` (added since that
    release), else the release's name; ``is_new`` says the same for the marker. ``bibtex``: the
    entries of ``reports/papers.bib`` (:func:`masrl.bib.bibexport.entries`), when already made.
    """
    tax = results.tax
    entries = _bibtex_entries(results.retained_records, bibtex)
    out = []
    for r in results.retained_records:
        authors = [_full_name(a) for a in r["authors"] if a != "others"]
        more = "others" in r["authors"]
        tags = {f.name: r.get(f.name) for f in tax.of("retained") if f.name in r}
        if baseline_name:
            tags[RELEASE_FIELD] = "new" if r["key"] in new else baseline_name
        out.append({
            "key": r["key"], "title": r["title"], "authors": authors, "more_authors": more,
            "authors_short": authors_display(r["authors"]), "year": int(r["year"]), "venue": venues.shown(str(r.get("venue", ""))),
            "one_liner": str(r.get("one_liner", "")), "notes": str(r.get("notes", "")),
            "affiliation": str(r.get("affiliation", "")),
            "link": next((safe_url(u) for u in str(r.get("url") or "").split(" ; ") if safe_url(u)), None),
            "tags": {k: (list(v) if isinstance(v, list) else v) for k, v in tags.items()},
            "tag_list": _tags(r, tax), "identifiers": _identifier_links(r, tax),
            **_ascii(r["title"], " ".join(authors), str(r.get("one_liner", "")), venues.shown(str(r.get("venue", "")))),
            "bibtex": entries.get(r["key"], ""),
            "is_new": bool(baseline_name) and r["key"] in new,
            # only records holding a draft carry the key, so the pages of every other pool keep their bytes
            **({"suggested": draft} if (draft := provenance.unconfirmed_fields(r)) else {}),
        })
    return sorted(out, key=lambda p: (-p["year"], p["title"].lower(), p["key"]))


def facets(results) -> list[dict]:
    """One facet per controlled field of retained records: ``{"field", "label", "multi", "values": [{code, label}]}``."""
    return [{"field": f.name, "label": f.label, "multi": f.multi,
             "values": [{"code": c, "label": f.value_label(c)} for c in f.values]} for f in results.tax.of("retained")]


def exclusion_columns(tax) -> list[dict]:
    """The exclusion log's columns after the near-miss column (taxonomy ``site.exclusion_columns``):
    ``[{"field", "header"}]``."""
    declared = tax.declared("site").get("exclusion_columns")
    return [c for c in declared if isinstance(c, dict)] if isinstance(declared, list) else []


def exclusions(results, new: frozenset[str] = frozenset()) -> list[dict]:
    """One dict per excluded record, by record id, with its screening stage and reason class
    (the fields of the taxonomy's ``screening.stages`` and ``screening.reasons``) as codes and
    labels, and the values of the log's extra columns (``extra``, :func:`exclusion_columns`);
    ``is_new`` for the record ids in ``new`` (screened since the latest release)."""
    tax = results.tax
    stage, reason = tax.role("stages"), tax.role("reasons")
    extra = exclusion_columns(tax)
    out = []
    for r in results.excluded_records:
        out.append({
            "id": r["record_id"], "label": str(r.get("screening_label", "")),
            "link": next((safe_url(u) for u in str(r.get("url") or "").split(" ; ") if safe_url(u)), None),
            "stage_code": str(r.get(stage, "")) if stage else "", "stage_label": tax.label(stage, str(r.get(stage, ""))) if stage else "",
            "reason_code": str(r.get(reason, "")) if reason else "",
            "reason_label": tax.label(reason, str(r.get(reason, ""))) if reason else "",
            "reason": str(r.get("exclusion_reason", "")), "near_miss": bool(r.get("if_retained")),
            "extra": [str(r.get(c["field"], "")) for c in extra],
            "date": str(r.get("date_screened", "")), "is_new": r["record_id"] in new,
        })
    return out


def _cell(count: int, link: str | None, structural: bool = False) -> dict:
    return {"count": int(count), "link": link if count else None, "gap": not count and not structural,
            "structural": bool(structural)}


def crosstabs(results) -> list[dict]:
    """Every crosstab of the taxonomy with labels, and for each cell its count and the link to its records.

    A zero cell outside the structural values (``gap_analysis.skip_values``) is a gap.
    """
    tax = results.tax
    structural = tax.gap_skips[1]
    out = []
    for rows, cols in tax.crosstabs:
        frame = results.table(f"{rows}_x_{cols}").frame
        retained = tax.fields[rows].applies_to == "retained"
        page = "index.html" if retained else "screening.html"
        names = (rows, cols) if retained else (log_param(tax, rows), log_param(tax, cols))
        body = []
        for r, counts in zip(frame.index, frame.to_numpy().tolist()):  # each row read once, not each cell
            cells = [_cell(count, filter_link(page, {names[0]: str(r), names[1]: str(c)}),
                           str(r) in structural or str(c) in structural) for c, count in zip(frame.columns, counts)]
            body.append({"code": str(r), "label": tax.fields[rows].value_label(str(r)), "cells": cells})
        out.append({"id": f"{rows}_x_{cols}", "title": f"{tax.fields[rows].label} × {tax.fields[cols].label}",
                    "row_label": tax.fields[rows].label, "population": tax.fields[rows].applies_to,
                    "columns": [{"code": str(c), "label": tax.fields[cols].value_label(str(c))} for c in frame.columns],
                    "rows": body})
    return out


def _site_column(decl, name: str):
    """The declared column a site column names (a column's name, or an all_of column's formatted name)."""
    return next((c for c in decl.columns if c.name == name or (c.kind == "all_of" and c.name and name == c.name)), None)


def _row_filters(decl, code: str, row_codes: list[str]) -> dict:
    return {**decl.where, decl.field: row_codes if decl.kind == "families" else code}


def _declared_cells(decl, tax, code: str, row, row_codes: list[str]) -> list[dict]:
    """The cells of one row of a declared table on the taxonomy page, as its ``site`` declares them."""
    site = decl.site
    header = site.get("row_header") or {}
    cells: list[dict] = []
    if header.get("link"):
        cells.append({"kind": "th_link", "field": decl.field, "value": code, "newline": False})
    else:
        cells.append({"kind": "th", "value": str(row[header["column"]]) if header.get("column") else code, "newline": False})
    base = _row_filters(decl, code, row_codes)
    for spec in site.get("columns") or []:
        newline = spec.get("newline") is True
        structural = spec.get("zero") == "structural"
        if "split" in spec:
            column = next(c for c in decl.columns if c.kind == "split" and c.arg == spec["split"])
            for k, (value, name) in enumerate(split_values(column, tax)):
                link = filter_link("index.html", {**base, spec["split"]: value})
                cells.append({"kind": "count", "cell": _cell(row[name], link, structural), "newline": newline and k == 0})
            continue
        name = spec["column"]
        column = _site_column(decl, name)
        value = row[all_of_name(column, tax)] if column is not None and column.kind == "all_of" else row[name]
        cell: dict = {"newline": newline}
        if column is not None and column.kind in ("count", "all_of"):
            extra = dict(column.arg or {}) if column.kind == "count" else {str(column.arg): list(tax.values(str(column.arg)))}
            cell.update(kind="count", cell=_cell(value, filter_link("index.html", {**base, **extra}), structural))
        elif column is not None and (column.kind == "keys" or (column.kind == "attr" and column.names_records)):
            cell.update(kind="links", keys=_keys(value))
        elif column is not None and column.kind == "flag":
            cell.update(kind="flag", value=str(value))
        elif spec.get("show") == "labels":
            cell.update(kind="text", value=", ".join(tax.label(decl.field, c) for c in row_codes))
        else:
            cell.update(kind="text", value=str(value))
        cells.append(cell)
    return cells


def _declared_headers(decl, tax) -> list[dict]:
    site = decl.site
    headers = [{"text": str((site.get("row_header") or {}).get("header", "")), "num": False, "abbr": None}]
    for spec in site.get("columns") or []:
        if "split" in spec:
            column = next(c for c in decl.columns if c.kind == "split" and c.arg == spec["split"])
            for value, _ in split_values(column, tax):
                label = tax.label(spec["split"], value)
                headers.append({"text": value if spec.get("header") == "abbr" else label, "num": True,
                                "abbr": label if spec.get("header") == "abbr" else None})
            continue
        column = _site_column(decl, spec["column"])
        text = spec.get("header") or (all_of_name(column, tax) if column is not None and column.kind == "all_of" else spec["column"])
        headers.append({"text": str(text), "num": column is not None and column.kind in ("count", "all_of"), "abbr": None})
    return headers


def taxonomy_tables(results) -> list[dict]:
    """The survey's declared tables that the site shows (a ``site`` declaration each), in order:
    ``{"id", "toc", "heading", "intro", "caption", "headers", "rows"}``, every count with the link
    to the list of its records."""
    tax = results.tax
    out = []
    for decl in declared_tables(tax):
        if not decl.site or decl.kind not in ("values", "families") or not results.has_table(decl.name):
            continue
        frame = results.table(decl.name).frame
        rows = []
        for code, row in frame.iterrows():
            codes = [str(c) for c in decl.families.get(str(code), {}).get("codes") or []] if decl.kind == "families" else [str(code)]
            rows.append(_declared_cells(decl, tax, str(code), row, codes))
        site = decl.site
        out.append({"id": site["id"], "toc": site["toc"], "heading": site["heading"], "intro": site.get("intro", ""),
                    "caption": site["caption"], "headers": _declared_headers(decl, tax), "rows": rows})
    return out


def _keys(text: object) -> list[str]:
    value = str(text or "")
    return [] if value in ("", "none") else [k.strip() for k in value.split(",") if k.strip()]


def named_gaps(results, claims) -> list[dict]:
    """The survey's named gaps with, per selection, the link to its records."""
    out = []
    for gap in gap_analysis.named_gaps(results.retained, results.tax, list(claims)):
        out.append({"id": gap.id, "title": gap.title, "source": gap.source, "claim": gap.claim,
                    "claim_status": gap.claim_status, "claim_holds": gap.claim_holds,
                    "selections": [{"label": s.label, "keys": list(s.keys),
                                    **_cell(len(s.keys), filter_link("index.html", {"key": list(s.keys)}))}
                                   for s in gap.selections]})
    return out


def claims(results, claim_results, scopes: dict[str, str] | None = None) -> list[dict]:
    """The claim ledger with every check's stated and computed values and its records (with links:
    a retained record to its detail, an excluded one to the exclusion log, one the pool no longer
    holds to nothing). ``scopes`` names the population each claim is about (``pool`` -> ``current pool``)."""
    retained = {r["key"] for r in results.retained_records}
    excluded = {r["record_id"] for r in results.excluded_records}
    out = []
    for claim in claim_results:
        checks = []
        for check in claim.checks:
            records = []
            for k in check.keys:
                if k in retained:
                    link = f"index.html#{urlencode([('paper', k)])}"
                elif k in excluded:
                    link = f"screening.html#{urlencode([('q', k)])}"
                else:
                    link = None
                records.append({"key": k, "link": link})
            on_list = [k for k in check.keys if k in retained]
            checks.append({"label": check.label, "population": check.population, "stated": check.stated(),
                           "computed": check.computed(), "holds": check.holds, "records": records,
                           "list_link": filter_link("index.html", {"key": on_list}) if on_list else None})
        if claim.status == "superseded":
            result = "holds" if claim.holds else "drifted from the data"
        else:
            result = "holds" if claim.holds else "fails"
        scope = str(getattr(claim, "scope", "pool"))
        out.append({"id": claim.id, "statement": str(getattr(claim, "text", claim.statement)), "status": claim.status,
                    "result": result, "holds": claim.holds, "evidence_boundary": claim.evidence_boundary,
                    "source": claim.source, "superseded_by": claim.superseded_by, "checks": checks,
                    "scope": (scopes or {}).get(scope, scope)})
    return out
