"""Bad input to masrl audit: every problem named with file, line, column, value and what is allowed."""

from __future__ import annotations

import datetime

import copy
import hashlib

import pytest
import yaml
from masrl.core import clock

AUDIT = "tags-2026-06-01"


@pytest.fixture
def audited(survey, cli):
    assert cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "6", "--seed", "11",
               "--fields", "category,is_rl", "--date", "2026-06-01").code == 0
    return survey


def _import(cli, root, path, reader="Jane Doe", *extra):
    return cli("audit", "import", path, "--root", root, "--audit", AUDIT, "--reader", reader, *extra)


def test_every_bad_cell_is_reported_at_once(audited, cli, sheets, tmp_path):
    rows = sheets.filled(audited, AUDIT, {("S01", "category"): "rl-method", ("S02", "is_rl"): "Yes", ("S03", "is_rl"): ""})
    rows[4][0] = "S99"
    run = _import(cli, audited, sheets.write(tmp_path / "bad.csv", rows))
    assert run.code == 1
    path = tmp_path / "bad.csv"
    assert run.err.splitlines() == [
        f"{path}:2: category: S01: 'rl-method' is not an allowed value; allowed: rl_method, framework, benchmark, industry, "
        "classical_marl, survey (did you mean 'rl_method'?)",
        f"{path}:3: is_rl: S02: 'Yes' is not an allowed value; allowed: yes, partial, no (did you mean 'yes'?)",
        f"{path}:4: is_rl: S03: empty; choose one of yes, partial, no",
        f"{path}:5: item: 'S99' is not an item of the sample of {AUDIT}",
        f"{path}: item: the sheet lacks 1 item(s) of the sample: S04",
        "masrl: error: 5 errors in 1 file; nothing was imported (fix the sheet, then import it again)."]
    assert not (audited / f"corpus/audits/{AUDIT}/rounds").exists()


def test_a_terminal_control_in_a_note_a_reader_or_a_description_is_named_where_it_was_written(audited, cli, sheets, tmp_path):
    path = sheets.write(tmp_path / "noted.csv", sheets.filled(audited, AUDIT, notes={"S01": "bad\x1b[31m note"}))
    run = _import(cli, audited, path)
    assert run.err.splitlines() == [
        f"{path}:2: note: S01: contains a character that is invisible or changes how the text shows (U+001B ESCAPE, a "
        "control character); remove it",
        "masrl: error: 1 error in 1 file; nothing was imported (fix the sheet, then import it again)."]
    run = _import(cli, audited, sheets.write(tmp_path / "ok.csv", sheets.filled(audited, AUDIT)), "Jane\u202eDoe")
    assert run.code == 1 and run.err.startswith("masrl: error: --reader 'Jane\\u202eDoe' contains a character"), run.err
    run = cli("audit", "sample", "--root", audited, "--population", "retained", "--n", "2", "--seed", "1",
              "--description", "x\x1b[2J")
    assert run.code == 1 and "command line: --description: contains a character that is invisible" in run.err, run.err
    assert not (audited / f"corpus/audits/{AUDIT}/rounds").exists()


def test_columns_are_checked(audited, cli, sheets, tmp_path):
    rows = sheets.filled(audited, AUDIT)
    rows[0][rows[0].index("is_rl")] = "is-rl"
    rows[0].append("comments")
    for row in rows[1:]:
        row.append("")
    run = _import(cli, audited, sheets.write(tmp_path / "cols.csv", rows))
    assert run.code == 1
    assert f"{tmp_path / 'cols.csv'}:1: is-rl: unknown column; the sheet's columns are item, identifier, title, link, category, is_rl, note (did you mean 'is_rl'?) (write comments in the note column)" in run.err
    assert f"{tmp_path / 'cols.csv'}:1: comments: unknown column" in run.err
    assert f"{tmp_path / 'cols.csv'}:1: is_rl: column is missing" in run.err


def test_rows_must_be_the_sample(audited, cli, sheets, tmp_path):
    rows = sheets.filled(audited, AUDIT)
    rows.append(list(rows[1]))
    rows[2][1] = "arxiv:9999.99999"
    run = _import(cli, audited, sheets.write(tmp_path / "rows.csv", rows))
    assert run.code == 1
    assert ":3: identifier: S02 is " in run.err and "here: is this the sheet of another audit?" in run.err
    assert f"{tmp_path / 'rows.csv'}:8: item: S01 appears twice (also line 2)" in run.err


def test_blank_sheet_workbooks_and_encodings_are_refused_by_name(audited, cli, sheets, tmp_path):
    blank = audited / f"corpus/audits/{AUDIT}/sheet/sheet.csv"
    assert _import(cli, audited, blank).err.endswith(": no field is filled in: is this the blank sheet?\n"
                                                    "masrl: error: 1 error in 1 file; nothing was imported (fix the sheet, then import it again).\n")
    (tmp_path / "s.xls").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 50)
    assert "this is an Excel 97-2003 workbook (.xls); save the sheet as 'CSV UTF-8 (comma delimited)'" in _import(cli, audited, tmp_path / "s.xls").err
    (tmp_path / "s.xlsx").write_bytes(b"PK\x03\x04" + b"\0" * 50)
    assert "this is a zip archive (an .xlsx or .ods workbook?)" in _import(cli, audited, tmp_path / "s.xlsx").err
    rows = sheets.filled(audited, AUDIT, notes={"S01": "Müller's café"})
    run = _import(cli, audited, sheets.write(tmp_path / "latin.csv", rows, encoding="cp1252"))
    assert ": not UTF-8 (byte 0xfc); save the sheet as 'CSV UTF-8 (comma delimited)'" in run.err
    assert _import(cli, audited, tmp_path / "missing.csv").err == f"masrl: error: SHEET {tmp_path / 'missing.csv'}: no such file\n"


def test_rounds_are_never_overwritten(audited, cli, sheets, tmp_path):
    sheet = sheets.write(tmp_path / "ok.csv", sheets.filled(audited, AUDIT))
    assert _import(cli, audited, sheet).code == 0
    first = (audited / f"corpus/audits/{AUDIT}/rounds/round-1-jane-doe.yaml").read_bytes()
    run = _import(cli, audited, sheet)
    assert run.err == (f"masrl: error: Jane Doe already read round 1 (corpus/audits/{AUDIT}/rounds/round-1-jane-doe.yaml); "
                       "earlier rounds are never overwritten: import this sheet as a new round with --round 2\n")
    assert _import(cli, audited, sheet, "Jane Doe", "--round", "3").err == "masrl: error: --round 3: the next round is 2\n"
    # another reader whose name has the same letters and digits: told so, not that she read the round
    assert _import(cli, audited, sheet, "Jane Doé").err == (
        f"masrl: error: --reader 'Jane Doé': its reading would be corpus/audits/{AUDIT}/rounds/round-1-jane-doe.yaml, "
        "which holds the reading of 'Jane Doe': a reading's file is named by the letters and digits of its reader's "
        "name, so two readers of a round need names that differ in them (add an initial, e.g. 'Jane X. Doé'); nothing "
        "was imported\n")
    assert (audited / f"corpus/audits/{AUDIT}/rounds/round-1-jane-doe.yaml").read_bytes() == first
    assert "'original' is the corpus itself" in _import(cli, audited, sheet, "Original").err
    for column in ("Resolved", "by"):  # a reader is a column of the table of disagreements, beside these
        assert "names a column of the table of disagreements (item, record, field, resolved, by)" in \
            _import(cli, audited, sheet, column).err
    assert _import(cli, audited, sheet, "Jane Doe", "--round", "2").code == 0
    assert _import(cli, audited, sheet, "Li Wei").code == 0  # a second reader of round 2
    assert (audited / f"corpus/audits/{AUDIT}/rounds/round-1-jane-doe.yaml").read_bytes() == first
    run = cli("audit", "show", AUDIT, "--root", audited)
    assert "Round 1 — readers: original, Jane Doe." in run.out and "Round 2 — readers: original, Jane Doe, Li Wei." in run.out
    assert "| category | 6 | 6 | 1.000 [not estimable] | 1.000 [not estimable] |" in run.out  # Fleiss' κ, three readers
    assert "| field | items | agree | observed [95% CI] | Fleiss' κ [95% CI] |" in run.out


def test_screening_cells_follow_the_decision(survey, cli, sheets, tmp_path):
    assert cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "3", "--seed", "1", "--id", "s").code == 0
    rows = sheets.filled(survey, "s", {("S01", "decision"): "include", ("S02", "stage"): ""})
    run = cli("audit", "import", sheets.write(tmp_path / "s.csv", rows), "--root", survey, "--audit", "s", "--reader", "R")
    assert run.code == 1
    lines = run.err.splitlines()
    assert lines[0].endswith(":2: stage: S01: '" + rows[1][5] + "' given, but only an exclusion has a stage; leave it empty when the decision is not exclude")
    assert lines[1].endswith(":2: reason_class: S01: '" + rows[1][6] + "' given, but only an exclusion has a reason_class; leave it empty when the decision is not exclude")
    assert lines[2].endswith(":3: stage: S02: empty; choose one of abstract_screen, full_text_screen, artifact_screen, duplicate_screen (the decision is exclude)")


def test_sample_options_are_checked(survey, cli):
    before = [p.name for p in (survey / "corpus/audits").iterdir()]
    run = cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "0", "--seed", "1",
              "--fields", "categry,subdecisions,domain", "--stratify", "stage")
    assert run.code == 1
    allowed = ("category, is_rl, reward_type, credit_granularity, credit_mechanism, orchestration_form, scenario, is_core, "
               "verified, inclusion_criterion")
    assert run.err.splitlines() == [
        f"command line: --fields: 'categry' cannot be audited for the retained population; allowed: {allowed} (did you mean "
        "'category'?)",
        f"command line: --fields: 'subdecisions' cannot be audited for the retained population; allowed: {allowed}",
        # a field only some records carry (required_when): a sample of the others had nothing to read
        "command line: --fields: 'domain' cannot be audited for the retained population (it applies only to the records its "
        f"required_when names: a reader of the others would have no value to give); allowed: {allowed}",
        "command line: --stratify: 'stage' is not a field of the retained records; allowed: category, is_rl, reward_type, "
        "credit_granularity, credit_mechanism, orchestration_form, scenario, is_core, verified, inclusion_criterion",
        "command line: --n: 0 items: the sample needs at least one",
        "masrl: error: 5 errors in the command line; nothing was sampled."]
    run = cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "40", "--seed", "1")
    assert run.err == "masrl: error: --n 40 but the excluded population has 32 records\n"
    assert cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "2", "--seed", "1", "--id", "x").code == 0
    run = cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "2", "--seed", "1", "--id", "x")
    assert run.err == "masrl: error: audit 'x' exists already; choose another id with --id (e.g. --id x-b)\n"
    # run 42: --audit, as audit import names the audit, was answered "did you mean --quiet?"
    run = cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "2", "--seed", "1", "--audit", "x")
    assert run.err == "masrl: error: audit 'x' exists already; choose another id with --id (e.g. --id x-b)\n"
    run = cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "2", "--seed", "1", "--id", "spotcheck-2026-05-03")
    assert run.err == "masrl: error: audit 'spotcheck-2026-05-03' exists already; choose another id with --id (e.g. --id spotcheck-2026-05-03-b)\n"
    default = f"tags-{clock.today().isoformat()}"  # the id of an audit sampled today without --id
    dry = ("--root", survey, "--population", "retained", "--n", "2", "--seed", "1", "--dry-run")
    if (survey / "corpus/audits" / default).exists():  # this tree was audited today already
        run = cli("audit", "sample", *dry)
        assert run.err == f"masrl: error: audit '{default}' exists already; choose another id with --id (e.g. --id {default}-b)\n"
        dry += ("--id", f"{default}-b")
        default += "-b"
    run = cli("audit", "sample", *dry)
    assert run.code == 0 and run.out.startswith(f"dry run: audit {default} would sample 2 record(s): ")
    assert not (survey / "corpus/audits" / default).exists()
    assert sorted(p.name for p in (survey / "corpus/audits").iterdir()) == sorted([*before, "x"])


def test_audit_commands_name_unknown_and_published_audits(survey, cli):
    audits = sorted(p.name.removesuffix(".yaml") for p in (survey / "corpus/audits").iterdir())  # the audits of this tree
    assert cli("audit", "import", survey / "README.md", "--root", survey, "--audit", "spotcheck-2026-05-3", "--reader", "R").err == (
        "masrl: error: no audit 'spotcheck-2026-05-3' under corpus/audits/ (did you mean 'spotcheck-2026-05-03'?); "
        f"audits: {', '.join(audits)}\n")
    assert cli("audit", "adjudicate", "spotcheck-2026-05-03", "--root", survey).err == (
        "masrl: error: corpus/audits/spotcheck-2026-05-03.yaml is a single-file audit in the survey's earlier format; its "
        "round is published and takes no new sheets (start a new audit with masrl audit sample)\n")


def test_folder_files_are_validated(audited, cli, sheets, tmp_path):
    folder = audited / f"corpus/audits/{AUDIT}"
    assert _import(cli, audited, sheets.write(tmp_path / "ok.csv", sheets.filled(audited, AUDIT, {("S01", "is_rl"): "partial"
                                                                                                    if sheets.sample(audited, AUDIT)["items"][0]["original"]["is_rl"] != "partial" else "no"}))).code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", audited).code == 0
    adjudication = folder / "adjudication-round-1.yaml"
    data = yaml.safe_load(adjudication.read_text())
    data["resolutions"][0].update(resolved="maybe")
    data["resolutions"].append(copy.deepcopy(dict(data["resolutions"][0], item="S02")))
    data["resolutions"].append(copy.deepcopy(dict(data["resolutions"][0], item="S03", resolved=["yes", "no"])))  # wrong shape
    adjudication.write_text(yaml.safe_dump(data, sort_keys=False))
    audit_file = folder / "audit.yaml"
    audit_file.write_text(audit_file.read_text().replace("record: ", "record: x", 1))
    round_file = folder / "rounds/round-1-jane-doe.yaml"
    round_file.write_text(round_file.read_text().replace("category: ", "category: Survey-", 1))
    (folder / "notes.yaml").write_text("a: 1\n")
    run = cli("validate", "--root", audited)
    assert run.code == 1
    rel = f"corpus/audits/{AUDIT}"
    assert f"{rel}/notes.yaml:1: unexpected file in an audit folder; expected audit.yaml, adjudication-round-<n>.yaml and rounds/round-<n>-<reader>.yaml" in run.err
    assert f"{rel}/audit.yaml:" in run.err and "items[0].record: names record 'x" in run.err
    audit_file.write_text(audit_file.read_text().replace("record: x", "record: ", 1))
    run = cli("validate", "--root", audited)
    assert "rounds/round-1-jane-doe.yaml:" in run.err and ": rows[0].values.category: 'Survey-" in run.err
    round_file.write_text(round_file.read_text().replace("category: Survey-", "category: ", 1))
    run = cli("validate", "--root", audited)
    assert run.err.splitlines()[:3] == [
        f"{rel}/adjudication-round-1.yaml:10: resolutions[0].resolved: 'maybe' is not an allowed value of is_rl; allowed: yes, partial, no",
        f"{rel}/adjudication-round-1.yaml:11: resolutions[0].by: say who resolved it (a name)",
        f"{rel}/adjudication-round-1.yaml:14: resolutions[1]: S02 is_rl is not a disagreement of round 1"]
    assert any(x.startswith(f"{rel}/adjudication-round-1.yaml:") and "resolutions[2].resolved: expected a string or null, got "
               "the list ['yes', 'no']" in x for x in run.err.splitlines()), run.err  # in the same run as the others


def test_an_empty_by_leaves_the_entrys_future_date_named_in_the_same_run(audited, cli, sheets, tmp_path):
    """Run 40: by: '' (a form problem) hid the same entry's date in the future until by was filled in."""
    folder = audited / f"corpus/audits/{AUDIT}"
    original = sheets.sample(audited, AUDIT)["items"][0]["original"]["is_rl"]
    given = next(v for v in ("yes", "partial", "no") if v != original)
    assert _import(cli, audited, sheets.write(tmp_path / "ok.csv", sheets.filled(audited, AUDIT, {("S01", "is_rl"): given}))).code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", audited).code == 0
    adjudication = folder / "adjudication-round-1.yaml"
    data = yaml.safe_load(adjudication.read_text())
    data["resolutions"][0].update(resolved=given, by="", date=datetime.date(2099, 12, 1))
    adjudication.write_text(yaml.safe_dump(data, sort_keys=False))
    run = cli("validate", "--root", audited)
    problems = [line.split(": ", 1)[1] for line in run.err.splitlines() if "adjudication-round-1.yaml:" in line]
    assert "resolutions[0].by: must not be empty" in problems, run.err
    assert any(p.startswith("resolutions[0].date: 2099-12-01 is in the future") for p in problems), run.err


def test_a_reading_changed_after_its_adjudication_is_named(audited, cli, sheets, tmp_path):
    """The adjudication resolved the values the readers gave; a reading edited afterwards leaves it resolving a
    disagreement no reader has now: validate names the entry, with the values of both."""
    folder = audited / f"corpus/audits/{AUDIT}"
    original = sheets.sample(audited, AUDIT)["items"][0]["original"]["is_rl"]
    given, later = [v for v in ("yes", "partial", "no") if v != original][:2]
    assert _import(cli, audited, sheets.write(tmp_path / "ok.csv", sheets.filled(audited, AUDIT, {("S01", "is_rl"): given}))).code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", audited).code == 0
    adjudication = folder / "adjudication-round-1.yaml"
    data = yaml.safe_load(adjudication.read_text())
    data["resolutions"][0].update(resolved=given, by="Ada")
    adjudication.write_text(yaml.safe_dump(data, sort_keys=False))
    assert cli("validate", "--root", audited).code == 0
    (reading,) = (folder / "rounds").glob("round-1-*.yaml")
    rows = yaml.safe_load(reading.read_text())
    rows["rows"][0]["values"]["is_rl"] = later
    reading.write_text(yaml.safe_dump(rows, sort_keys=False))
    run = cli("validate", "--root", audited)
    assert run.code == 1
    resolution = data["resolutions"][0]
    said = ", ".join(f"{r}: {v!r}" for r, v in resolution["values"].items())
    now = ", ".join(f"{r}: {(later if v == given else v)!r}" for r, v in resolution["values"].items())
    assert [line.split(": ", 1)[1] for line in run.err.splitlines() if "adjudication-round-1.yaml" in line] == [
        f"resolutions[0].values: S01 is_rl: the readings of round 1 now say {now}, not {said} as this "
        "entry resolved: a reading changed after the adjudication; restore it, or adjudicate the disagreement again "
        "(give these values and resolve it anew)"]


def test_an_audit_dated_in_the_future_or_resolved_before_it_was_drawn_is_refused(audited, cli, sheets, tmp_path):
    """The suite's clock is 2027-01-15 (MASRL_TODAY): no date of an audit after it, none before the sample's."""
    folder = audited / f"corpus/audits/{AUDIT}"
    drawn = str(yaml.safe_load((folder / "audit.yaml").read_text())["date"])
    run = cli("audit", "sample", "--root", audited, "--population", "retained", "--n", "2", "--seed", "1", "--date", "2027-02-01")
    assert run.code == 1 and "audit.yaml:3: date: 2027-02-01 is in the future (today is 2027-01-15)" in run.err, run.err
    assert _import(cli, audited, sheets.write(tmp_path / "ok.csv", sheets.filled(audited, AUDIT, {("S01", "is_rl"): "partial"
                                                                                                    if sheets.sample(audited, AUDIT)["items"][0]["original"]["is_rl"] != "partial" else "no"}))).code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", audited).code == 0
    adjudication = folder / "adjudication-round-1.yaml"
    data = yaml.safe_load(adjudication.read_text())
    for date in ("2099-01-01", "2000-01-01"):
        data["resolutions"][0].update(resolved="yes", by="Ada", date=date)
        adjudication.write_text(yaml.safe_dump(data, sort_keys=False))
        run = cli("validate", "--root", audited)
        said = "is in the future (today is 2027-01-15)" if date > drawn else f"is before the audit was drawn ({drawn}, audit.yaml)"
        assert run.code == 1 and f"resolutions[0].date: {date} {said}" in run.err, run.err
    for date, said in (("15/12/2026", "is not a date written YYYY-MM-DD"), ("2026-02-30", "is not a real date (YYYY-MM-DD)")):
        data["resolutions"][0].update(date=date)  # a date or nothing (null): what the date must be, not the schema's words
        adjudication.write_text(yaml.safe_dump(data, sort_keys=False))
        run = cli("validate", "--root", audited)
        assert run.code == 1 and f"resolutions[0].date: '{date}' {said}" in run.err, run.err


def test_apply_refuses_conflicts_and_hand_formatted_records(audited, cli, sheets, tmp_path, set_field):
    sample = sheets.sample(audited, AUDIT)
    first = sample["items"][0]
    other = next(v for v in ("yes", "partial", "no") if v != first["original"]["is_rl"])
    third = next(v for v in ("yes", "partial", "no") if v not in (other, first["original"]["is_rl"]))
    rows = sheets.filled(audited, AUDIT, {("S01", "is_rl"): other})
    assert _import(cli, audited, sheets.write(tmp_path / "a.csv", rows)).code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", audited).code == 0
    path = audited / f"corpus/audits/{AUDIT}/adjudication-round-1.yaml"
    data = yaml.safe_load(path.read_text())
    data["resolutions"][0].update(resolved=other, by="Ada")
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    record = audited / f"corpus/papers/{first['record']}.yaml"
    original = record.read_text()
    set_field(record, "is_rl", f"'{third}'")  # retagged by hand after the sample was drawn
    run = cli("audit", "apply", AUDIT, "--root", audited, "--yes")
    assert run.code == 1
    assert (f"corpus/audits/{AUDIT}/adjudication-round-1.yaml: resolutions[0]: {first['record']} is_rl is '{third}' now but was "
            f"'{first['original']['is_rl']}' in the sample; resolved '{other}' would overwrite a later edit: edit the record by hand") in run.err
    record.write_text("# checked by hand\n" + original)
    run = cli("audit", "apply", AUDIT, "--root", audited, "--yes")
    first_line = original.splitlines()[0]
    assert run.err.startswith(f"corpus/papers/{first['record']}.yaml:1: reads '# checked by hand' where masrl writes "
                              f"{first_line!r}: this hand formatting (or a comment) would be lost by rewriting the file. "
                              "Write the line as masrl does (then apply again), or make the audit's edit by hand\n")
    assert record.read_text() == "# checked by hand\n" + original


def test_the_report_tells_the_audits_own_edits_from_later_ones(audited, cli, sheets, tmp_path, set_field):
    """After `audit apply` the record holds the adjudicated value: the report lists it as applied, not as an edit
    made since the sample; a value edited by hand afterwards is listed as such."""
    first = sheets.sample(audited, AUDIT)["items"][0]
    was = first["original"]["is_rl"]
    other, third = [v for v in ("yes", "partial", "no") if v != was][:2]
    assert _import(cli, audited, sheets.write(tmp_path / "a.csv", sheets.filled(audited, AUDIT, {("S01", "is_rl"): other}))).code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", audited).code == 0
    path = audited / f"corpus/audits/{AUDIT}/adjudication-round-1.yaml"
    data = yaml.safe_load(path.read_text())
    data["resolutions"][0].update(resolved=other, by="Ada")
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert cli("audit", "apply", AUDIT, "--root", audited, "--yes").code == 0
    shown = cli("audit", "show", AUDIT, "--root", audited).out
    assert f"Adjudicated values applied to the records: {first['record']} is_rl {was} → {other}." in shown, shown
    assert "Audited values changed in the records since the sample, apart from the adjudication: none." in shown, shown
    set_field(audited / f"corpus/papers/{first['record']}.yaml", "is_rl", f"'{third}'")  # retagged by hand since
    shown = cli("audit", "show", AUDIT, "--root", audited).out
    assert f"Audited values changed in the records since the sample: {first['record']} is_rl {was} → {third}." in shown, shown


def test_the_published_spot_check_is_read_as_round_one(published_tree, cli):
    run = cli("audit", "show", "spotcheck-2026-05-03", "--root", published_tree)
    assert run.code == 0
    assert "Round 1 — readers: original, second reader." in run.out
    assert ("| credit_granularity | 32 | 31 | 0.969 [0.843, 0.994] | 0.959 [0.881, 1.000] | 0.965 [0.898, 1.000] | "
            "0.965 [0.823, 0.994] |") in run.out
    assert "| halo | halo | credit_granularity | role | orchestrator | not adjudicated |  |" in run.out
    for field in ("category", "is_rl", "reward_type", "orchestration_form"):
        assert f"| {field} | 32 | 32 | 1.000 [0.893, 1.000] | 1.000 [not estimable] | 1.000 [not estimable] |" in run.out


def test_audit_folders_are_read_without_their_sheets(audited, cli):
    from masrl.corpus.load import load

    corpus = load(audited)
    others = sorted(f"{p.relative_to(audited).as_posix()}" for p in (audited / "corpus/audits").glob("*/**/*.yaml")
                    if not p.is_relative_to(audited / f"corpus/audits/{AUDIT}"))  # the tree's audits before this one
    assert sorted(corpus.audit_files) == sorted([f"corpus/audits/{AUDIT}/audit.yaml", *others])
    assert list(corpus.audits) == ["corpus/audits/spotcheck-2026-05-03.yaml"]
    (audited / f"corpus/audits/{AUDIT}/.audit.yaml.swp").write_text("x")
    (audited / "corpus/audits/notes.txt").write_text("x")
    run = cli("validate", "--root", audited)
    assert run.err.splitlines()[0] == ("corpus/audits/notes.txt: not a record file: records are regular files named "
                                       "<key>.yaml (not .yml, not a folder or a symlink)")
    assert len(run.err.splitlines()) == 2


def test_sheet_cells_are_never_formulas_and_trailing_empty_columns_are_fine(audited, cli, sheets, tmp_path):
    from masrl.audits.sheet import sheet_csv

    data = sheet_csv([("S01", "arxiv:2605.02801", "=HYPERLINK(\"http://x\")", "-1+1")], ["category"]).decode("utf-8")
    assert data == "\ufeffitem,identifier,title,link,category,note\r\nS01,arxiv:2605.02801,\"'=HYPERLINK(\"\"http://x\"\")\",'-1+1,,\r\n"
    rows = [row + ["", ""] for row in sheets.filled(audited, AUDIT)]  # what Excel saves after a stray click
    assert _import(cli, audited, sheets.write(tmp_path / "wide.csv", rows)).code == 0


def test_reader_names_become_file_names_and_sampling_is_hamilton():
    from masrl.audits.model import parse_round_file, reader_slug, round_file
    from masrl.audits.sample import allocate, item_labels

    assert reader_slug("Jörg  Müller") == "jorg-muller"
    assert reader_slug("李伟") == "reader-" + hashlib.sha256("李伟".encode()).hexdigest()[:8]
    assert reader_slug("王芳") != reader_slug("李伟")
    assert round_file("a", 2, "Jörg Müller") == "corpus/audits/a/rounds/round-2-jorg-muller.yaml"
    assert parse_round_file("corpus/audits/a/rounds/round-12-li-wei.yaml") == (12, "li-wei")
    assert parse_round_file("corpus/audits/a/rounds/round-x.yaml") is None
    assert allocate({"rl_method": 42, "framework": 3, "benchmark": 18, "industry": 6, "classical_marl": 10, "survey": 5}, 12) == {
        "rl_method": 6, "framework": 0, "benchmark": 3, "industry": 1, "classical_marl": 1, "survey": 1}
    assert allocate({"a": 1, "b": 1, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}  # ties: vocabulary order
    with pytest.raises(ValueError, match="n = 4 but the population has 3 records"):
        allocate({"a": 3}, 4)
    assert item_labels(3) == ["S01", "S02", "S03"] and item_labels(100)[-1] == "S100"


def test_a_reading_is_judged_beside_a_wrong_sample_date_and_a_malformed_row(audited, cli, sheets, tmp_path):
    """A future date of the sample, a row of the wrong shape and a value outside the vocabulary: one run names all three."""
    assert _import(cli, audited, sheets.write(tmp_path / "ok.csv", sheets.filled(audited, AUDIT))).code == 0
    folder = audited / f"corpus/audits/{AUDIT}"
    sample = folder / "audit.yaml"
    sample.write_text(sample.read_text().replace(f"date: '{AUDIT[5:]}'", "date: '2099-01-01'", 1))
    reading = folder / "rounds/round-1-jane-doe.yaml"
    data = yaml.safe_load(reading.read_text())
    data["rows"][1]["values"]["category"] = "rl_methd"
    data["rows"].append("oops")
    reading.write_text(yaml.safe_dump(data, sort_keys=False))
    lines = cli("validate", "--root", audited).err.splitlines()
    rel = f"corpus/audits/{AUDIT}"
    assert any(x.startswith(f"{rel}/audit.yaml:") and x.endswith("date: 2099-01-01 is in the future (today is 2027-01-15)")
               for x in lines), lines
    assert any(x.startswith(f"{rel}/rounds/round-1-jane-doe.yaml:") and "rows[1].values.category: 'rl_methd' is not an allowed "
               "value of category" in x for x in lines), lines
    assert any(x.startswith(f"{rel}/rounds/round-1-jane-doe.yaml:") and x.endswith(
        f"rows[{len(data['rows']) - 1}]: expected a mapping, got the string 'oops'") for x in lines), lines


def test_a_malformed_item_of_the_sample_hides_no_other_items_problem(audited, cli):
    sample = audited / f"corpus/audits/{AUDIT}/audit.yaml"
    data = yaml.safe_load(sample.read_text())
    data["items"][1]["record"] = "nosuchrecord"
    data["items"].insert(0, 99)
    sample.write_text(yaml.safe_dump(data, sort_keys=False))
    lines = cli("validate", "--root", audited).err.splitlines()
    rel = f"corpus/audits/{AUDIT}/audit.yaml"
    assert any(x.startswith(rel) and x.endswith("items[0]: expected a mapping, got the integer 99") for x in lines), lines
    assert any(x.startswith(rel) and "items[2].record: names record 'nosuchrecord', which is neither retained nor excluded"
               in x for x in lines), lines


def test_a_resolution_that_needs_another_field_changed_is_applied_after_a_hand_edit_of_both(survey, cli, sheets, tmp_path):
    """credit_mechanism is NA exactly when credit_granularity is: a disagreement on credit_granularity resolved NA ->
    role cannot be applied alone (the record would not validate), and apply says how: edit both by hand, then apply
    again, which counts the value the record holds as applied."""
    audit = "granularity"
    assert cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "20", "--seed", "3", "--id", audit,
               "--fields", "credit_granularity", "--date", "2026-06-01").code == 0
    item = next(i for i in sheets.sample(survey, audit)["items"] if i["original"]["credit_granularity"] == "NA")
    rows = sheets.filled(survey, audit, {(item["item"], "credit_granularity"): "role"})
    run = cli("audit", "import", sheets.write(tmp_path / "s.csv", rows), "--root", survey, "--audit", audit,
              "--reader", "Jane Doe")
    assert run.code == 0, run.err
    assert cli("audit", "adjudicate", audit, "--root", survey).code == 0
    adjudication = survey / f"corpus/audits/{audit}/adjudication-round-1.yaml"
    data = yaml.safe_load(adjudication.read_text())
    data["resolutions"][0].update(resolved="role", by="Ada")
    adjudication.write_text(yaml.safe_dump(data, sort_keys=False))
    run = cli("audit", "apply", audit, "--root", survey, "--yes")
    record = survey / f"corpus/papers/{item['record']}.yaml"
    assert run.code == 1 and "credit_mechanism: 'NA' but credit_granularity is 'role'" in run.err, run.err
    assert (f"edit that record by hand (named above), both fields at once, with a tag_provenance line for the field "
            f"('audit {audit} round 1: adjudicated by ...'), then run `masrl audit apply` again: a value the record "
            "already holds counts as applied.") in run.err
    assert f"corpus/papers/{item['record']}.yaml" in run.err.split("nothing was applied")[0]  # the record is named
    text = record.read_text()
    record.write_text(text.replace("credit_granularity: NA", "credit_granularity: role", 1)
                      .replace("credit_mechanism: NA", "credit_mechanism: unassessed", 1))
    assert cli("validate", "--root", survey).code == 0
    run = cli("audit", "apply", audit, "--root", survey, "--yes")
    assert run.code == 0, run.err


def test_an_items_identifier_is_its_records_not_another_papers(audited, cli, sheets):
    """A reader's row is matched to its item by the identifier: an item given another record's identifier (or text
    that is no identifier) would store one paper's reading as another's."""
    audit_file = audited / f"corpus/audits/{AUDIT}/audit.yaml"
    items = sheets.sample(audited, AUDIT)["items"]
    first, second = items[0], items[1]
    assert first["identifier"] and second["identifier"] and first["identifier"] != second["identifier"]
    text = audit_file.read_text()
    lines = text.splitlines()
    at = [k for k, line in enumerate(lines) if line.strip().startswith("identifier:")]
    lines[at[0]] = lines[at[0]].split("identifier:")[0] + f"identifier: {second['identifier']}"
    lines[at[1]] = lines[at[1]].split("identifier:")[0] + "identifier: 'doi:not a doi'"
    audit_file.write_text("\n".join(lines) + "\n")
    found = [line for line in cli("validate", "--root", audited).err.splitlines() if "identifier:" in line]
    assert found == [
        f"corpus/audits/{AUDIT}/audit.yaml:{at[0] + 1}: items[0].identifier: {second['identifier']!r} is the identifier of "
        f"record {second['record']!r}, not of {first['record']!r}: a reader's row is matched to its item by it; give the "
        "item its record's identifier",
        f"corpus/audits/{AUDIT}/audit.yaml:{at[1] + 1}: items[1].identifier: 'doi:not a doi' is not an identifier: 'not a "
        "doi' is not a valid DOI: expected a DOI 10.<registrant>/<suffix>, doi:10…, or a https://doi.org/ URL"]


def test_what_a_sample_says_of_its_drawing_is_what_it_holds(survey, cli):
    """The sampling block is published in the audit report: its n, and each stratum's value and counts, are checked
    against the items."""
    assert cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "4", "--seed", "7", "--id", "s",
               "--stratify", "category", "--fields", "category,is_rl", "--date", "2026-06-01").code == 0
    path = survey / "corpus/audits/s/audit.yaml"
    data = yaml.safe_load(path.read_text())
    first = data["sampling"]["strata"][0]
    text = path.read_text().replace("  n: 4\n", "  n: 40\n", 1).replace(f"  - value: {first['value']}\n", "  - value: nonsense\n", 1)
    path.write_text(text)
    found = sorted(line.split(": ", 1)[1] for line in cli("validate", "--root", survey).err.splitlines()
                   if line.startswith("corpus/audits/s/audit.yaml:"))
    assert found == sorted([
        "sampling.n: says 40 but the sample has 4 item(s)",
        "sampling.strata: the strata's sampled add up to 4, not n (40)",
        "sampling.strata[0].value: 'nonsense' is not a value of category; allowed: rl_method, framework, benchmark, "
        "industry, classical_marl, survey",
        *([f"sampling.strata[0].sampled: says {first['sampled']} but 0 item(s) are of the stratum 'nonsense'"]
          if first["sampled"] else [])])


def test_an_audit_older_than_two_releases_of_one_day_takes_the_vocabulary_of_the_first_of_them():
    from masrl.audits.fields import released_vocabulary

    def snapshot(day, values):
        return {"date": day, "taxonomy": {"fields": {"kind": {"values": {v: v for v in values}}}}}

    snapshots = {"v10": snapshot("2026-12-09", ["c"]), "v3": snapshot("2026-12-09", ["b"]),
                 "v2": snapshot("2026-12-09", ["a", "b"]), "v1": snapshot("2026-05-01", ["z"])}
    assert released_vocabulary(snapshots, ["kind"], "2026-05-03") == {"kind": ["a", "b"]}
    assert released_vocabulary(snapshots, ["kind"], "2026-12-10") == {}


@pytest.mark.parametrize("seed", ["-3", "1e3", "9007199254740992", "99999999999999999999999999", "٣"])
def test_a_seed_no_json_reader_reads_exactly_or_no_whole_number_is_refused(survey, seed):
    from grow import run_captured

    run = run_captured("audit", "sample", "--root", survey, "--population", "retained", "--n", "2", "--seed", seed, "--dry-run")
    assert run.code == 2 and run.err.splitlines()[-1].endswith(
        f"argument --seed: {seed!r} is not a whole number from 0 to 9007199254740991")


def test_a_seed_edited_past_what_json_readers_read_exactly_is_refused(audited, cli):
    path = audited / f"corpus/audits/{AUDIT}/audit.yaml"
    assert cli("audit", "sample", "--root", audited, "--population", "retained", "--n", "2", "--seed", "9007199254740991",
               "--id", "largest", "--dry-run").code == 0
    text = path.read_text()
    assert "seed: 11\n" in text
    path.write_text(text.replace("seed: 11\n", "seed: 9007199254740993\n"))
    run = cli("validate", "--root", audited)
    assert run.code == 1 and "sampling.seed: 9007199254740993 is " in run.err, run.err


def test_a_field_only_some_records_carry_is_no_stratum_of_all_of_them(survey, cli):
    """`domain` belongs to benchmarks only (its required_when): the other records would be in no stratum, and the
    audit written would name a stratum of no value."""
    run = cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "5", "--seed", "1",
              "--stratify", "domain", "--fields", "category")
    assert run.code == 1 and run.err.splitlines()[0].startswith(
        "command line: --stratify: 'domain' is a field only the records its required_when names carry: the others would "
        "be in no stratum; allowed: category, ")
    assert not [p for p in (survey / "corpus/audits").iterdir() if p.name.startswith("tags-")]


def test_an_adjudication_entry_out_of_form_has_its_resolved_value_judged_in_the_same_run(audited, cli, sheets, tmp_path):
    """A date that is no date (the entry's form) and a resolved value out of the vocabulary: both in one run."""
    first = sheets.sample(audited, AUDIT)["items"][0]["original"]["is_rl"]
    filled = sheets.filled(audited, AUDIT, {("S01", "is_rl"): "partial" if first != "partial" else "no"})
    assert _import(cli, audited, sheets.write(tmp_path / "ok.csv", filled)).code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", audited).code == 0
    adjudication = audited / f"corpus/audits/{AUDIT}/adjudication-round-1.yaml"
    data = yaml.safe_load(adjudication.read_text())
    data["resolutions"][0].update(resolved="Maybe", by="Ada Lovelace", date="2026-02-30")
    adjudication.write_text(yaml.safe_dump(data, sort_keys=False))
    run = cli("validate", "--root", audited)
    assert run.code == 1
    fields = [line.split(": ")[1] for line in run.err.splitlines() if line.startswith(f"corpus/audits/{AUDIT}/adjudication")]
    assert sorted(fields) == ["resolutions[0].date", "resolutions[0].resolved"], run.err
    assert "'Maybe' is not an allowed value of is_rl; allowed: yes, partial, no" in run.err
