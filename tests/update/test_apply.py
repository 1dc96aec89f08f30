"""masrl update show|apply, the PRISMA flow of an updated review from the rounds, release's refusal
of undecided candidates, the round checks, and the Atom feed of new records."""

from __future__ import annotations

import csv
import re
import shutil

import feedparser
import pytest
import responses
import yaml

from grow import PAPERS, run_captured, set_field
from servers import ArxivServer, arxiv_server, clock, endpoint, fake_clock, round_survey, round_survey_tree  # noqa: F401
from trees import copy_tree, made_once
from masrl.core.clock import today_iso

WINDOW = ("--since", "2026-05-04", "--until", "2026-06-30")


def fill(path, decisions: dict) -> None:
    """Write the screener's cells of ``queue.csv``: identifier -> {column: value}."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row.update(decisions.get(row["identifier"].split("; ")[0], {}))  # named by its first id
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def edit_lines(sheet, edit) -> list[str]:
    """Write ``edit(lines)`` over the lines of the sheet ``sheet``, as an editor would; its lines before."""
    lines = sheet.read_text(encoding="utf-8").splitlines()
    sheet.write_text("\n".join(edit(list(lines))) + "\n", encoding="utf-8")
    return lines


def as_found(folder) -> None:
    """Record the queue's rows as the ones the search found (``found_sha256`` of round.yaml), as a source that
    gave their cells would have written it."""
    from masrl.corpus.rounds import found_digest, read_csv

    meta = folder / "round.yaml"
    queue = folder / "queue.csv"
    digest = found_digest(read_csv(queue.read_bytes(), "queue.csv")[1])
    text = meta.read_text(encoding="utf-8")
    meta.write_text(re.sub(r"(\n  queue\.csv: )[0-9a-f]{64}", rf"\g<1>{digest}", text), encoding="utf-8")


def count_line(folder, name: str) -> int:
    """The line of ``counts.<name>`` (a total) in the round's round.yaml."""
    lines = (folder / "round.yaml").read_text(encoding="utf-8").splitlines()
    start = lines.index("counts:")
    return next(k for k, line in enumerate(lines[start:], start + 1) if line.startswith(f"  {name}:"))


def refused_alike(cli, root, folder, expected: list[str]) -> list[str]:
    """``masrl validate`` and ``masrl update apply`` both exit 1 naming exactly ``expected``; their outputs."""
    said = []
    for run in (cli("validate", "--root", root), cli("update", "apply", "--root", root, folder.name)):
        assert run.code == 1 and run.err.splitlines()[:-1] == expected, run.err
        said += [run.out, run.err]
    return said


def search_once(root, *args: str):
    """``masrl update search --root ROOT ARGS`` against a fresh arXiv server with a fake clock,
    outside any test (for session fixtures). Returns the run (``code``, ``out``, ``err``)."""
    with pytest.MonkeyPatch.context() as patch, responses.RequestsMock(assert_all_requests_are_fired=False) as mock, \
            endpoint(mock, patch, ArxivServer(), "MASRL_ARXIV_API", "/api/query"):
        fake_clock(patch)
        return run_captured("update", "search", "--root", root, *args)


@pytest.fixture(scope="session")
def searched_tree(round_survey_tree, request):
    """``round_survey_tree`` after one search round of the arXiv server (once per tree and run:
    :func:`trees.made_once`). Read-only."""
    def make(root):
        copy_tree(round_survey_tree, root)
        run = search_once(root, *WINDOW, "--source", "arxiv")
        assert run.code == 0, run.err

    return made_once(request.config, f"searched-{round_survey_tree.parent.name}", make)


@pytest.fixture
def searched(searched_tree, tmp_path, clock, arxiv_server):
    """A copy of the survey after one search round, and the round's folder (the fake clock and the
    arXiv server stay up for the test)."""
    root = copy_tree(searched_tree, tmp_path / "survey")
    (folder,) = (root / "corpus" / "rounds").iterdir()
    return root, folder


EXCLUDE = {"decision": "exclude", "stage": "abstract_screen", "reason_class": "X2", "reason": "single-agent RL only"}


def test_show_prints_the_ranked_queue_and_what_is_left(searched, cli):
    root, folder = searched
    run = cli("update", "show", "--root", root, folder.name)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert lines[1].split()[:4] == ["1", "arxiv:2605.10002", "2026-06-01", "-"]
    assert lines[-1] == (f"round {folder.name} (2026-05-04 .. 2026-06-30): 3 candidates; 3 still to decide, 0 decided but "
                         f"not applied (`masrl update apply {folder.name}`), 0 applied; 4 duplicates in duplicates.csv")
    unknown = cli("update", "show", "--root", root, "2026-01-01")
    assert unknown.code == 1 and unknown.err.startswith("masrl: error: no round '2026-01-01' under corpus/rounds/")



def test_show_names_what_is_wrong_with_a_damaged_sheet_as_validate_does(searched, cli):
    root, folder = searched
    queue = folder / "queue.csv"
    lines = queue.read_text().splitlines()
    queue.write_text("\n".join(lines[:-1]) + "\n")  # a candidate deleted by hand
    run = cli("update", "show", "--root", root, folder.name)
    assert run.code == 0 and run.out.splitlines()[-1].startswith(f"round {folder.name} (2026-05-04 .. 2026-06-30): 2 candidates")
    assert (f"corpus/rounds/{folder.name}/round.yaml:{count_line(folder, 'queued')}: counts.queued: says 3 but queue.csv has 2 row(s)") in run.err
    assert run.err.rstrip().endswith("the table above shows the files as they are; fix them before `masrl update apply`.")


@pytest.mark.parametrize(("edit", "named"), [
    (lambda meta: meta.update(window=5), "window: expected a mapping, got the integer 5"),
    (lambda meta: meta.update(window=[1]), "window: expected a mapping"),
    (lambda meta: meta.update(counts=7), "counts: expected a mapping, got the integer 7"),
    (lambda meta: meta["counts"].update(by_source=3), "counts.by_source: expected a mapping, got the integer 3"),
    (lambda meta: meta.update(sources=3), "sources: expected a list"),
    (lambda meta: meta["sources"][0].update(queries={"x": 1}), "sources[0].queries: expected a list")])
def test_show_of_a_round_whose_round_yaml_is_out_of_form_names_it_as_validate_does(searched, cli, edit, named):
    """The table is counted from round.yaml: one that is out of its form is named, file, line and field, and nothing is
    shown (a damaged sheet is shown as it is: above)."""
    root, folder = searched
    meta = yaml.safe_load((folder / "round.yaml").read_text())
    edit(meta)
    (folder / "round.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    run = cli("update", "show", "--root", root, folder.name)
    assert run.code == 1 and run.out == "" and "Traceback" not in run.err
    assert f"corpus/rounds/{folder.name}/round.yaml:" in run.err and named in run.err
    assert run.err.rstrip().endswith(f"round {folder.name}'s queue is not shown until they are fixed.")
    validate = cli("validate", "--root", root)
    assert validate.code == 1 and named in validate.err


@pytest.mark.parametrize(("stamps", "named"), [
    ({"started": "2026-19-45T99:99:99Z"}, "started: '2026-19-45T99:99:99Z' is not a real UTC time (YYYY-MM-DDTHH:MM:SSZ"),
    ({"started": "2026-02-30T10:00:00Z"}, "started: '2026-02-30T10:00:00Z' is not a real UTC time"),
    ({"finished": "2001-01-01T00:00:00Z"}, "finished: 2001-01-01T00:00:00Z is before started "),
    ({"finished": "2099-01-01T00:00:00Z"}, "finished: 2099-01-01T00:00:00Z is after today ("),
    ({"sent": "2001-01-01T00:00:00Z"}, "sources[0].queries[0].sent: 2001-01-01T00:00:00Z is not between started "),
    ({"sent": "2026-13-01T00:00:00Z"}, "sources[0].queries[0].sent: '2026-13-01T00:00:00Z' is not a real UTC time")])
def test_a_round_time_that_is_no_time_or_out_of_order_or_to_come_is_refused(searched, cli, stamps, named):
    root, folder = searched
    meta = yaml.safe_load((folder / "round.yaml").read_text())
    assert cli("validate", "--root", root).code == 0
    meta.update({k: v for k, v in stamps.items() if k != "sent"})
    if "sent" in stamps:
        meta["sources"][0]["queries"][0]["sent"] = stamps["sent"]
    (folder / "round.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
    run = cli("validate", "--root", root)
    assert run.code == 1 and f"corpus/rounds/{folder.name}/round.yaml:" in run.err and named in run.err, run.err


def test_show_counts_a_decision_that_is_neither_include_nor_exclude_apart(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "maybe: ask Ada next week"}, "arxiv:2605.10002": EXCLUDE})
    run = cli("update", "show", "--root", root, folder.name)
    table = run.out.splitlines()[:4]
    at = table[0].index("title")  # the title column starts where its heading does, after the longest decision
    assert [line[at - 2:at] for line in table] == ["  "] * 4 and " " not in [line[at] for line in table]
    assert "maybe: ask Ada next week" in "".join(table)
    assert run.code == 0 and run.out.splitlines()[-1] == (
        f"round {folder.name} (2026-05-04 .. 2026-06-30): 3 candidates; 1 still to decide, 1 decided but not applied "
        f"(`masrl update apply {folder.name}`), 1 with a decision that is neither include nor exclude (`masrl validate` "
        "names them), 0 applied; 4 duplicates in duplicates.csv")
    assert run.err.splitlines()[0] == (f"corpus/rounds/{folder.name}/queue.csv:4: decision: 'maybe: ask Ada next week' is not a decision; "
                                       "write include or exclude (or leave it empty)")


def test_exclusions_past_e999_are_named_and_listed_in_the_order_of_their_numbers(searched, cli):
    """Record ids run on past E999: each row is told the file it became, and the log lists E998, E999, E1000, E1001
    in that order (as text, E1000 would come before E999)."""
    root, folder = searched
    last = max((root / "exclusions").glob("E*.yaml"), key=lambda p: int(p.stem[1:]))
    (root / "exclusions/E998.yaml").write_text(last.read_text().replace(f"record_id: {last.stem}", "record_id: E998"))
    last.unlink()
    fill(folder / "queue.csv", {ident: EXCLUDE for ident in ("arxiv:2606.00007", "arxiv:2605.10002", "arxiv:2605.10001")})
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 0, run.err
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    told = [line for line in run.out.splitlines() if " -> created " in line]
    assert [line.split(" -> created ")[1] for line in told] == ["exclusions/E999.yaml", "exclusions/E1000.yaml",
                                                                  "exclusions/E1001.yaml"]
    for line in told:  # each file is the row it is told for
        row, rel = line.split(": exclude -> created ")
        assert yaml.safe_load((root / rel).read_text())["provenance"]["source"].endswith(f"({row})"), line
    assert cli("build", "--root", root, "--no-figures").code == 0
    log = (root / "reports/exclusions.md").read_text()
    assert log.index("E998") < log.index("E999") < log.index("E1000") < log.index("E1001")


def test_apply_turns_an_include_and_an_exclude_into_records_and_the_build_shows_the_round(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include"}, "arxiv:2605.10002": EXCLUDE})
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 0, run.err
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    assert run.out.splitlines()[:3] == [f"{queue}:2: exclude -> created exclusions/E034.yaml",
                                        f"{queue}:4: include -> created corpus/papers/dijkstra2026.yaml",
                                        f"round {folder.name}: 2 record(s) created, 0 row(s) applied before, 1 still to decide"]
    stub = yaml.safe_load((root / "corpus/papers/dijkstra2026.yaml").read_text())
    assert (stub["title"], stub["authors"], stub["identifiers"], stub["category"]) == (
        "Routing and Aggregation in Agent Teams", ["Dijkstra, Edsger W."], {"arxiv": "2606.00007"}, "untagged")
    assert stub["abstract"] == "Learned routing and aggregation for an orchestrator of LLM agents."
    assert stub["provenance"]["source"] == f"masrl update apply {folder.name} ({queue}:4)"
    excl = yaml.safe_load((root / "exclusions/E034.yaml").read_text())
    assert {k: excl[k] for k in ("screening_label", "source", "query_family", "stage", "reason_class", "exclusion_reason")} == {
        "screening_label": "Role Rewards for Multi-Agent LLM Post-Training", "source": "arXiv",
        "query_family": "multi-agent LLM", "stage": "abstract_screen", "reason_class": "X2",
        "exclusion_reason": "single-agent RL only"}
    again = cli("update", "apply", "--root", root, folder.name)
    assert again.code == 0 and again.out.splitlines()[0] == (f"round {folder.name}: 0 record(s) created, 2 row(s) applied "
                                                              "before, 1 still to decide")
    for field, value in PAPERS[0]["tags"].items():
        set_field(root / "corpus/papers/dijkstra2026.yaml", field, value)
    assert cli("validate", "--root", root).code == 0
    build = cli("build", "--root", root)
    assert build.code == 0, build.err
    table = (root / "reports/tables/prisma_flow.csv").read_text().splitlines()
    rows = {line.split(",")[0]: line.split(",")[1] for line in table[1:]}
    assert rows["records identified from arXiv (update rounds)"] == "7"
    assert rows["duplicates removed before screening"] == "4"
    assert rows["records identified by other methods (added by hand)"] == "2"  # turing2026 and E033, added by hand
    assert rows["records to screen"] == "5"
    assert rows["awaiting a screening decision"] == "1"
    assert rows["new records with a screening decision"] == "4"
    assert rows["excluded at abstract screen"] == "2"
    assert rows["new records included"] == "2"
    svg = (root / "reports/figures/prisma_flow.svg").read_text()
    for text in ("Records identified via databases and", "registers (n = 7)", "arXiv (update rounds): 7",
                 "Records identified via other methods", "added by hand: 2",
                 "Duplicates removed before screening", "Awaiting a screening decision"):
        assert text in svg.replace("\u00a0", " "), text
    feed = feedparser.parse((root / "reports/site/feed.xml").read_bytes())
    assert not feed.bozo and feed.version == "atom10"
    assert [e.title for e in feed.entries] == ["Routing and Aggregation in Agent Teams", "An Old Title of a Retained Paper"]
    assert feed.entries[0].link == "https://arxiv.org/abs/2606.00007"
    assert feed.entries[0].id == "https://arxiv.org/abs/2605.02801#record-dijkstra2026"
    assert '<link rel="alternate" type="application/atom+xml" title="New records (Atom feed)" href="feed.xml">' in \
        (root / "reports/site/index.html").read_text()


def test_an_author_written_first_last_in_the_sheet_is_stored_as_masrl_add_stores_it(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include", "authors": "Robert W. Heath Jr.; Dijkstra, Edsger W."}})
    as_found(folder)  # as a source that wrote these names would have queued them
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 0, run.err
    assert run.err.splitlines() == [
        f"warning: corpus/rounds/{folder.name}/queue.csv:4: authors: 'Robert W. Heath Jr.' is not written \"Last, First\"; "
        "it is stored as 'Heath, Jr., Robert W.' (an organisation goes in braces: '{Robert W. Heath Jr.}')"]
    stub = yaml.safe_load((root / "corpus/papers/heath2026.yaml").read_text())
    assert stub["authors"] == ["Heath, Jr., Robert W.", "Dijkstra, Edsger W."]


def test_searching_again_changes_no_count_of_the_flow(searched, cli, clock, arxiv_server):
    root, folder = searched
    assert cli("build", "--root", root, "--no-figures").code == 0
    before = (root / "reports/tables/prisma_flow.csv").read_text()
    again = cli("update", "search", "--root", root, *WINDOW, "--source", "arxiv")
    assert again.code == 0, again.err
    assert ", 0 queued" in again.out
    assert cli("build", "--root", root, "--no-figures").code == 0
    table = (root / "reports/tables/prisma_flow.csv").read_text()
    assert table == before  # every record the second round found, the first had found: counted once
    rows = {line.split(",")[0]: line.split(",")[1] for line in table.splitlines()[1:]}
    assert rows["records identified from arXiv (update rounds)"] == "7"
    assert rows["duplicates removed before screening"] == "4"
    md = (root / "reports/tables/prisma_flow.md").read_text()
    assert "7 record(s) that a later round found again are counted once, where they were first identified" in md


def test_release_refuses_undecided_candidates_unless_allowed_and_then_names_them(searched, cli):
    root, folder = searched
    today = today_iso()
    assert cli("build", "--root", root, "--no-figures").code == 0
    run = cli("release", "v2", "--root", root, "--date", today)
    assert run.code == 1
    assert run.err.splitlines()[-1] == (
        "masrl: error: 3 candidate(s) of the update rounds since the last release are not decided and applied yet: "
        f"{folder.name} arxiv:2605.10002 (queue.csv:2); {folder.name} arxiv:2605.10001 (queue.csv:3); {folder.name} "
        "arxiv:2606.00007 (queue.csv:4). Screen them in corpus/rounds/<round>/queue.csv and run `masrl update apply ROUND`, "
        "or release anyway with --allow-undecided (the release notes then name them)")
    run = cli("release", "v2", "--root", root, "--date", today, "--allow-undecided", "--dry-run")
    assert run.code == 0 and run.out.splitlines()[1] == (
        f"search cutoff 2026-06-30: the end of the window of round {folder.name}, the latest update round since release "
        "v1 (--cutoff sets another)"), run.out
    run = cli("release", "v2", "--root", root, "--date", today, "--allow-undecided")
    assert run.code == 0, run.err
    assert run.out.splitlines()[1].startswith("search cutoff 2026-06-30: the end of the window of round ")
    assert run.out.splitlines()[2] == (
        f"released with 3 candidate(s) of the update rounds undecided (--allow-undecided), named in its notes in "
        f"corpus/releases.yaml: {folder.name} arxiv:2605.10002 (queue.csv:2); {folder.name} arxiv:2605.10001 (queue.csv:3); "
        f"{folder.name} arxiv:2606.00007 (queue.csv:4)")
    listing = yaml.safe_load((root / "corpus/releases.yaml").read_text())["releases"][-1]
    assert (listing["date"], listing["search_cutoff"]) == (today, "2026-06-30")  # the rounds searched no later day
    assert listing["notes"] == [f"undecided at release: {folder.name} arxiv:2605.10002 (queue.csv:2)",
                                f"undecided at release: {folder.name} arxiv:2605.10001 (queue.csv:3)",
                                f"undecided at release: {folder.name} arxiv:2606.00007 (queue.csv:4)"]
    assert cli("build", "--root", root, "--no-figures").code == 0
    assert f"- undecided at release: {folder.name} arxiv:2605.10002 (queue.csv:2)" in (root / "reports/RELEASES.md").read_text()
    snapshot = yaml.safe_load((root / "corpus/releases/v2.yaml").read_text())
    assert snapshot["identification"] == {"rounds": [folder.name], "identified_by_source": {"arXiv": 7},
                                          "duplicates_removed": 4, "found_again": 0, "queued": 3, "applied": 0, "awaiting": 3}
    frozen = (root / "reports/releases/v2/tables/prisma_flow.csv").read_text()
    assert "records identified from arXiv (update rounds),7" in frozen
    shutil.rmtree(folder)  # the release's flow is frozen with it: editing or removing a round later changes nothing
    assert cli("build", "--root", root, "--no-figures").code == 0
    assert (root / "reports/releases/v2/tables/prisma_flow.csv").read_text() == frozen


def test_apply_reports_every_problem_of_the_sheet_at_once_and_writes_nothing(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "maybe"},
                                "arxiv:2605.10002": {"decision": "exclude", "stage": "abstract", "reason_class": "X9"},
                                "arxiv:2605.10001": {"decision": "include", "reason_class": "X1"}})
    before = sorted(p.name for p in (root / "exclusions").iterdir()) + sorted(p.name for p in (root / "corpus/papers").iterdir())
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 1
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    assert run.err.splitlines() == [
        f"{queue}:2: reason: an exclusion must say why the paper is excluded",
        f"{queue}:2: reason_class: 'X9' is not in the vocabulary; allowed: X1, X2, X3, X4, X5",
        f"{queue}:2: stage: 'abstract' is not in the vocabulary; allowed: abstract_screen, full_text_screen, artifact_screen, "
        "duplicate_screen (did you mean 'abstract_screen'?)",
        f"{queue}:3: reason_class: an include has no reason_class; clear it (or write exclude)",
        f"{queue}:4: decision: 'maybe' is not a decision; write include or exclude (or leave it empty)",
        "masrl: error: 5 errors in 1 file; nothing was applied.",
    ]
    after = sorted(p.name for p in (root / "exclusions").iterdir()) + sorted(p.name for p in (root / "corpus/papers").iterdir())
    assert after == before


def test_validate_names_the_authors_a_decided_row_cannot_have_as_apply_does(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include", "authors": ""},
                                "arxiv:2605.10002": {**EXCLUDE, "authors": "; ; and"},
                                "arxiv:2605.10001": {"authors": "and"}})  # undecided: the screener has not got to it
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    expected = [f"{queue}:2: authors: authors[0]: 'and' holds the word 'and', which BibTeX reads as two authors: give each "
                "person as an author of their own ('and others' is others, an author of its own; an organisation "
                "whose name holds 'and' goes in braces, "
                "\"{Agents and Tools Lab}\")",
                f"{queue}:4: authors: an included paper needs its authors (Last, First; ...)"]
    refused_alike(cli, root, folder, expected)


@pytest.mark.parametrize("cell", ["[Lovelace, Ada]", "Lovelace, Ada & Babbage, Charles", "Hopper, Grace et al."])
def test_several_names_written_as_text_in_an_authors_cell_are_refused_as_search_refuses_them(searched, cli, cell):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include", "authors": cell}})
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    refused_alike(cli, root, folder, [
        f"{queue}:4: authors: authors[0]: {cell!r} is not one person's name: '[', ']', ';', '&', '|', '/' and 'et al.' "
        "write several names as text; give each person as an author of their own (an organisation whose name holds one "
        "goes in braces)"])


_DIGITS = ": write the name alone (a person's name holds no digit; an organisation whose name holds one goes in braces, '{Team 42}')"


@pytest.mark.parametrize(("cell", "why"), [
    ("Doe2, Jane", "holds 'Doe2', a footnote or affiliation mark glued to a name" + _DIGITS),
    ("Doe, 3", "holds '3', digits where a name goes" + _DIGITS),
    ("=Doe, Jane", "begins with '=', which no name does (a spreadsheet formula, a handle such as '@roe'): write the name "
                   "alone")])
def test_a_digit_or_a_formula_in_an_authors_cell_is_refused_by_apply_and_validate(searched, cli, cell, why):
    """An affiliation's digit glued to a name, a given name of digits only and a formula were applied as authors."""
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include", "authors": cell}})
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    refused_alike(cli, root, folder, [f"{queue}:4: authors: authors[0]: {cell!r} {why}"])


def test_a_terminal_escape_or_a_bidi_control_edited_into_round_yaml_is_refused(searched, cli):
    root, folder = searched
    meta = folder / "round.yaml"
    text = meta.read_text(encoding="utf-8")
    assert "label: arXiv\n" in text
    meta.write_text(text.replace("label: arXiv\n", "label: \"ar\\e[2JXiv\\u202e\"\n", 1), encoding="utf-8")
    run = cli("validate", "--root", root)
    assert run.code == 1
    assert (f"corpus/rounds/{folder.name}/round.yaml:16: sources[0].label: 'ar\\x1b[2JXiv\\u202e' contains characters that "
            "are invisible or change how the text shows (U+001B ESCAPE, a control character; U+202E RIGHT-TO-LEFT "
            "OVERRIDE, a bidirectional control); remove them") in run.err.splitlines()
    assert "\x1b" not in run.err + run.out


def test_a_cell_too_long_for_a_sheet_is_named_once_and_no_count_is_blamed(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"abstract": "x" * 200_000}})
    run = cli("validate", "--root", root)
    assert run.code == 1
    assert run.err.splitlines() == [
        f"corpus/rounds/{folder.name}/queue.csv:4: not readable as CSV (a cell longer than 131,072 characters, more than a "
        "sheet's cell holds)", "1 error in 1 file; no file was changed."]


def test_an_endpoint_with_a_secret_edited_into_a_committed_file_is_refused_without_printing_it(searched, cli):
    root, folder = searched
    meta = folder / "round.yaml"
    text = meta.read_text(encoding="utf-8")
    endpoint = re.search(r"(?m)^    endpoint: (\S+)$", text).group(1)
    meta.write_text(text.replace(f"endpoint: {endpoint}", "endpoint: http://user:SECRETKEY@127.0.0.1/x?k=SECRETKEY", 1),
                    encoding="utf-8")
    protocol = root / "corpus/protocol.yaml"
    protocol.write_text(re.sub(r"(?m)^(    endpoint: )https://export.arxiv.org/api/query$", r"\1https://export.arxiv.org/api/query?key=SECRETKEY",
                               protocol.read_text(encoding="utf-8"), count=1), encoding="utf-8")
    run = cli("validate", "--root", root)
    assert run.code == 1 and "SECRETKEY" not in run.err + run.out
    lines = run.err.splitlines()
    assert any("round.yaml:" in e and "sources[0].endpoint: 'http://…@127.0.0.1/x?…': an endpoint holding '@' (a user name or "
               "password, or an e-mail address in a query) is refused" in e for e in lines), lines
    assert any(e.startswith("corpus/protocol.yaml:") and "searchers.arxiv.endpoint: 'https://export.arxiv.org/api/query?…': an "
               "endpoint with a query or a fragment is refused" in e for e in lines), lines


def test_a_window_that_runs_backwards_is_refused(searched, cli):
    root, folder = searched
    meta = folder / "round.yaml"
    meta.write_text(meta.read_text(encoding="utf-8").replace("since: '2026-05-04'", "since: '2026-07-01'", 1), encoding="utf-8")
    run = cli("validate", "--root", root)
    assert run.code == 1
    assert any(line.endswith("window: since 2026-07-01 is after until 2026-06-30: a search window runs forward")
               for line in run.err.splitlines()), run.err


def test_an_identifier_written_in_another_form_is_named_with_what_to_write(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include", "identifier": "DOI:10.1234/Q.0"},
                                "arxiv:2605.10002": {"decision": "include",  # each id of a cell of several
                                                     "identifier": "arxiv:2605.10002; https://arxiv.org/abs/2605.99999v2"},
                                "arxiv:2605.10001": {"decision": "include", "identifier": "isbn:12345", "title": ""}})
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    refused_alike(cli, root, folder, [
        f"{queue}:2: identifier: 'https://arxiv.org/abs/2605.99999v2' is a URL, not scheme:value; write arxiv:2605.99999",
        f"{queue}:3: identifier: 'isbn:12345': masrl reads no identifier of the scheme 'isbn'; the schemes are arxiv, doi, "
        "openreview, acl, github, label, url",
        f"{queue}:3: title: must not be empty",  # once, not again as a placeholder
        f"{queue}:4: identifier: 'DOI:10.1234/Q.0': a scheme is written in lower case, doi:10.1234/Q.0"])


def test_apply_stops_at_a_sheet_whose_columns_are_wrong_without_errors_of_its_rows(searched, cli):
    root, folder = searched
    edit_lines(folder / "queue.csv", lambda lines: [lines[0] + ",decision", *(line + ",exclude" for line in lines[1:])])
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 1
    assert run.err.splitlines()[0].startswith(f"corpus/rounds/{folder.name}/queue.csv:1: the columns must be exactly ")
    assert "reason" not in "\n".join(run.err.splitlines()[1:-1]), run.err


def test_a_row_cut_short_or_a_title_of_an_invisible_character_is_one_error(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2605.10001": {"decision": "include", "title": "\u200b"}})
    sheet = folder / "queue.csv"
    with open(sheet, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    rows[1] = rows[1][:5]  # the row of line 2 cut to five cells
    with open(sheet, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    columns = len(rows[0])
    run = cli("validate", "--root", root)
    assert run.code == 1
    assert run.err.splitlines()[:-1] == [
        f"{queue}:2: 5 cells but the header has {columns} columns (a row cut short, or a line break inside an unquoted "
        "value?)",
        f"{queue}:3: title: '\\u200b' contains a character that is invisible or changes how the text shows (U+200B "
        "ZERO WIDTH SPACE, zero-width); remove it"], run.err


def test_a_row_copied_in_the_sheet_is_named_once_with_the_count_it_breaks(searched, cli):
    root, folder = searched
    lines = edit_lines(folder / "queue.csv", lambda lines: [*lines[:2], lines[1], *lines[2:]])
    run = cli("validate", "--root", root)
    ident = lines[1].split(",")[0].split("; ")[0]  # the id the copy repeats (the first of the cell)
    assert run.code == 1 and run.err.splitlines()[:-1] == [
        f"corpus/rounds/{folder.name}/queue.csv:3: identifier: {ident} is queued twice in this round (also line 2)",
        f"corpus/rounds/{folder.name}/round.yaml:{count_line(folder, 'queued')}: counts.queued: says {len(lines) - 1} but "
        f"queue.csv has {len(lines)} row(s): "
        "a round's sheets keep every record found (exclude a candidate instead of deleting its row)"], run.err


def test_show_counts_the_rows_of_duplicates_csv(searched, cli):
    root, folder = searched
    edit_lines(folder / "duplicates.csv", lambda lines: [*lines, lines[-1]])  # a row added by hand
    run = cli("update", "show", "--root", root, folder.name)
    assert run.out.splitlines()[-1].endswith("; 5 duplicates in duplicates.csv")
    assert run.err.splitlines()[0] == (f"corpus/rounds/{folder.name}/round.yaml:{count_line(folder, 'duplicates')}: "
                                       "counts.duplicates: says 4 but "
                                       "duplicates.csv has 5 row(s): a round's sheets keep every record found (exclude a "
                                       "candidate instead of deleting its row)")


def test_validate_refuses_the_titles_years_and_reasons_apply_would_refuse(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include", "title": "TODO", "year": "1949"},
                                "arxiv:2605.10002": {**EXCLUDE, "title": "...", "year": "1800", "reason": "TBD"}})
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    expected = [f"{queue}:2: reason: 'TBD' is a placeholder",
                f"{queue}:2: title: '...' is only punctuation, a placeholder",
                f"{queue}:2: year: 1800 is out of range; allowed: 1950 to 2028",
                f"{queue}:4: title: 'TODO' is a placeholder",
                f"{queue}:4: year: 1949 is out of range; allowed: 1950 to 2028"]
    refused_alike(cli, root, folder, expected)


def test_a_link_with_a_password_in_a_decided_row_is_refused_once_without_printing_it(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include", "arxiv_category": "",
                                                     "identifier": "url:https://user:SECRETKEY@example.org/x?token=SECRETKEY"}})
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    expected = [f"{queue}:4: identifier: 'https://…@example.org/x?…' names a user before the host ('user@host'); remove it"]
    assert "SECRETKEY" not in "".join(refused_alike(cli, root, folder, expected))


def test_show_says_where_an_applied_paper_is_when_its_row_says_otherwise(searched, cli):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include"}})
    assert cli("update", "apply", "--root", root, folder.name).code == 0
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "exclude"}})  # edited after it was applied
    (line,) = [ln for ln in cli("update", "show", "--root", root, folder.name).out.splitlines() if "arxiv:2606.00007" in ln]
    assert "exclude (now retained)" in line


def test_a_stray_quote_in_the_sheet_is_refused_not_read_as_other_cells(searched, cli):
    root, folder = searched
    queue = folder / "queue.csv"
    lines = queue.read_text(encoding="utf-8").splitlines()
    identifier, title = lines[1].split(",")[:2]
    lines[1] = lines[1].replace(f"{identifier},{title},", f'{identifier},"{title},', 1)  # one quote typed by hand
    queue.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = cli("validate", "--root", root)
    assert run.code == 1
    assert (f"corpus/rounds/{folder.name}/queue.csv:2: not readable as CSV (',' expected after '\"': a stray double quote? "
            "A cell that starts with a quote ends with one, and a quote inside it is written twice)") in run.err
    assert cli("update", "apply", "--root", root, folder.name).code == 1
    assert sorted(p.name for p in (root / "corpus/papers").iterdir()) == sorted(
        p.name for p in (searched[0] / "corpus/papers").iterdir())


def test_validate_checks_the_round_and_the_protocol(searched, cli):
    root, folder = searched
    queue = folder / "queue.csv"
    lines = queue.read_text().splitlines()
    queue.write_text("\n".join(lines[:-1]) + "\n")  # a candidate deleted by hand
    meta = folder / "round.yaml"
    meta.write_text(re.sub(r"(?m)^( +)not_matching: 0$", r"\1not_matching: 0\n\1unusable: 1", meta.read_text(), count=1))
    protocol = root / "corpus/protocol.yaml"
    protocol.write_text(protocol.read_text().replace("exclusion_family: tool use", "exclusion_family: tools", 1)
                        .replace("crossref: 'credit assignment counterfactual credit", "crossref: 'credit assignment", 1))
    run = cli("validate", "--root", root)
    assert run.code == 1
    errors = run.err.splitlines()
    assert (f"corpus/rounds/{folder.name}/round.yaml:{count_line(folder, 'queued')}: counts.queued: says 3 but queue.csv has "
            "2 row(s): a round's sheets "
            "keep every record found (exclude a candidate instead of deleting its row)") in errors
    returned = yaml.safe_load(meta.read_text())["sources"][0]["queries"][0]["returned"]
    assert any(e.endswith(f"sources[0].queries[0].returned: {returned} is not kept + outside_window + not_matching + "
                          f"unusable ({returned} + 0 + 0 + 1)") for e in errors), errors
    assert any(e.endswith("sources[0].queries[0].unusable: says 1 but unusable_records names 0") for e in errors), errors
    assert any(e.endswith("query_families[1].queries.crossref: does not name the term(s) 'counterfactual credit' of the family")
               for e in errors), errors
    assert any("query_families[3].exclusion_family: 'tools' is not a value of query_family in corpus/taxonomy.yaml" in e
               for e in errors), errors


def test_the_bundled_feed_is_valid_atom(published_tree):
    feed = feedparser.parse((published_tree / "reports/site/feed.xml").read_bytes())
    assert not feed.bozo and feed.version == "atom10"
    assert feed.feed.title.startswith("New records: ")


def test_problems_of_a_round_carry_the_rules_codes(searched):
    from masrl.checks.validate import validate
    from masrl.corpus.load import load

    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "maybe"}})
    protocol = root / "corpus/protocol.yaml"
    protocol.write_text(protocol.read_text().replace("exclusion_family: tool use", "exclusion_family: tools", 1))
    codes = {(p.file.rsplit("/", 1)[-1], p.code) for p in validate(load(root))}
    assert codes == {("protocol.yaml", "U001"), ("queue.csv", "U002")}


def test_a_sheet_saved_as_a_workbook_is_reported_once(searched, cli):
    root, folder = searched
    (folder / "queue.csv").write_bytes(b"PK\x03\x04" + b"\0" * 64)
    run = cli("validate", "--root", root)
    assert run.code == 1
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    assert [line for line in run.err.splitlines() if queue in line] == [
        f"{queue}: this is a zip archive (an .xlsx or .ods workbook?); save the sheet as 'CSV UTF-8 (comma delimited)' "
        "and import that"]
    assert "counts.queued" not in run.err and "the columns must be exactly" not in run.err


def test_two_branches_that_search_the_same_window_count_each_paper_once_after_the_merge(searched, round_survey_tree, cli,
                                                                                           clock, arxiv_server,
                                                                                           monkeypatch, tmp_path):
    """Branch B searched the window before branch A's round existed, on the next day; git merges the two round
    folders (no conflict: different folders). The flow is the one of searching again on one branch: every
    paper B queued again is counted once, as found again, and `update show` says so."""
    root, folder = searched
    assert cli("build", "--root", root, "--no-figures").code == 0
    before = (root / "reports/tables/prisma_flow.csv").read_text()
    day = (folder.name[:8] + f"{int(folder.name[8:10]) + 1:02d}") if folder.name[8:10] < "28" else folder.name[:8] + "01"
    monkeypatch.setenv("MASRL_TODAY", day)
    branch = copy_tree(round_survey_tree, tmp_path / "branch")
    other = cli("update", "search", "--root", branch, *WINDOW, "--source", "arxiv")
    assert other.code == 0, other.err
    (theirs,) = (branch / "corpus" / "rounds").iterdir()
    assert theirs.name == day and (theirs / "queue.csv").read_text() == (folder / "queue.csv").read_text()
    shutil.copytree(theirs, folder.parent / theirs.name)  # what `git merge` of the two branches writes
    fill(folder.parent / day / "queue.csv", {"arxiv:2605.10002": EXCLUDE})  # B screened one: A's row is undecided
    assert cli("validate", "--root", root).code == 0
    assert cli("build", "--root", root, "--no-figures").code == 0
    table = (root / "reports/tables/prisma_flow.csv").read_text()
    assert table == before  # the merged rounds' flow is the one round's
    rows = {line.split(",")[0]: line.split(",")[1] for line in table.splitlines()[1:]}
    assert (rows["records identified from arXiv (update rounds)"], rows["duplicates removed before screening"]) == ("7", "4")
    md = (root / "reports/tables/prisma_flow.md").read_text()
    assert "7 record(s) that a later round found again are counted once, where they were first identified" in md
    show = cli("update", "show", "--root", root, day)
    assert show.code == 0, show.err
    assert [line.split()[3:6] for line in show.out.splitlines()[1:4]] == [["queued", "by", folder.name]] * 3
    assert show.out.splitlines()[-1] == (
        f"round {day} (2026-05-04 .. 2026-06-30): 3 rows in queue.csv: 0 of its own, 3 queued by an earlier round too "
        "(counted once, as duplicates: the earlier round's row decides); 0 still to decide, 0 decided but not applied "
        f"(`masrl update apply {day}`), 0 applied; 4 duplicates in duplicates.csv")
    # the stopping test of this round leaves the earlier round's rows to that round's test (each paper counted once)
    lines = show.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("when to stop screening"))
    assert lines[start + 1].startswith("  screened 0 of 0 candidates, 0 relevant (")
    assert lines[start + 1].endswith("; 3 row(s) queued by an earlier round are left to that round's test")
    assert lines[start + 2] == "  no candidate of its own: nothing to screen"
    first = cli("update", "show", "--root", root, folder.name).out.splitlines()
    assert next(line for line in first if line.startswith("  screened ")).startswith("  screened 0 of 3 candidates")
    # the two rows of one paper decide differently: one error, at the later row, naming the earlier
    fill(folder / "queue.csv", {"arxiv:2605.10002": {"decision": "include"}})
    run = cli("validate", "--root", root)
    assert run.code == 1
    assert f"corpus/rounds/{day}/queue.csv:2: decision: 'exclude', but round {folder.name} queued this paper too (same " \
           f"arxiv 2605.10002) and decides 'include' at corpus/rounds/{folder.name}/queue.csv:2: one paper has one " \
           "decision; make the two agree, or empty this one (the earlier round's row counts)" in run.err, run.err


def test_a_row_whose_paper_was_added_by_hand_under_another_id_is_that_records(searched, cli):
    """The papers of two queued rows were meanwhile added by hand under other ids (DOIs of their own): each row is
    that record's, by the duplicate rule of `masrl add`. Undecided or decided as its record is, it counts as applied;
    decided otherwise, it is refused at its sheet line, saying what to do in the sheet (apply has no --force)."""
    root, folder = searched
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    first, second, third = rows[0], rows[1], rows[2]
    for k, row in enumerate((first, second, third)):
        run = cli("add", "--root", root, "--no-fetch", "--doi", f"10.5555/by.hand.{k}", "--title", row["title"],
                  "--author", row["authors"].split("; ")[0], "--year", "2026")
        assert run.code == 0, run.err
    show = cli("update", "show", "--root", root, folder.name)
    assert show.out.splitlines()[-1].endswith(" 0 still to decide, 0 decided but not applied "
                                              f"(`masrl update apply {folder.name}`), 3 applied; 4 duplicates in duplicates.csv")
    fill(folder / "queue.csv", {first["identifier"].split("; ")[0]: EXCLUDE,
                                second["identifier"].split("; ")[0]: {"decision": "include"}})
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 1
    lines = run.err.splitlines()
    assert lines[0].startswith(f"corpus/rounds/{folder.name}/queue.csv:2: title: {first['title']!r} refused: already "
                               "retained as corpus/papers/")
    assert lines[0].endswith("; if it is that paper, empty this row's decision (the record decides it; the row counts as "
                             "applied); if it is a distinct paper, log it with `masrl add --force REASON` or "
                             "`masrl exclude --force REASON`"), lines
    assert lines[1:] == ["masrl: error: 1 error in 1 file; nothing was applied."]
    fill(folder / "queue.csv", {first["identifier"].split("; ")[0]: {k: "" for k in EXCLUDE}})
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 0, run.err
    assert "0 record(s) created, 3 row(s) applied before, 0 still to decide" in run.out + run.err


def test_a_round_searched_before_a_release_on_a_branch_merged_later_counts_in_the_next_update(searched, round_survey_tree,
                                                                                                cli, clock, arxiv_server,
                                                                                                tmp_path):
    """main released v2 with no round; a branch's round of the day before is merged in afterwards. The release said
    it covers no round, so the merged round is the next update's: its candidates are named, and counted."""
    root, folder = searched
    round_survey = copy_tree(round_survey_tree, tmp_path / "main")
    today = today_iso()
    assert cli("build", "--root", round_survey, "--no-figures").code == 0
    run = cli("release", "v2", "--root", round_survey, "--date", today)
    assert run.code == 0, run.err
    assert yaml.safe_load((round_survey / "corpus/releases/v2.yaml").read_text())["identification"] == {"rounds": []}
    assert cli("build", "--root", round_survey, "--no-figures").code == 0
    flow = (round_survey / "reports/releases/v2/tables/prisma_flow.csv").read_text()
    assert "update rounds" not in flow  # a release without rounds: the flow of records added by hand, as before
    shutil.copytree(folder, round_survey / "corpus/rounds" / folder.name)  # what `git merge` of the branch writes
    meta = yaml.safe_load((folder / "round.yaml").read_text())
    assert meta["finished"][:10] <= today and meta["window"]["until"] <= today  # the dates say "before v2"
    run = cli("release", "v3", "--root", round_survey, "--date", today)
    assert run.code == 1 and f"{folder.name} arxiv:2605.10002 (queue.csv:2)" in run.err, run.err
    assert cli("build", "--root", round_survey, "--no-figures").code == 0
    rows = {line.split(",")[0]: line.split(",")[1] for line in
            (round_survey / "reports/tables/prisma_flow.csv").read_text().splitlines()[1:]}
    assert (rows["records identified from arXiv (update rounds)"], rows["awaiting a screening decision"]) == ("7", "3")


def test_a_record_of_the_queue_swapped_for_another_is_named(searched, cli):
    """Rows in another order, screened and re-saved are the same records; a row whose record is replaced by another
    (the count unchanged) lost one record and invented one: named at the sheet, in validate and apply alike."""
    root, folder = searched
    queue = folder / "queue.csv"
    lines = edit_lines(queue, lambda lines: [lines[0], *reversed(lines[1:])])
    fill(queue, {"arxiv:2605.10001": EXCLUDE})
    assert cli("validate", "--root", root).code == 0
    first = lines[1].split(",", 1)[0]
    edit_lines(queue, lambda now: [x.replace(first, "arxiv:2606.77777", 1) if x.startswith(first + ",") else x for x in now])
    rel = f"corpus/rounds/{folder.name}/queue.csv"
    refused_alike(cli, root, folder, [
        f"{rel}: identifier: the records of its rows are not the ones the search found (found_sha256 of round.yaml): a "
        f"round's sheets keep every record found as the source gave it, none other. Restore their identifier, title, "
        f"authors, year (git diff {rel}); the screener fills only decision, stage, reason_class, reason"])
    # a row given another title, authors or year would make a record the source never returned
    queue.write_text("\n".join(lines[:1] + list(reversed(lines[1:]))) + "\n", encoding="utf-8")
    assert cli("validate", "--root", root).code == 0
    fill(queue, {"arxiv:2605.10001": {"title": "An Entirely Different Invented Title"}})
    assert cli("validate", "--root", root).code == 1


def _a_round_of_one_day_on_two_branches(round_survey_tree, cli, repo, tmp_path, release_b: bool = False,
                                        second_b: bool = False, same_paper: bool = False):
    """``(root, day)``: a git repository of the round survey where branches a and b each searched on ``day`` and
    included another paper, tagged and built (b also released v2 with ``release_b``; with ``second_b``, b searched
    again that day, a round whose duplicates name the rows of its first; with ``same_paper``, both included the
    same paper, which b summed up in other words, and b excluded another); branch a checked out."""
    from grow import git

    root = copy_tree(round_survey_tree, tmp_path / "survey")
    shutil.copy(repo / ".gitattributes", root / ".gitattributes")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    for branch, paper in (("a", "arxiv:2605.10001"), ("b", "arxiv:2605.1000" + ("1" if same_paper else "2"))):
        git(root, "checkout", "-q", "-b", branch, "main")
        assert cli("update", "search", "--root", root, *WINDOW, "--source", "arxiv").code == 0
        (folder,) = (root / "corpus" / "rounds").iterdir()
        fill(folder / "queue.csv", {paper: {"decision": "include"}, **({"arxiv:2605.10002": EXCLUDE} if
                                                                         branch == "b" and same_paper else {})})
        before = {p.name for p in (root / "corpus/papers").iterdir()}
        run = cli("update", "apply", "--root", root, folder.name)
        assert run.code == 0, run.err
        (made,) = {p.name for p in (root / "corpus/papers").iterdir()} - before
        for name, value in PAPERS[0]["tags"].items():
            set_field(root / "corpus/papers" / made, name, value)
        if branch == "b" and same_paper:
            set_field(root / "corpus/papers" / made, "one_liner", "An orchestrator trained with team and hybrid rewards")
        if branch == "b" and release_b:
            assert cli("release", "v2", "--root", root, "--date", today_iso(), "--allow-undecided").code == 0
        if branch == "b" and second_b:
            assert cli("update", "search", "--root", root, *WINDOW, "--source", "arxiv").code == 0
        assert cli("build", "--root", root, "--no-figures").code == 0
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"round on {branch}")
    git(root, "checkout", "-q", "a")
    return root, folder.name


def test_two_rounds_of_one_day_on_two_branches_are_both_kept_by_resolve(round_survey_tree, cli, clock, arxiv_server,
                                                                          repo, tmp_path):
    """Both branches searched on the same day (both rounds are corpus/rounds/<day>/) and each included another paper:
    git stops on the round's sheet; `masrl resolve` keeps ours under the id and theirs as <day>-2, with the id
    followed into theirs' round.yaml, sheets and the record it applied. Each paper is counted once."""
    from grow import git

    root, day = _a_round_of_one_day_on_two_branches(round_survey_tree, cli, repo, tmp_path)
    merged = git(root, "merge", "--no-edit", "b", check=False)
    assert f"CONFLICT (add/add): Merge conflict in corpus/rounds/{day}/queue.csv" in merged, merged
    run = cli("resolve", "--root", root, "--no-figures")
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == (f"kept both rounds: corpus/rounds/{day}/ is ours; theirs is now "
                                       f"corpus/rounds/{day}-2/ (its records name it)")
    assert git(root, "diff", "--name-only", "--diff-filter=U") == ""
    git(root, "commit", "-q", "--no-edit")
    assert git(root, "status", "--porcelain") == ""
    ours, theirs = (root / "corpus/rounds" / day, root / "corpus/rounds" / f"{day}-2")
    assert yaml.safe_load((theirs / "round.yaml").read_text())["round"] == f"{day}-2"
    assert (theirs / "round.yaml").read_text().startswith(f"# Update round {day}-2: ")
    assert (theirs / "queue.csv").read_text() != (ours / "queue.csv").read_text()
    records = {p.name: p.read_text() for p in (root / "corpus/papers").iterdir()}
    (a,) = [text for text in records.values() if "arxiv: '2605.10001'" in text or "arxiv: 2605.10001" in text]
    (b,) = [text for text in records.values() if "arxiv: '2605.10002'" in text or "arxiv: 2605.10002" in text]
    assert f"masrl update apply {day}-2 (corpus/rounds/{day}-2/queue.csv:" in b and f"rounds/{day}/" not in b
    assert f"masrl update apply {day} (corpus/rounds/{day}/queue.csv:" in a
    assert cli("validate", "--root", root).code == 0
    assert cli("build", "--root", root, "--check", "--no-figures").code == 0
    rows = {line.split(",")[0]: line.split(",")[1] for line in
            (root / "reports/tables/prisma_flow.csv").read_text().splitlines()[1:]}
    assert (rows["records identified from arXiv (update rounds)"], rows["awaiting a screening decision"]) == ("7", "1")


def test_a_record_the_person_resolved_to_ours_stays_ours_when_resolve_then_renames_theirs_round(
        round_survey_tree, cli, clock, arxiv_server, repo, tmp_path):
    """Both branches included the same paper in a round of one day, as two versions of one record: resolve names the
    record and advises keeping one side's; once ours is kept, resolve renames theirs' round and leaves ours' record as
    it was (naming ours' round), instead of writing theirs' version over it with the renamed round's id."""
    from grow import git

    root, day = _a_round_of_one_day_on_two_branches(round_survey_tree, cli, repo, tmp_path, same_paper=True)
    git(root, "merge", "--no-edit", "b", check=False)
    (record,) = [rel for rel in git(root, "diff", "--name-only", "--diff-filter=U").split() if rel.startswith("corpus/papers/")]
    ours = git(root, "show", f"HEAD:{record}")
    run = cli("resolve", "--root", root, "--no-figures")
    assert run.code == 1 and f"`git checkout --ours {record} && git add {record}`" in run.err, run.err
    theirs = git(root, "show", f"b:{record}")
    (root / record).write_text(theirs.replace("apply 2027", "apply  2027"), encoding="utf-8")  # neither side's
    git(root, "add", record)
    run = cli("resolve", "--root", root, "--no-figures")
    assert run.code == 1 and (f"conflict: {record}: theirs' version names round {day}, which is now {day}-2, and the merge "
                              "holds neither side's version of it: make it name the round of its row") in run.err, run.err
    git(root, "checkout", "HEAD", "--", record)  # ours, as `git checkout --ours` gives it before it is added
    run = cli("resolve", "--root", root, "--no-figures")
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == (f"kept both rounds: corpus/rounds/{day}/ is ours; theirs is now "
                                       f"corpus/rounds/{day}-2/ (its records name it)")
    assert (root / record).read_text(encoding="utf-8") == ours
    assert f"masrl update apply {day} (corpus/rounds/{day}/queue.csv:" in ours
    assert cli("validate", "--root", root).code == 0


def test_a_later_round_of_the_renamed_side_names_the_rows_of_the_renamed_round_by_its_new_id(round_survey_tree, cli, clock,
                                                                                              arxiv_server, repo, tmp_path):
    """Branch b searched twice on the day (its second round's duplicates name rows of its first, which a has too): once
    resolve renames b's first round, b's second round names its rows by the new id, not the rows of a's round, which
    are other papers; validate refuses a duplicate that names another paper's row."""
    from grow import git

    root, day = _a_round_of_one_day_on_two_branches(round_survey_tree, cli, repo, tmp_path, second_b=True)
    git(root, "merge", "--no-edit", "b", check=False)
    run = cli("resolve", "--root", root, "--no-figures")
    assert run.code == 0, run.err
    assert run.out.splitlines()[0].endswith(f"theirs is now corpus/rounds/{day}-3/ (its records name it)")
    later = (root / "corpus/rounds" / f"{day}-2" / "duplicates.csv").read_text()
    assert f"corpus/rounds/{day}-3/queue.csv:" in later and f"corpus/rounds/{day}/queue.csv:" not in later
    assert cli("validate", "--root", root).code == 0
    ours = (root / "corpus/rounds" / day / "queue.csv").read_text().splitlines()
    (root / "corpus/rounds" / day / "queue.csv").write_text("\n".join([ours[0], *reversed(ours[1:])]) + "\n")
    moved = later.replace(f"corpus/rounds/{day}-3/queue.csv:", f"corpus/rounds/{day}/queue.csv:")
    (root / "corpus/rounds" / f"{day}-2" / "duplicates.csv").write_text(moved)  # as before the fix: a's rows, reordered
    run = cli("validate", "--root", root)
    assert run.code == 1 and re.search(rf"corpus/rounds/{day}-2/duplicates.csv:[0-9]+: matched: corpus/rounds/{day}/queue.csv:"
                                       r"[0-9]+ is '[^']+', another paper than this row's '[^']+'", run.err), run.err


def test_a_round_of_one_day_that_the_merged_branch_released_keeps_its_id_and_ours_is_renamed(round_survey_tree, cli,
                                                                                               clock, arxiv_server, repo,
                                                                                               tmp_path):
    """As above, but branch b released its round as v2: the published round keeps its id; ours becomes <day>-2, its id
    followed into ours' round and the record ours applied from it."""
    from grow import git

    root, day = _a_round_of_one_day_on_two_branches(round_survey_tree, cli, repo, tmp_path, release_b=True)
    git(root, "merge", "--no-edit", "b", check=False)
    run = cli("resolve", "--root", root, "--no-figures")
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == (f"kept both rounds: corpus/rounds/{day}/ is theirs (a release of theirs covers it); "
                                       f"ours is now corpus/rounds/{day}-2/ (its records name it)")
    git(root, "commit", "-q", "--no-edit")
    records = [p.read_text() for p in (root / "corpus/papers").iterdir()]
    (a,) = [text for text in records if "2605.10001" in text]
    assert f"masrl update apply {day}-2 (corpus/rounds/{day}-2/queue.csv:" in a
    assert yaml.safe_load((root / "corpus/releases/v2.yaml").read_text())["identification"]["rounds"] == [day]
    assert cli("validate", "--root", root).code == 0
    assert cli("build", "--root", root, "--check", "--no-figures").code == 0


def test_each_sources_and_familys_counts_are_the_sheets(searched, cli):
    """round.yaml's counts per source and per query family reach the published PRISMA flow: they are each a tally of
    the sheets (queued + duplicates), add up to the totals, and are the rows each found; named with their lines,
    in the same run as a type error elsewhere in the file."""
    root, folder = searched
    meta = folder / "round.yaml"
    text = meta.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    arxiv = data["counts"]["by_source"]["arXiv"]
    edited = text.replace(f"    arXiv:\n      identified: {arxiv['identified']}\n      duplicates: {arxiv['duplicates']}\n",
                          f"    arXiv:\n      identified: 70\n      duplicates: {arxiv['duplicates']}\n", 1)
    assert edited != text
    meta.write_text(edited.replace("    pages: ", "    pages: many #", 1), encoding="utf-8")
    run = cli("validate", "--root", root)
    assert run.code == 1
    lines = meta.read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines, 1) if line == "      identified: 70")
    rel = f"corpus/rounds/{folder.name}/round.yaml"
    errors = run.err.splitlines()
    assert f"{rel}:{at}: counts.by_source.arXiv.identified: 70 is not queued + duplicates ({arxiv['queued']} + " \
           f"{arxiv['duplicates']})" in errors, run.err
    total = data["counts"]["identified"]
    assert any(e.startswith(f"{rel}:") and e.endswith(f"counts.by_source: its identified add up to {total - arxiv['identified'] + 70}, "
               f"not counts.identified ({total}): each record found is counted once in by_source") for e in errors), run.err
    assert any(".pages: " in e for e in errors), run.err  # the type error, in the same run
    # a source's queued that are not the queue's rows it found first
    meta.write_text(text.replace(f"    arXiv:\n      identified: {arxiv['identified']}\n      duplicates: {arxiv['duplicates']}\n"
                                 f"      queued: {arxiv['queued']}\n",
                                 f"    arXiv:\n      identified: {arxiv['identified']}\n      duplicates: {arxiv['duplicates'] + 1}\n"
                                 f"      queued: {arxiv['queued'] - 1}\n", 1), encoding="utf-8")
    errors = cli("validate", "--root", root).err.splitlines()
    assert any(e.endswith(f"counts.by_source.arXiv.queued: says {arxiv['queued'] - 1} but queue.csv has {arxiv['queued']} "
                          "row(s) found first by the source 'arXiv' (the first of its sources)") for e in errors), errors
    assert any(e.endswith(f"counts.by_source.arXiv.duplicates: says {arxiv['duplicates'] + 1} but duplicates.csv has "
                          f"{arxiv['duplicates']} row(s) of the source 'arXiv'") for e in errors), errors


def test_a_sheet_saved_with_its_columns_moved_is_judged_row_by_row_and_an_empty_trailing_column_is_no_column(searched, cli):
    """Columns in another order: named, and the rows' problems in the same run (a row is read by its columns'
    names). The empty column a spreadsheet leaves after the last one is not a column of the sheet."""
    root, folder = searched
    queue = folder / "queue.csv"
    edit_lines(queue, lambda lines: [line + "," for line in lines])
    assert cli("validate", "--root", root).code == 0
    fill(queue, {"arxiv:2605.10001": {"decision": "maybe"}})
    with open(queue, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    order = list(range(len(rows[0])))
    a, b = rows[0].index("reason_class"), rows[0].index("reason")
    order[a], order[b] = b, a
    with open(queue, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([[row[k] for k in order] for row in rows])
    run = cli("validate", "--root", root)
    rel = f"corpus/rounds/{folder.name}/queue.csv"
    errors = run.err.splitlines()
    assert run.code == 1 and errors[0].startswith(f"{rel}:1: the columns must be exactly ") and \
        errors[0].endswith("(in another order)"), run.err
    assert any(e.startswith(f"{rel}:") and ": decision: 'maybe'" in e for e in errors), run.err
    edit_lines(queue, lambda lines: [lines[0], lines[1] + "x", *lines[2:]])  # the unnamed column holds text
    assert "unknown an unnamed column (column 18) that holds text" in cli("validate", "--root", root).err


def test_a_citation_link_of_a_protocol_without_citation_searching_is_named_not_a_traceback(searched, cli):
    """A row found by a citation link, once the protocol has no citation searcher: validate and apply name it (apply
    had raised a KeyError mapping it to an exclusion family)."""
    root, folder = searched
    protocol = root / "corpus/protocol.yaml"
    text = protocol.read_text(encoding="utf-8")
    start, end = text.index("  # citation searching (PRISMA"), text.index("query_families:")
    protocol.write_text((text[:start] + "\n" + text[end:]).replace("searched_by: [semanticscholar, citations]",
                                                                   "searched_by: [semanticscholar]"), encoding="utf-8")
    assert cli("validate", "--root", root).code == 0
    fill(folder / "queue.csv", {"arxiv:2605.10001": {"query_families": "cites c3", **EXCLUDE}})
    line = next(k for k, row in enumerate((folder / "queue.csv").read_text(encoding="utf-8").splitlines(), 1)
                if row.startswith("arxiv:2605.10001"))
    expected = (f"corpus/rounds/{folder.name}/queue.csv:{line}: query_families: 'cites c3' is a citation link, but "
                "corpus/protocol.yaml has no citation searcher (searchers.citations) to name its query family in the "
                "exclusion log: restore it")
    for run in (cli("validate", "--root", root), cli("update", "apply", "--root", root, folder.name, "--dry-run")):
        assert run.code == 1 and expected in run.err.splitlines() and "Traceback" not in run.err, run.err


def test_a_candidate_awaiting_at_a_release_and_included_after_it_is_carried_over_not_added_by_hand(searched, cli,
                                                                                                     monkeypatch):
    """Round 1 leaves a candidate undecided at release v2; after v2 a second round finds the same papers again
    (all duplicates), and round 1's candidate is included: a record of a database search that v2 left awaiting,
    not one identified by other methods."""
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": EXCLUDE, "arxiv:2605.10002": EXCLUDE})
    assert cli("update", "apply", "--root", root, folder.name).code == 0
    assert cli("build", "--root", root, "--no-figures").code == 0
    assert cli("release", "v2", "--root", root, "--date", today_iso(), "--allow-undecided").code == 0
    assert cli("build", "--root", root, "--no-figures").code == 0
    day = folder.name[:8] + f"{int(folder.name[8:10]) + 1:02d}"
    monkeypatch.setenv("MASRL_TODAY", day)
    assert cli("update", "search", "--root", root, *WINDOW, "--source", "arxiv").code == 0
    assert cli("build", "--root", root).code == 0  # still undecided: counted, as awaiting since v2
    rows = {line.split(",")[0]: line.split(",")[1] for line in (root / "reports/tables/prisma_flow.csv").read_text().splitlines()[1:]}
    assert (rows["awaiting a screening decision"], rows["still awaiting a decision since an earlier version (found by its "
                                                        "update rounds)"]) == ("0", "1")
    assert 'id="awaiting:earlier"' in (root / "reports/figures/prisma_flow.svg").read_text()
    fill(folder / "queue.csv", {"arxiv:2605.10001": {"decision": "include"}})
    run = cli("update", "apply", "--root", root, folder.name)
    assert run.code == 0, run.err
    (made,) = [line.rsplit(" ", 1)[-1] for line in run.out.splitlines() if "include -> created" in line]
    for field, value in PAPERS[0]["tags"].items():
        set_field(root / made, field, value)
    build = cli("build", "--root", root)
    assert build.code == 0, build.err
    rows = {line.split(",")[0]: line.split(",")[1] for line in (root / "reports/tables/prisma_flow.csv").read_text().splitlines()[1:]}
    assert rows["records identified from arXiv (update rounds)"] == "7"  # round 2: all found again as duplicates
    assert rows["records identified by other methods (added by hand)"] == "0"
    assert rows["awaiting a decision at the previous version (found by its update rounds)"] == "1"
    assert "still awaiting a decision since an earlier version (found by its update rounds)" not in rows
    assert (rows["records to screen"], rows["new records with a screening decision"], rows["new records included"]) == ("1", "1", "1")
    svg = (root / "reports/figures/prisma_flow.svg").read_text()
    assert 'id="audited:carried_over"' in svg


def test_a_candidate_still_awaiting_at_a_release_with_no_round_since_is_counted_in_its_flow(searched, cli):
    """Round 1 leaves a candidate undecided at v2; v3 freezes a paper added by hand, with no round since: v3's flow
    (and the pool's, which is v3's) still counts the candidate as awaiting since an earlier version."""
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": EXCLUDE, "arxiv:2605.10002": EXCLUDE})
    assert cli("update", "apply", "--root", root, folder.name).code == 0
    assert cli("release", "v2", "--root", root, "--date", today_iso(), "--allow-undecided").code == 0
    from grow import add_paper

    add_paper(cli, root, PAPERS[0])
    assert cli("release", "v3", "--root", root, "--date", today_iso(), "--allow-undecided").code == 0
    assert cli("build", "--root", root, "--no-figures").code == 0
    for tree in ("reports/releases/v3", "reports"):
        rows = {line.split(",")[0]: line.split(",")[1] for line in (root / tree / "tables/prisma_flow.csv").read_text().splitlines()[1:]}
        assert (rows["records identified by other methods (added by hand)"], rows["records to screen"],
                rows["still awaiting a decision since an earlier version (found by its update rounds)"]) == ("1", "1", "1"), tree
        assert "records identified from arXiv (update rounds)" not in rows


def test_a_record_decided_at_the_release_and_moved_after_it_is_not_carried_over(searched, cli, monkeypatch):
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include"}, "arxiv:2605.10002": EXCLUDE,
                                "arxiv:2605.10001": EXCLUDE})
    assert cli("update", "apply", "--root", root, folder.name).code == 0
    for field, value in PAPERS[0]["tags"].items():
        set_field(root / "corpus/papers/dijkstra2026.yaml", field, value)
    assert cli("build", "--root", root, "--no-figures").code == 0
    assert cli("release", "v2", "--root", root, "--date", today_iso()).code == 0
    monkeypatch.setenv("MASRL_TODAY", folder.name[:8] + f"{int(folder.name[8:10]) + 1:02d}")
    assert cli("update", "search", "--root", root, *WINDOW, "--source", "arxiv").code == 0
    assert cli("exclude", "--root", root, "--key", "dijkstra2026", "--reason", "not RL after all", "--stage", "full_text_screen",
               "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration").code == 0
    assert cli("build", "--root", root, "--no-figures").code == 0
    rows = {line.split(",")[0]: line.split(",")[1] for line in (root / "reports/tables/prisma_flow.csv").read_text().splitlines()[1:]}
    assert not any(step.startswith("awaiting a decision at the previous version") for step in rows)  # decided at v2
    assert (rows["records to screen"], rows["new records with a screening decision"]) == ("0", "0")
    assert rows["dropped since the previous version (moved to the exclusion log)"] == "1"


def test_a_paper_known_only_by_its_landing_page_is_excluded_with_that_page_as_its_url(published_tree):
    """A Semantic Scholar paper with no arXiv id or DOI is queued as url:<its page>: excluded, the record's url is
    that page, as `masrl exclude --url` would write it, and the log validates (before, the url was empty)."""
    from masrl.checks.validate import validate
    from masrl.corpus.load import parse_tree, read_tree
    from masrl.corpus.taxonomy import Taxonomy
    from masrl.review.excluding import Decision, plan_exclusions

    page = "https://www.semanticscholar.org/paper/" + "a" * 40
    files = read_tree(published_tree)
    corpus = parse_tree(files)
    tax = Taxonomy(corpus.taxonomy)
    given = {"stages": "abstract_screen", "reasons": "X2", "found_in": "Semantic Scholar", "found_by": "multi-agent LLM"}
    decision = Decision("not about training", values={tax.role(role): value for role, value in given.items() if tax.role(role)},
                        title="An Orchestrator Without Ids", identifiers={"url": [page]}, authors=("Lovelace, Ada",), year=2026)
    plan = plan_exclusions(corpus, files, [decision])
    ((rel, data),) = plan.files.items()
    record = yaml.safe_load(data)
    assert (record["url"], record["identifiers"]) == (page, {"url": [page]})
    assert validate(parse_tree({**files, rel: data})) == []


def test_an_included_arxiv_row_becomes_the_record_masrl_add_makes_of_the_same_paper(searched, cli):
    """The row keeps what the arXiv API said (``arxiv_category``), so the record `update apply` makes is the one
    `masrl add` makes from the same entry of the same server, its BibTeX's ``primaryclass`` included."""
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include"}})
    assert cli("update", "apply", "--root", root, folder.name).code == 0
    applied = yaml.safe_load((root / "corpus/papers/dijkstra2026.yaml").read_text())
    assert applied["bibtex"]["primaryclass"] == "cs.MA"
    (root / "corpus/papers/dijkstra2026.yaml").unlink()
    run = cli("add", "--root", root, "--arxiv", "2606.00007", "--dry-run")
    assert run.code == 0, run.err
    added = yaml.safe_load(run.out.split("\n", 1)[1].split("\ndry run:")[0])
    keep = ("title", "authors", "year", "venue", "identifiers", "abstract", "bibtex")
    assert {k: added.get(k) for k in keep} == {k: applied.get(k) for k in keep}


def test_an_arxiv_category_cell_is_checked_like_every_cell_and_an_older_sheet_without_it_stays_valid(searched, cli):
    root, folder = searched
    rel = f"corpus/rounds/{folder.name}/queue.csv"
    line = {row.split(",")[0]: k for k, row in enumerate((folder / "queue.csv").read_text().splitlines(), 1)}
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"arxiv_category": "cs.ZZ"},
                                "arxiv:2605.10001": {"identifier": "doi:10.5555/moved.1"}})  # its cs.MA kept
    as_found(folder)
    run = cli("validate", "--root", root)
    assert run.code == 1 and run.err.splitlines()[:-1] == [
        f"{rel}:{line['arxiv:2605.10001']}: arxiv_category: 'cs.MA' is the category of a paper on arXiv, "
        "but the row names no arXiv id: leave it empty or add the paper's arxiv: id",
        f"{rel}:{line['arxiv:2606.00007']}: arxiv_category: 'cs.ZZ' is not an arXiv category (did you mean 'cs.SY'?)"], run.err
    # a round searched before masrl wrote the column: every other column, and valid
    with open(folder / "queue.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with open(folder / "queue.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[c for c in rows[0] if c != "arxiv_category"], lineterminator="\n",
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    as_found(folder)
    assert cli("validate", "--root", root).code == 0
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include"}})
    assert cli("update", "apply", "--root", root, folder.name).code == 0
    assert "primaryclass" not in yaml.safe_load((root / "corpus/papers/dijkstra2026.yaml").read_text())["bibtex"]


def test_a_row_decided_against_its_record_after_it_was_applied_is_named_not_skipped_silently(searched, cli):
    """A row changed from include to exclude after apply, and a row marked include after its paper was excluded by
    hand: apply said only "applied before" and exited 0."""
    root, folder = searched
    fill(folder / "queue.csv", {"arxiv:2606.00007": {"decision": "include"}})
    assert cli("update", "apply", "--root", root, folder.name).code == 0
    run = cli("exclude", "--root", root, "--url", "https://arxiv.org/abs/2605.10001v2", "--title",
              "Orchestrator Credit for Learned Agent Swarms", "--author", "Lovelace, Ada", "--year", "2026", "--reason",
              "no training", "--stage", "abstract_screen", "--reason-class", "X1", "--source", "arXiv",
              "--query-family", "multi-agent LLM")
    assert run.code == 0, run.err
    fill(folder / "queue.csv", {"arxiv:2606.00007": EXCLUDE, "arxiv:2605.10001": {"decision": "include"}})
    run = cli("update", "apply", "--root", root, folder.name)
    queue = f"corpus/rounds/{folder.name}/queue.csv"
    assert run.code == 0 and run.err.splitlines() == [
        f"warning: {queue}:3: the row says include, but its paper is excluded as exclusions/E034.yaml: the record "
        "decides; write exclude in the row, or change the record",
        f"warning: {queue}:4: the row says exclude, but its paper is retained as corpus/papers/dijkstra2026.yaml: the "
        "record decides; write include in the row, or change the record"], run.err


def test_a_protocol_that_cannot_be_read_is_named_once_not_called_missing(searched, cli):
    """`window_overlap_days: !!int 3` was named, and the protocol also called missing ("restore corpus/protocol.yaml")."""
    root, _folder = searched
    protocol = root / "corpus" / "protocol.yaml"
    protocol.write_text(protocol.read_text(encoding="utf-8") + "window_overlap_days: !!int 3\n", encoding="utf-8")
    run = cli("validate", "--root", root)
    assert run.code == 1 and "explicit tag" in run.err and "restore corpus/protocol.yaml" not in run.err, run.err
    protocol.write_text(protocol.read_text(encoding="utf-8").replace("window_overlap_days: !!int 3\n", "searchers: [\n"),
                        encoding="utf-8")
    run = cli("validate", "--root", root)  # a protocol that does not parse: its rows are not judged against nothing
    assert run.code == 1 and "corpus/protocol.yaml" in run.err and "is not a query family" not in run.err \
        and "is not a source label" not in run.err, run.err
