"""Fuzzing taxonomies: whatever a survey declares, masrl validate either names every problem or the
survey builds, never a traceback.

Hypothesis draws taxonomies of format 2 from a small alphabet of names, so that declarations
often name fields, values, columns and tables that exist and sometimes ones that do not: fields
(single and list, of retained and excluded records, with a not-applicable value), crosstabs, gap
declarations, tables of every kind with columns of every kind, figures of every kind, the
screening roles, the README list and the site; then records tagged from the drawn vocabulary.
When ``validate`` accepts the survey, every text report is rendered (and, in a few examples,
every figure drawn). Examples are bounded (the ``ci`` profile); for a long run:

    MASRL_HYPOTHESIS_PROFILE=long .venv/bin/python -m pytest -q tests/test_taxonomy_fuzz.py
"""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from masrl.build.generate import generate
from masrl.checks.validate import validate
from masrl.corpus.load import parse_tree
from masrl.render.figures import KINDS

NAMES = ["alpha", "beta", "gamma_x", "phase", "why"]
CODES = ["v1", "v2", "NR", "w_w"]
COLUMN_KINDS = ["attr", "count", "keys", "distinct", "split", "all_of", "flag"]
README = "# t\n\n<!-- masrl:papers:start -->\n<!-- masrl:papers:end -->\n"
TITLES = ["Graph kernels for molecules", "Rainfall nowcasting with radar", "Sparse coding of birdsong",
          "Tidal energy siting in estuaries", "Compilers for quantum circuits", "Soil microbes under drought",
          "Typesetting mathematics on the web", "Crowd flow at stadium exits", "Fermentation of cacao beans",
          "Wind loads on tall timber"]
SCHEMES = {"arxiv": {"label": "arXiv", "definition": "arXiv id", "resolver": "https://arxiv.org/abs/{id}"}}


def scaled(ci: int) -> int:
    """``ci`` examples under the default profile, proportionally more under ``long``."""
    return max(ci, ci * settings.default.max_examples // 100)


@st.composite
def surveys(draw) -> dict[str, bytes]:
    """The files of a random survey: a taxonomy, records and a README."""
    pick = lambda options: draw(st.sampled_from(options))  # noqa: E731

    def valid(options: list, wrong: str = "nope"):
        """Mostly one of ``options``; now and then (or when there is none) a name that does not exist."""
        return pick(options) if options and rarely_wrong() else wrong

    def rarely_wrong() -> bool:
        """True but one time in 25 (hypothesis would pick the bound of an integer range too often)."""
        return draw(st.sampled_from(range(25))) != 12
    fields = {}
    for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True)):
        codes = draw(st.lists(st.sampled_from(CODES), min_size=1, max_size=4, unique=True))
        kind = "excluded" if name in ("phase", "why") and draw(st.booleans()) else "retained"
        fields[name] = {"applies_to": kind, "label": name.title(), "definition": "d", "source": "s",
                        "multi": kind == "retained" and (name == "gamma_x" or draw(st.booleans())),
                        "values": {c: {"label": c.upper(), "definition": "d", "source": "s"} for c in codes}}
    retained = [n for n, f in fields.items() if f["applies_to"] == "retained"]
    single = [n for n in retained if not fields[n]["multi"]]
    lists = [n for n in retained if fields[n]["multi"]]
    any_field = list(fields)
    values = lambda name: list(fields.get(name, {}).get("values", {}))  # noqa: E731

    def where():
        name = valid(retained)
        return {} if draw(st.booleans()) else {name: valid(values(name), "zz")}

    tax: dict = {"format_version": 2, "identifier_schemes": SCHEMES, "fields": fields, "survey": {"title": "Fuzz"}}
    if draw(st.booleans()):
        tax["not_applicable"] = "NR"
    pairs = [[valid(retained), valid(retained)] for _ in range(draw(st.integers(0, 2)))] if retained else []
    tax["crosstabs"] = [p for p in pairs if p[0] != p[1] or draw(st.booleans())]
    gap_tables = retained + [f"{r}_x_{c}" for r, c in tax["crosstabs"]]
    if rarely_wrong():
        tax["gap_analysis"] = {"combine": {t: "why" for t in gap_tables if draw(st.booleans())}}
        tax["gap_analysis"]["left_out"] = {t: "why" for t in gap_tables if t not in tax["gap_analysis"]["combine"]}
    tables = []
    for i in range(draw(st.integers(0, 3))):
        kind = pick(["values", "families", "records", "years"] if single else ["values", "families", "records"])
        table = {"name": f"t{i}", "kind": kind, "title": f"T{i}", "source": "s"}
        field = valid(retained)
        if kind in ("values", "families"):
            table["field"] = field
            if draw(st.booleans()):
                table["skip"] = [valid(values(field), "zz")]
            cols = []
            for j in range(draw(st.integers(0, 4))):
                ckind = pick(COLUMN_KINDS)
                col = {"name": f"c{j}"}
                if ckind == "attr":
                    col["attr"] = pick(["label", "definition", "codes", "name"])
                elif ckind in ("count", "keys"):
                    col[ckind] = where()
                elif ckind == "flag":
                    col["flag"] = [{"zero": where(), "text": "gap"}]
                elif ckind == "split":
                    col = {"split": valid(retained), "name": pick(["label", "code"])}
                elif ckind == "all_of":
                    col[ckind] = valid(lists)
                else:
                    col[ckind] = valid(retained)
                cols.append(col)
            table["columns"] = cols
            if kind == "families":
                codes = values(field) or ["zz"]
                table["families"] = {"F1": {"name": "one", "codes": codes[:1]}, **({"F2": {"name": "two", "codes": codes[1:]}}
                                                                                    if len(codes) > 1 else {})}
            if draw(st.booleans()) and cols:
                first = next((c.get("name") for c in cols if "split" not in c), None)
                table["site"] = {"id": f"t-{i}", "toc": "t", "heading": "T", "caption": "c", "row_header": {"header": "H"},
                                 "columns": [{"column": first}] if first else [{"split": cols[0]["split"]}]}
        elif kind == "records":
            table["where"] = where()
            table["columns"] = [{"name": "title", "field": "title"}, {"name": "x", "field": valid(any_field)}]
        else:
            table["by"] = valid(single)
        tables.append(table)
    if lists and single and draw(st.booleans()):  # a table a chain figure can draw
        tables.append({"name": "chainable", "kind": "values", "field": pick(lists), "title": "C", "columns": [
            {"name": "n", "attr": "label"}, {"name": "k", "count": {}}, {"split": pick(single), "name": "label"},
            {"name": "g", "flag": [{"zero": {}, "text": "gap"}]}, {"name": "who", "keys": {}}]})
    tax["tables"] = tables
    names = [*retained, *(f"{r}_x_{c}" for r, c in tax["crosstabs"]), *(t["name"] for t in tables), "prisma_flow"]
    fitting = {"bars": [*retained, *(t["name"] for t in tables if t["kind"] in ("values", "families"))],
               "paired_bars": [*retained, *(t["name"] for t in tables if t["kind"] in ("values", "families"))],
               "heatmap": [f"{r}_x_{c}" for r, c in tax["crosstabs"]],
               "chain": [t["name"] for t in tables if t["kind"] == "values" and t["name"] == "chainable"] or
                        [t["name"] for t in tables if t["kind"] == "values"],
               "years": [t["name"] for t in tables if t["kind"] == "years"], "flow": ["prisma_flow"]}
    figures = []
    for i in range(draw(st.integers(0, 3))):
        kind = "chain" if i == 0 and "chainable" in fitting["chain"] and draw(st.booleans()) else valid(list(KINDS), "pie")
        fig = {"name": f"f{i}", "kind": kind, "table": valid(fitting.get(kind) or names), "caption": "c"}
        table = next((x for x in tables if x["name"] == fig["table"]), None)
        columns = ["label", "count"] if table is None else [c["name"] for c in table.get("columns", []) if "name" in c and "split" not in c]
        splits = [c["split"] for c in (table or {}).get("columns", []) if "split" in c and c.get("name") == "label"]
        columns = columns or ["label"]
        if kind == "bars":
            fig.update(labels=valid(columns), values=valid(columns))
        elif kind == "paired_bars":
            fig.update(labels=valid(columns), series=[valid(columns), valid(columns)])
        elif kind == "chain":
            fig.update(name_column=valid(columns), count_column=valid(columns), split=valid(splits))
            if fig["table"] == "chainable" and rarely_wrong():
                fig.update(name_column="n", count_column="k", flag_column="g", anchors_column="who", title="{first} to {last}")
        if draw(st.booleans()):
            fig["notes"] = [pick(["n = {retained}", "{gap} {n}", "{gap} {sum:count}", "{count:alpha:v1} {label:alpha:v1}"])
                            if rarely_wrong() else "{bad}"]
        figures.append(fig)
    tax["figures"] = figures
    roles = {}
    excluded = [n for n, f in fields.items() if f["applies_to"] == "excluded"]
    for role, pool in (("stages", excluded), ("reasons", excluded), ("included_by", single), ("inclusion", single)):
        if pool and draw(st.booleans()):
            roles[role] = valid(pool)
    tax["screening"] = roles
    if single and draw(st.booleans()):
        tax["readme"] = {"group_by": valid(single), "tags": [{"field": pick(retained)}]}
    if retained and draw(st.booleans()):
        tax["site"] = {"columns": [pick(retained)]}

    files = {"corpus/taxonomy.yaml": yaml.safe_dump(tax, sort_keys=False).encode(), "README.md": README.encode(),
             "corpus/claims.yaml": b"claims: []\n"}
    for i in range(draw(st.integers(0, 5))):
        rec = {"key": f"r{i}", "title": TITLES[i], "authors": ["Doe, Jane"], "first_author": "Doe, Jane",
               "affiliation": "U", "year": draw(st.integers(2000, 2025)), "venue": "arXiv", "url": f"https://arxiv.org/abs/2101.{i + 1:05d}",
               "identifiers": {"arxiv": f"2101.{i + 1:05d}"}, "one_liner": "one line", "notes": "", "date_added": "2026-01-01",
               "bibtex_key": f"r{i}", "bibtex": {"type": "misc", "title": TITLES[i]}, "provenance": {"source": "s"}}
        rec["bibtex"]["year"] = str(rec["year"])
        for name in retained:
            codes = list(fields[name]["values"])
            rec[name] = draw(st.lists(st.sampled_from(codes), unique=True, max_size=2)) if fields[name]["multi"] else pick(codes)
        files[f"corpus/papers/r{i}.yaml"] = yaml.safe_dump(rec, sort_keys=False).encode()
    for i in range(draw(st.integers(0, 2))):
        rec = {"record_id": f"E{i + 1:03d}", "screening_label": TITLES[9 - i], "identifiers": {"arxiv": f"2201.{i + 1:05d}"},
               "url": f"https://arxiv.org/abs/2201.{i + 1:05d}", "date_screened": "2026-01-01", "date_added": "2026-01-01",
               "exclusion_reason": "out of scope", "provenance": {"source": "s"}}
        for name, field in fields.items():
            if field["applies_to"] == "excluded":
                rec[name] = pick(list(field["values"]))
        files[f"exclusions/E{i + 1:03d}.yaml"] = yaml.safe_dump(rec, sort_keys=False).encode()
    return files


FUZZ = settings(max_examples=scaled(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(surveys())
def test_a_taxonomy_validate_accepts_builds_without_a_traceback(files):
    corpus = parse_tree(files)
    problems = validate(corpus)
    for problem in problems:
        text = str(problem)
        assert "\n" not in text and "Traceback" not in text, text
    if not problems:
        generated = generate(corpus, {}, check=True)  # every text report; figures compared, not drawn
        assert "reports/STATS.md" in generated.outputs and "README.md" in generated.outputs


@settings(max_examples=scaled(6), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(surveys())
def test_every_figure_of_an_accepted_taxonomy_is_drawn(files):
    corpus = parse_tree(files)
    if not validate(corpus):
        generated = generate(corpus, {})
        svgs = [path for path in generated.outputs if path.endswith(".svg") and "/site/" not in path]
        assert all(generated.outputs[path].startswith(b"<?xml") for path in svgs)


def test_the_generator_makes_accepted_surveys_too():
    """The fuzzer is worth its time only if validate accepts some of what it draws: among 2,000
    drawn surveys there is an accepted one with a chain figure (about one in a hundred is; the
    search stops at the first, and does not shrink it)."""
    from hypothesis import Phase

    class Found(Exception):
        def __init__(self, files):
            super().__init__("found")
            self.files = files

    @settings(max_examples=2000, deadline=None, database=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck),
              derandomize=True)  # the same draws on every run: the same time, and a failure that reproduces
    @given(surveys())
    def search(files):
        if b"kind: chain" in files["corpus/taxonomy.yaml"] and not validate(parse_tree(files)):
            raise Found(files)

    try:
        search()
    except Found as found:
        assert b"format_version: 2" in found.files["corpus/taxonomy.yaml"]
    else:
        raise AssertionError("no accepted survey with a chain figure among 2,000 drawn")
