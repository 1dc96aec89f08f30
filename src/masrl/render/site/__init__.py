"""The catalogue site ``reports/site/``: a static, self-contained set of pages for readers.

:func:`site_files` turns the build results into every file of the site
(``{relative path: bytes}``, no I/O): the paper list with search, facets,
sortable columns and a detail view per paper; the taxonomy tables and
crosstabs (every non-empty cell links to its records, empty cells are marked
as gaps) with the survey's named gaps; the PRISMA flow and the searchable
exclusion log; the claims with the records behind each check; the figures; and an Atom feed
of the records added since the last release (:mod:`.feed`).
:func:`figure_files` copies the figures' SVG files into the site.

The pages work from ``file://`` and from any static host with no network:
the data of a page is embedded in it as JSON (``<script
type="application/json">``, with ``<``, ``>`` and ``&`` escaped so no string
can end the element), the one script and the one style sheet are package
files copied next to the pages, and nothing is fetched from elsewhere. HTML
is written by jinja2 with autoescaping on; links are kept only when they are
http(s) URLs. Filter state lives in the URL's fragment (``#q=...&category=...``),
so a link reproduces a view from disk as well as from a server.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from . import data

#: The site's folder in the pool's report tree, and from the survey root.
TREE_FOLDER = "site"
FOLDER = f"reports/{TREE_FOLDER}"
PAGES = (
    ("index.html", "papers.html.j2", "Papers"),
    ("taxonomy.html", "taxonomy.html.j2", "Taxonomy and gaps"),
    ("screening.html", "screening.html.j2", "Screening"),
    ("claims.html", "claims.html.j2", "Claims"),
    ("figures.html", "figures.html.j2", "Figures"),
)
ASSETS = ("site.css", "site.js")


def json_script(value: object) -> str:
    """``value`` as JSON safe inside ``<script type="application/json">``: sorted keys,
    ``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026``."""
    from markupsafe import Markup

    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))


def html_text(value: object) -> str:
    """``value`` escaped for an HTML text node (``&``, ``<``, ``>``): what a heading, caption or
    paragraph of the survey's declarations needs (quotes need no escaping outside attributes)."""
    from markupsafe import Markup

    return Markup(str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


@lru_cache(maxsize=1)
def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("masrl.render.site", "templates"),
        undefined=jinja2.StrictUndefined, autoescape=True, keep_trailing_newline=True,
        trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["json_script"] = json_script
    env.filters["text"] = html_text
    env.filters["url"] = data.safe_url
    return env


def _assets() -> dict[str, bytes]:
    root = resources.files(__name__).joinpath("assets")
    return {f"{TREE_FOLDER}/assets/{name}": root.joinpath(name).read_bytes() for name in ASSETS}


def site_files(results, claims=(), baseline=None, pending=None, bibtex: str | None = None,
               releases=()) -> dict[str, bytes]:
    """Every file of the site except the figure SVGs (see :func:`figure_files`), for the pool's
    ``results``: ``{path relative to the report tree ("site/index.html"): bytes}``, the same
    bytes for the same inputs.

    ``claims``: the evaluated claim ledger. ``baseline``: the results of the latest release
    (None without one) and ``pending``: what the pool holds that the release does not
    (:class:`masrl.corpus.population.Pending`); with them, papers and exclusions added since the
    published version are marked new and a "Release" facet selects either. ``bibtex``: the
    entries of ``reports/papers.bib`` (:func:`masrl.bib.bibexport.entries` of the retained
    records), when the caller made them already; computed when None. ``releases``: the results of
    every release, in order (the feed lists the records added since the first; without them, the
    records the latest release does not hold).
    """
    from ..figures import figures_of

    tax = results.tax
    survey = tax.data.get("survey") or {}
    base_name = baseline.name if baseline is not None else ""
    new_keys = frozenset(pending.retained) if base_name and pending is not None else frozenset()
    new_ids = frozenset(pending.excluded) if base_name and pending is not None else frozenset()
    release = None
    if baseline is not None:
        rel = baseline.population.release
        release = {"name": base_name, "label": baseline.population.label, "date": str(getattr(rel, "date", "")),
                   "title": str(getattr(rel, "title", "")).rstrip("."),
                   "new_papers": len(new_keys), "new_exclusions": len(new_ids),
                   "dropped": len(pending.dropped) if pending is not None else 0}
    context = {
        "survey_title": str(survey.get("title", "Paper pool")),
        "survey_link": data.safe_url(survey["link"]) if isinstance(survey.get("link"), str) else None,
        "licence": str(survey["data_licence"]) if isinstance(survey.get("data_licence"), str) else "",
        "headline": results.headline,
        "nav": [(path, title) for path, _, title in PAGES],
        "release": release,
    }
    papers = data.papers(results, base_name, new_keys, bibtex)
    facets = data.facets(results) + ([data.release_facet(base_name)] if base_name else [])
    scopes = {"pool": "current pool"}
    if baseline is not None:
        scopes[base_name] = baseline.population.label
    stage, reason, group = tax.role("stages"), tax.role("reasons"), tax.role("included_by")
    page_data = {
        "index.html": {"papers": papers, "facets": facets, "columns": data.columns(tax),
                       "labels": {f["field"]: {v["code"]: v["label"] for v in f["values"]} for f in facets},
                       "code_fields": [f.name for f in tax.of("retained") if f.show_code], "na": tax.not_applicable or ""},
        "taxonomy.html": {"named_gaps": data.named_gaps(results, claims), "tables": data.taxonomy_tables(results),
                          "crosstabs": data.crosstabs(results), "labels": {p["key"]: p["title"] for p in papers},
                          "structural": tax.sentence("structural_values")},
        "screening.html": {"flow": results.prisma, "exclusions": data.exclusions(results, new_ids),
                           "stages": [{"code": c, "label": tax.label(stage, c)} for c in tax.values(stage)] if stage else [],
                           "reason_classes": [{"code": c, "label": tax.label(reason, c)} for c in tax.values(reason)] if reason else [],
                           "extra_columns": data.exclusion_columns(tax),
                           "included_by": tax.fields[group].label.lower() if group else "", "included_field": group or "",
                           "flow_figure": next((s.name for s in figures_of(tax) if s.module == "flow"), "")},
        "claims.html": {"claims": data.claims(results, claims, scopes)},
        "figures.html": {"figures": [{"name": spec.name, "caption": spec.caption, "notes": spec.notes(results)}
                                     for spec in figures_of(tax)]},
    }
    env = _environment()
    out = {}
    for path, template, title in PAGES:
        html = env.get_template(template).render(page=path, title=title, **context, **page_data[path])
        out[f"{TREE_FOLDER}/{path}"] = html.encode("utf-8")
    out.update(_assets())
    from .feed import Release, feed_xml

    history = [Release(r.name, r.population.label, str(getattr(r.population.release, "date", "")), frozenset(r.population.keys))
               for r in releases] if releases else ([Release(base_name, baseline.population.label, release["date"],
                                                             frozenset(baseline.population.keys))] if baseline is not None else [])
    out[f"{TREE_FOLDER}/feed.xml"] = feed_xml(results, history)
    return out


def figure_files(outputs: dict, tax) -> dict[str, bytes | None]:
    """The SVG of every figure the taxonomy ``tax`` declares, from ``outputs``
    (``reports/figures/<name>.svg``), copied to ``reports/site/figures/``; None stays None (a
    stale figure under ``--check``)."""
    from ..figures import figures_of

    return {f"{FOLDER}/figures/{spec.name}.svg": outputs.get(f"reports/figures/{spec.name}.svg") for spec in figures_of(tax)}
