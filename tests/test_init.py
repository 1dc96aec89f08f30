"""``masrl init DIR``: a new survey that validates and builds at once, and refuses what it must."""

from __future__ import annotations

import pytest
import yaml


def test_a_new_survey_validates_builds_and_has_no_protocol_yet(tmp_path, cli):
    root = tmp_path / "survey"
    run = cli("init", str(root), "--title", "Credit assignment in MARL: a survey")
    assert run.code == 0, run.err
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        ".gitattributes", "README.md", "corpus/claims.yaml", "corpus/papers/.gitkeep", "corpus/protocol.yaml", "corpus/taxonomy.yaml",
        "exclusions/.gitkeep"]
    assert (root / ".gitattributes").read_text().splitlines()[-1] == "/reports/** merge=binary linguist-generated=true"
    taxonomy = yaml.safe_load((root / "corpus/taxonomy.yaml").read_text(encoding="utf-8"))
    assert taxonomy["survey"]["title"] == "Credit assignment in MARL: a survey"
    assert taxonomy["format_version"] == 2
    check = cli("validate", "--root", str(root))
    assert check.code == 0, check.err
    assert check.out.strip() == "ok: 0 retained and 0 excluded records, taxonomy, claim ledger and 0 audit(s) are valid"
    built = cli("build", "--root", str(root))
    assert built.code == 0, built.err
    assert (root / "reports/STATS.md").is_file() and (root / "reports/site/index.html").is_file()
    assert cli("build", "--root", str(root), "--check").code == 0
    # the protocol is a placeholder of comments: no protocol yet, said as such (no network is touched)
    search = cli("update", "search", "--root", str(root))
    assert search.code == 1
    assert search.err.strip() == ("masrl: error: no search protocol in corpus/protocol.yaml (the file is absent, or a "
                                  "placeholder of comments only): update rounds search the protocol's query families; "
                                  "write them there (the manual's reference, 'Search protocol and update rounds', lists "
                                  "every key)")


def test_init_never_overwrites_and_refuses_bad_titles(tmp_path, cli):
    root = tmp_path / "survey"
    assert cli("init", str(root)).code == 0
    before = (root / "corpus/taxonomy.yaml").read_bytes()
    again = cli("init", str(root), "--title", "Another")
    assert again.code == 1
    assert again.err.strip() == (f"masrl: error: {root} already holds a survey (corpus/taxonomy.yaml); "
                                 "masrl init never overwrites one")
    assert (root / "corpus/taxonomy.yaml").read_bytes() == before
    for title, why in [("", "--title: the title is empty; give the survey's title"),
                       ("   ", "--title: the title is empty; give the survey's title"),
                       ("two\nlines", "--title: give the survey's title on one line"),
                       ("TODO", "--title:"),
                       ("evil\u202etitle", "--title: 'evil\\u202etitle' contains a character that is invisible")]:
        run = cli("init", str(tmp_path / "other"), "--title", title)
        assert run.code == 1, title
        assert run.err.strip().startswith(f"masrl: error: {why}"), run.err
        assert not (tmp_path / "other").exists()


def test_init_refuses_a_folder_name_no_system_or_terminal_holds(tmp_path, cli):
    for name, why in [("a\x01b", "DIR: 'a\\x01b' contains a character that is invisible or changes how the text shows "
                                 "(U+0001 CONTROL, a control character); remove it"),
                      ("CON", "DIR: 'CON' is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or "
                              "without an extension); choose another")]:
        run = cli("init", str(tmp_path / name))
        assert run.code == 1
        assert run.err.strip() == f"masrl: error: {why}"
        assert not (tmp_path / name).exists()


@pytest.mark.parametrize("args", [["init", ""], ["init", "  "], ["validate", "--root", ""], ["build", "--root="]])
def test_an_empty_folder_name_is_refused_not_read_as_here(tmp_path, cli, monkeypatch, capsys, args):
    """`masrl init "$DIR"` with DIR unset wrote a survey into the current folder."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:  # a usage mistake, as argparse's own
        cli(*args)
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.splitlines()[-1].endswith(
        "is empty: name a folder or a file (an unset shell variable gives an empty one)"), err
    assert list(tmp_path.iterdir()) == []


def test_a_release_of_records_that_leave_an_optional_field_out_validates_and_builds(tmp_path, cli):
    """A field declared ``required: false`` that one record leaves out: the release masrl freezes holds the record
    as it is, and its own validate accepts the snapshot (it had called the field missing in the frozen record)."""
    from masrl.core.clock import today_iso

    root = tmp_path / "survey"
    assert cli("init", str(root), "--title", "Optional fields").code == 0
    path = root / "corpus/taxonomy.yaml"
    taxonomy = yaml.safe_load(path.read_text(encoding="utf-8"))
    value = {"label": "journal", "definition": "d", "source": "s"}
    taxonomy["fields"]["venue_kind"] = {"applies_to": "retained", "required": False, "label": "Venue kind",
                                        "definition": "d", "source": "s", "values": {"journal": value}}
    taxonomy["gap_analysis"]["left_out"]["venue_kind"] = "not a gap axis"
    path.write_text(yaml.safe_dump(taxonomy, sort_keys=False), encoding="utf-8")
    for i in (1, 2):
        key, title = f"p{i}", f"Paper {i} on topic {'q' * i}"
        record = {"key": key, "title": title, "authors": ["Doe, Jane"], "first_author": "Doe, Jane", "affiliation": "unknown",
                  "year": 2024, "venue": "arXiv", "url": f"https://arxiv.org/abs/2401.1000{i}",
                  "identifiers": {"arxiv": f"2401.1000{i}"}, "method": "learned", "evaluation": [], "one_liner": "x",
                  "notes": "", "date_added": today_iso(), "tag_provenance": {}, "bibtex_key": key,
                  "bibtex": {"type": "misc", "title": title, "year": "2024"}, "provenance": {"source": "hand"},
                  **({"venue_kind": "journal"} if i == 1 else {})}
        (root / f"corpus/papers/{key}.yaml").write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")
    assert cli("validate", "--root", str(root)).code == 0
    run = cli("release", "v1", "--root", str(root), "--date", today_iso())
    assert run.code == 0, run.err
    check = cli("validate", "--root", str(root))
    assert check.code == 0, check.err
    assert cli("build", "--root", str(root)).code == 0 and cli("build", "--root", str(root), "--check").code == 0


def test_exclude_fills_a_list_field_of_excluded_records_by_repeating_its_option(tmp_path, cli):
    """A field ``found_via`` (multi) of excluded records: ``--found-via web --found-via db`` writes the list (a value
    had been written as a string, which masrl's own validate then refused); a value twice or outside the
    vocabulary is named."""
    root = tmp_path / "survey"
    assert cli("init", str(root), "--title", "List fields").code == 0
    path = root / "corpus/taxonomy.yaml"
    taxonomy = yaml.safe_load(path.read_text(encoding="utf-8"))
    values = {code: {"label": code, "definition": "d", "source": "s"} for code in ("web", "db")}
    taxonomy["fields"]["found_via"] = {"applies_to": "excluded", "multi": True, "label": "Found via", "definition": "d",
                                       "source": "s", "values": values}
    path.write_text(yaml.safe_dump(taxonomy, sort_keys=False), encoding="utf-8")
    base = ["exclude", "--root", str(root), "--title", "Some screened paper about widgets", "--arxiv", "2401.01234",
            "--year", "2024", "--author", "Doe, Jane", "--reason", "off topic"]
    run = cli(*base, "--found-via", "web", "--found-via", "web", "--found-via", "dbx")
    assert run.code == 1 and not list((root / "exclusions").glob("*.yaml"))
    assert "command line: --found-via: 'dbx' is not in the vocabulary; allowed: web, db" in run.err
    assert "command line: --found-via: web, web, dbx: a value is given twice; give each once" in run.err
    run = cli(*base, "--found-via", "web", "--found-via", "db")
    assert run.code == 0, run.err
    (record,) = (root / "exclusions").glob("*.yaml")
    assert yaml.safe_load(record.read_text(encoding="utf-8"))["found_via"] == ["web", "db"]
    assert cli("validate", "--root", str(root)).code == 0


def test_every_problem_of_a_claim_is_named_in_one_run_its_statement_with_its_form(tmp_path, cli):
    """A claim whose check is out of form still has its statement judged, and every stray brace of the statement is
    named: fixing one never brings the next."""
    root = tmp_path / "s"
    assert cli("init", str(root), "--title", "T").code == 0
    with open(root / "corpus/claims.yaml", "a", encoding="utf-8") as handle:
        handle.write("  - id: pct\n    statement: \"share {p!r} and {p:x} and {p.__class__} and {q} and {p!r} and {{q}}\"\n"
                     "    evidence_boundary: b\n    source: s\n    status: current\n    scope: pool\n    checks:\n"
                     "      - {id: p, label: l, where: {evaluation: user_study}, max_percent: 50}\n"
                     "      - {id: q, label: l2, where: {evaluation: user_study}, max_percent: 0.5}\n")
    run = cli("validate", "--root", root)
    fields = [line.split(": ", 2)[1:] for line in run.err.splitlines()[:-1]]
    assert run.code == 1 and [f for f, _ in fields] == ["claims[1].statement"] * 4 + ["claims[1].checks[1].max_percent"], run.err
    assert [m.split(" is not a placeholder")[0] for _, m in fields[:4]] == ["'{p!r}'", "'{p.__class__}'", "'{p:x}'",
                                                                             "'{{q}}'"], run.err  # as written, not '{}'


def test_a_stray_brace_of_a_figure_note_is_named_as_written(tmp_path, cli):
    """Run 33: a figure note '{{retained}}' was refused as "'{}' is not a placeholder", a text the author never wrote."""
    root = tmp_path / "s"
    assert cli("init", str(root), "--title", "T").code == 0
    taxonomy = root / "corpus/taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8")
    taxonomy.write_text(text.replace('notes: ["n = {retained}, one method each; none left out."]',
                                     'notes: ["n = {{retained}}, {nn} and {{n}"]'), encoding="utf-8")
    run = cli("validate", "--root", root)
    assert run.code == 1
    assert sorted(line.split(" is not a placeholder")[0].rsplit(": ", 1)[1] for line in run.err.splitlines()
                  if "is not a placeholder" in line) == ["'{nn}'", "'{{n}'", "'{{retained}}'"], run.err


def test_a_landing_page_of_a_scheme_the_survey_declares_is_that_id(tmp_path, cli):
    """Run 35: a survey declaring pmid with a resolver took https://pubmed.ncbi.nlm.nih.gov/12345678/ as a plain link:
    the paper a record holds as pmid 12345678 was added again, and validate said ok."""
    root = tmp_path / "s"
    assert cli("init", str(root), "--title", "T").code == 0
    taxonomy = root / "corpus/taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8")
    taxonomy.write_text(text.replace("  url: {label: landing-page URLs", '  pmid: {label: PubMed id, definition: a PubMed '
                                     'id, pattern: "[0-9]{1,9}", resolver: "https://pubmed.ncbi.nlm.nih.gov/{id}/"}\n'
                                     "  url: {label: landing-page URLs", 1), encoding="utf-8")
    first = cli("add", "--root", root, "--no-fetch", "--url", "https://pubmed.ncbi.nlm.nih.gov/12345678", "--title",
                "Agents in the Clinic", "--author", "Roe, Ann", "--year", "2020")
    assert first.code == 0, first.err
    (path,) = (root / "corpus/papers").glob("*.yaml")
    assert "identifiers:\n  pmid: '12345678'\n" in path.read_text(encoding="utf-8")
    again = cli("add", "--root", root, "--no-fetch", "--url", "https://pubmed.ncbi.nlm.nih.gov/12345678/", "--title",
                "Different title entirely", "--author", "Poe, A.", "--year", "2020")
    assert again.code == 1 and "same pmid 12345678" in again.err, again.err
    path.write_text(path.read_text(encoding="utf-8").replace("identifiers:\n  pmid: '12345678'\n", "identifiers:\n  url:\n"
                    "    - http://pubmed.ncbi.nlm.nih.gov/12345678/\n"), encoding="utf-8")
    checked = cli("validate", "--root", root)
    assert ("'http://pubmed.ncbi.nlm.nih.gov/12345678/' is the landing page of pmid id '12345678'; write it as pmid: "
            "'12345678'") in checked.err, checked.err


@pytest.mark.parametrize(("macro", "why"), [
    ("begin", "LaTeX and its classes define most names in lower case"), ("small", "define most names in lower case"),
    ("endorsedShare", "refuses any that begins with 'end'"), ("LaTeX", "is a command of LaTeX already"),
    ("Large", "is a command of LaTeX already"), ("Gamma", "is a command of LaTeX already"),
])
def test_a_claims_macro_that_latex_defines_is_refused(tmp_path, cli, macro, why):
    """Runs 36 and 37: macro: begin (then small, endorsedShare) passed validate and build; reports/tex/numbers.tex then
    held \\newcommand{\\begin}{6}, which stopped every document that input it ("Command \\begin already defined")."""
    root = tmp_path / "s"
    assert cli("init", str(root), "--title", "T").code == 0
    with open(root / "corpus/claims.yaml", "a", encoding="utf-8") as handle:
        handle.write("  - id: c1\n    statement: \"{s} of the records are learned.\"\n    evidence_boundary: x\n"
                     "    source: y\n    status: current\n    scope: pool\n    checks:\n"
                     f"      - {{id: s, label: L, where: {{method: learned}}, count: 0, macro: '{macro}'}}\n")
    run = cli("validate", "--root", root)
    assert run.code == 1 and f"claims[1].checks[0].macro: '{macro}'" in run.err and why in run.err, run.err
