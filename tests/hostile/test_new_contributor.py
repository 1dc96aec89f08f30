"""What a new contributor found. The Atom feed keeps what was added across
releases and names itself; `update apply` shows every problem of a sheet in one run; a round
searched after a release on the day of its cutoff is counted in the next update; a mistyped
command, option, choice or name is answered with what it could have been."""

from __future__ import annotations

import feedparser
import pytest
import yaml

import second_survey
from hostile_surveys import candidate, edit_record, soil, write_round  # noqa: F401 (fixtures)
from masrl.build.generate import generate
from masrl.build.pipeline import build
from masrl.corpus.load import load, parse_tree, read_tree


@pytest.fixture(autouse=True)
def today(monkeypatch):
    monkeypatch.setenv("MASRL_TODAY", "2026-06-30")


# ---------------------------------------------------------------------------- the feed
def _feed(root):
    """The Atom feed ``masrl build`` would write for the survey at ``root`` (the reports made in
    memory, as ``masrl build --check`` makes them: no figure is drawn)."""
    outputs = generate(parse_tree(read_tree(root)), {}, check=True).outputs
    feed = feedparser.parse(outputs["reports/site/feed.xml"])
    assert not feed.bozo and feed.version == "atom10"
    return feed


def test_a_release_keeps_the_feeds_entries_and_the_feed_links_itself(soil, cli):
    assert cli("release", "--root", soil, "r1", "--date", "2026-02-01").code == 0
    second_survey.add_late_record(soil)  # silva2025, added 2026-03-01
    pending = _feed(soil)
    assert [e.title for e in pending.entries] == ["Mid-infrared spectroscopy across arid and temperate farms"]
    assert pending.entries[0].summary.endswith("Pending: enters the next release.")
    assert cli("release", "--root", soil, "r2", "--date", "2026-04-01").code == 0
    released = _feed(soil)
    assert [e.title for e in released.entries] == ["Mid-infrared spectroscopy across arid and temperate farms"]
    assert released.entries[0].id == pending.entries[0].id  # the same entry: a reader shows it once
    assert released.entries[0].summary.endswith("In release r2 (2026-04-01).")
    assert released.feed.updated == "2026-04-01T00:00:00Z"
    links = {link.rel: link.href for link in released.feed.links}
    assert links["self"] == "feed.xml" and links["alternate"] == "https://example.org/soil-carbon-survey"
    # where the site is published, the feed names its own address
    tax = soil / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text(encoding="utf-8").replace(
        "  data_licence: CC-BY-4.0\n", "  data_licence: CC-BY-4.0\n  site_url: https://soil.example.org/catalogue/\n"),
        encoding="utf-8")
    published = _feed(soil)
    links = {link.rel: link.href for link in published.feed.links}
    assert links == {"self": "https://soil.example.org/catalogue/feed.xml",
                     "alternate": "https://soil.example.org/catalogue/index.html"}
    # a survey not on arXiv: its ids are made of where its site is, else of its title (never one id for every survey)
    assert (published.feed.id, published.entries[0].id) == ("https://soil.example.org/catalogue/#masrl-new-records",
                                                            "https://soil.example.org/catalogue/#record-silva2025")
    assert pending.feed.id.startswith("urn:masrl:survey:") and pending.entries[0].id.endswith("#record-silva2025")
    title = tax.read_text(encoding="utf-8").split("\n  title: ", 1)[1].split("\n", 1)[0]
    tax.write_text(tax.read_text(encoding="utf-8").replace(f"\n  title: {title}\n", "\n  title: Another survey\n", 1)
                   .replace("  site_url: https://soil.example.org/catalogue/\n", ""), encoding="utf-8")
    other = _feed(soil)
    assert other.feed.id.startswith("urn:masrl:survey:") and other.feed.id != pending.feed.id


def test_the_feed_holds_the_newest_fifty_additions(soil, cli, edit_record):
    assert cli("release", "--root", soil, "r1", "--date", "2026-02-01").code == 0
    for i in range(60):
        rec = second_survey.record(f"late{i:02d}", f"Late soil carbon study number {i}", 100 + i, region=["arid"],
                                   date_added=f"2026-03-{1 + i % 28:02d}")
        (soil / f"corpus/papers/late{i:02d}.yaml").write_text(yaml.safe_dump(rec, sort_keys=False), encoding="utf-8")
    assert cli("validate", "--root", soil).code == 0
    entries = _feed(soil).entries
    assert len(entries) == 50
    days = [e.published for e in entries]
    # days 1-4 of March hold three records each and days 5-28 two: the newest 50 end with two of March 4
    assert days == sorted(days, reverse=True) and days[-1] == "2026-03-04T00:00:00Z" and days.count(days[-1]) == 2


# ---------------------------------------------------------------------------- update apply
def test_apply_names_every_problem_of_the_sheet_in_one_run(soil, cli):
    write_round(soil, "2026-05-31", [
        candidate(1, decision="exlude", stage="nope", reason_class="W9"),     # a misspelt decision and its cells
        candidate(2, decision="include", authors=""),                          # an include without authors
        candidate(3, decision="exclude", stage="title_screen", reason_class="W1"),  # an exclusion without a reason
        candidate(4, decision="", stage="full_read"),                          # a stage without a decision
        candidate(5, decision="include"),                                      # fine
    ])
    run = cli("update", "apply", "--root", soil, "2026-05-31")
    assert run.code == 1
    queue = "corpus/rounds/2026-05-31/queue.csv"
    assert [line.split(": ", 2)[:2] for line in run.err.splitlines()[:-1]] == [
        [f"{queue}:2", "decision"], [f"{queue}:2", "reason"], [f"{queue}:2", "reason_class"], [f"{queue}:2", "stage"],
        [f"{queue}:3", "authors"], [f"{queue}:4", "reason"], [f"{queue}:5", "decision"]]
    assert "'nope' is not in the vocabulary; allowed: title_screen, full_read" in run.err
    assert run.err.splitlines()[-1] == "masrl: error: 7 errors in 1 file; nothing was applied."
    assert not (soil / "corpus/papers/doe2026.yaml").exists()


# ---------------------------------------------------------------------------- rounds and releases
def _flow(results) -> dict:
    """The PRISMA flow table of one population's results: row -> its count, as text."""
    frame = results.table("prisma_flow").frame
    return {str(row): str(value) for row, value in zip(frame.index, frame.iloc[:, 0])}


def test_a_round_searched_after_a_release_on_its_cutoff_day_counts_in_the_next_update(soil, cli):
    tax = soil / "corpus/taxonomy.yaml"  # the exclusions of a round say nothing of the database searched
    tax.write_text(tax.read_text(encoding="utf-8").replace("type: text, required: true, label: Database",
                                                           "type: text, required: false, label: Database"), encoding="utf-8")
    write_round(soil, "2026-06-30", [candidate(1, decision="exclude", stage="title_screen", reason_class="W1",
                                                reason="off topic")],
                since="2026-05-04", until="2026-06-30", finished="2026-06-30T08:00:00Z")
    assert cli("update", "apply", "--root", soil, "2026-06-30").code == 0
    assert cli("release", "--root", soil, "r1", "--date", "2026-06-30").code == 0
    frozen = yaml.safe_load((soil / "corpus/releases/r1.yaml").read_text(encoding="utf-8"))
    assert frozen["identification"]["rounds"] == ["2026-06-30"]  # the first release covers the round before it
    # the same day, after the release: a search of the window from its cutoff to today
    write_round(soil, "2026-06-30-2", [candidate(2, decision="exclude", stage="full_read", reason_class="W2",
                                                  reason="measures nothing"), candidate(3)],
                since="2026-06-30", until="2026-06-30", finished="2026-06-30T15:00:00Z")
    assert cli("update", "apply", "--root", soil, "2026-06-30-2").code == 0
    flow = _flow(build(load(soil)).pool)
    assert flow["records identified from arXiv (update rounds)"] == "2"
    assert flow["awaiting a screening decision"] == "1"
    assert flow["excluded at full reading"] == "1"
    refused = cli("release", "--root", soil, "r2", "--date", "2026-06-30")
    assert refused.code == 1
    assert "1 candidate(s) of the update rounds since the last release are not decided" in refused.err
    assert cli("release", "--root", soil, "r2", "--date", "2026-06-30", "--allow-undecided").code == 0
    frozen = yaml.safe_load((soil / "corpus/releases/r2.yaml").read_text(encoding="utf-8"))
    assert frozen["identification"]["rounds"] == ["2026-06-30-2"]
    assert frozen["identification"]["identified_by_source"] == {"arXiv": 2}
    result = build(load(soil))
    assert _flow(result.releases[-1])["records identified from arXiv (update rounds)"] == "2"
    assert _flow(result.pool) == _flow(result.releases[-1])  # nothing since r2: its own flow, the round counted once


# ---------------------------------------------------------------------------- did you mean
@pytest.mark.parametrize("args, message", [
    (["biuld"], "argument COMMAND: invalid choice: 'biuld' (did you mean 'build'?) (choose from init, validate, build,"),
    (["build", "--chek"], "unrecognized arguments: --chek (did you mean '--check'?)"),
    (["update", "serch"], "argument STEP: invalid choice: 'serch' (did you mean 'search'?)"),
    (["trace", "convert", "--from", "otl", "x.json"], "argument --from: invalid choice: 'otl' (did you mean 'otel'?)"),
    (["audit", "sample", "--population", "retained", "--n", "3", "--seed", "1", "--stratfy", "scale"],
     "unrecognized arguments: --stratfy (did you mean '--stratify'?) scale"),
    (["validate", "--verbsoe"], "unrecognized arguments: --verbsoe (did you mean '--verbose'?)"),
    # an option given after '--' is an argument there: never "did you mean" the same option
    (["build", "--", "--check"], "unrecognized arguments: -- --check (an option, but after '--' every word is an argument: put "
                                 "it before '--')"),
    # a mistyped option was hidden behind the word after it
    # a prefix of an option is no option: `trace convert --format FILE` listed the formats and ignored FILE
    (["trace", "convert", "--format", "x.json"], "unrecognized arguments: --format (did you mean '--formats'?)"),
    # a prefix of one option names it (options are written whole)
    (["update", "search", "--max", "3"], "unrecognized arguments: --max (did you mean '--max-records'?) 3"),
    (["audit", "sample", "--pop", "retained", "--n", "2"], "unrecognized option --pop (did you mean '--population'?)"),
    (["--roott", ".", "validate"], "unrecognized option --roott (did you mean '--root'?); argument COMMAND: invalid choice: '.'"),
])
def test_a_mistyped_command_or_option_is_answered_with_the_closest(capsys, args, message):
    from masrl.cli import main

    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 2
    assert f"masrl: error: {message}" in capsys.readouterr().err


def test_a_mistyped_option_is_named_before_what_argparse_finds_missing(soil, capsys):
    """`masrl exclude ... --reson-class X1` said only "the following arguments are required: ..., --reason-class"."""
    from masrl.cli import main

    with pytest.raises(SystemExit) as done:
        main(["exclude", "--root", str(soil), "--title", "T", "--arxiv", "2501.00002", "--author", "Doe, J", "--year",
              "2025", "--phsae", "X1"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and "masrl: error: unrecognized option --phsae (did you mean '--phase'?); the following " \
                                    "arguments are required: " in err, err


@pytest.mark.parametrize("args, message", [
    (["audit", "show", "nosuch"], "no audit 'nosuch' under corpus/audits/; start one with masrl audit sample"),
    (["update", "show", "nosuch"], "no round 'nosuch' under corpus/rounds/; start one with masrl update search"),
    (["suggest", "smith2091"], "no retained record has the key 'smith2091' (did you mean 'smith2019'?)"),
])
def test_a_name_that_names_nothing_is_answered_with_what_exists(soil, cli, args, message):
    run = cli(args[0], "--root", soil, *args[1:])
    assert run.code == 1
    assert f"masrl: error: {message}" in run.err, run.err


def test_an_audit_id_is_answered_with_the_audits_there_are(soil, cli):
    assert cli("audit", "sample", "--root", soil, "--population", "retained", "--n", "3", "--seed", "1",
               "--id", "tags-2026-06-30").code == 0
    for args in (["show", "nosuch"], ["adjudicate", "nosuch"], ["apply", "nosuch"]):
        run = cli("audit", args[0], "--root", soil, *args[1:])
        assert run.code == 1 and "no audit 'nosuch' under corpus/audits/; audits: tags-2026-06-30" in run.err, run.err
    close = cli("audit", "show", "--root", soil, "tags-2026-06-03")
    assert "(did you mean 'tags-2026-06-30'?)" in close.err
