"""`masrl release`: the pool frozen as the next release, release v1 kept as published, and every
name, date, cutoff and hand edit of a snapshot that would make a release lie refused.

Each expectation comes from the tree in front of the test (the latest release, the next free
release name); only release v1's published numbers are literals."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import grow
import pytest

from masrl.core import clock
from masrl.corpus.load import load
from living import files_under, current
from trees import grown_only  # noqa: F401 - the grown tree only


# ---------------------------------------------------------------------------- masrl release


def test_release_freezes_the_pool_and_keeps_v1(cli, grown_survey):
    grow.confirm_drafts(grown_survey)  # a contributor's drafted tags, confirmed as a maintainer does before releasing
    released_files = files_under(grown_survey, "reports/releases")
    grown = current(grown_survey)
    name = grow.next_release_name(grown_survey)
    today = clock.today().isoformat()
    run = cli("release", "--root", grown_survey, name, "--date", today, "--title", "Update of December 2026")
    assert run.code == 0, run.err
    pend = grown.pending
    assert run.out.splitlines()[0] == (
        f"froze release {name} ({today}): {grown.pool.headline['retained']} retained records and "
        f"{grown.pool.headline['excluded']} excluded records; {pend.describe(f'release {grown.baseline.name}')}")
    assert pend.describe(f"release {grown.baseline.name}").startswith(
        f"{len(pend.retained)} retained records and {len(pend.excluded)} excluded record{'s' if len(pend.excluded) != 1 else ''} "
        f"added since release {grown.baseline.name}")
    assert run.out.splitlines()[-1].startswith(f"then record its digest outside the files: git tag -a release-{name} -m ")
    assert cli("build", "--root", grown_survey, "--no-figures").code == 0
    assert {k: v for k, v in files_under(grown_survey, "reports/releases").items()
            if not k.startswith(f"reports/releases/{name}/")} == released_files  # every earlier release, byte for byte
    result = current(grown_survey)
    assert [r.name for r in result.releases] == [*[r.name for r in grown.releases], name] and not result.pending
    flow = result.pool.prisma["update"]  # nothing added since: the pool's flow is the release's own, an update of the one before
    assert flow == result.population(name).prisma["update"] and flow["previous"].startswith(f"release {grown.baseline.name} (")
    assert result.population(name).prisma["update"]["previous_included"] == grown.baseline.headline["retained"]
    numbers = (grown_survey / "reports/tex/numbers.tex").read_text()
    assert f"\\newcommand{{\\NumRetained}}{{{grown.pool.headline['retained']}}}\n" in numbers  # the latest release
    assert "\\newcommand{\\NumRetained}{84}\n" in (grown_survey / "reports/releases/v1/tex/numbers.tex").read_text()
    again = cli("release", "--root", grown_survey, "zz-next", "--date", today)
    assert again.code == 1 and again.err.splitlines()[-1] == (
        f"masrl: error: nothing is pending: the pool is identical to release {name}; add, exclude or correct records first")
    # a correction alone (one record retagged) is a change the next release can freeze
    grow.set_field(grown_survey / "corpus/papers/magrpo.yaml", "scenario", "web")
    assert cli("build", "--root", grown_survey, "--no-figures").code == 0
    assert "The current pool (1 record changed since release " + name + " in the field scenario)." in \
        (grown_survey / "reports/STATS.md").read_text()
    assert "- changed `magrpo`: " in (grown_survey / "reports/RELEASES.md").read_text()
    fixed = cli("release", "--root", grown_survey, "zz-next", "--date", today)
    assert fixed.code == 0, fixed.err
    assert fixed.out.splitlines()[0].endswith(f"excluded records; 1 record changed since release {name} in the field scenario")


def release_facts(root: Path) -> dict:
    """The next free release name, and the name and date of the last release, of the tree at ``root``."""
    from masrl.corpus.releases import releases_from

    last = releases_from(load(root).releases)[-1]
    return {"next": grow.next_release_name(root), "last": last.name, "last_date": last.date}


@pytest.mark.parametrize("args, message", [
    (["v1", "--date", "2026-12-01"], "command line: NAME: release 'v1' exists already; the next name could be {next}"),
    (["pool", "--date", "2026-12-01"], "command line: NAME: 'pool' is not a release name"),
    (["{next}", "--date", "2026-04-01"], "command line: --date: 2026-04-01 is before the last release {last} ({last_date})"),
    (["{next}", "--date", "2026-02-30"], "command line: --date: '2026-02-30' names no day of the calendar: February 2026 has 28 days"),
    # names whose tag release-NAME (the one masrl release asks for) git refuses
    (["v2.", "--date", "2026-12-01"], "command line: NAME: 'v2.' ends with '.', which git refuses at the end of the tag "
                                      "release-v2.; e.g. {next}"),
    (["v2..1", "--date", "2026-12-01"], "command line: NAME: 'v2..1' holds '..', which git refuses in the tag release-v2..1"),
    (["v2.lock", "--date", "2026-12-01"], "command line: NAME: 'v2.lock' ends with '.lock', which git refuses"),
])
def test_release_refuses_bad_names_and_dates(survey, cli, args, message):
    facts = release_facts(survey)
    args, message = [a.format(**facts) for a in args], message.format(**facts)
    before = sorted(p.name for p in (survey / "corpus/releases").iterdir())
    run = cli("release", "--root", survey, *args)
    assert run.code == 1 and any(line.startswith(message) for line in run.err.splitlines()), run.err
    assert sorted(p.name for p in (survey / "corpus/releases").iterdir()) == before


def test_a_bad_release_name_does_not_hide_the_dates_problems(survey, cli):
    """Every problem of the command line in one run: a name taken, a date in the future, a cutoff after the date."""
    facts = release_facts(survey)
    run = cli("release", "--root", survey, facts["last"], "--date", "2027-01-20", "--cutoff", "2027-01-25")
    assert run.code == 1
    assert [line.split(": ", 2)[1] for line in run.err.splitlines() if line.startswith("command line: ")] == [
        "NAME", "--date", "--cutoff"], run.err


def test_a_release_needs_a_record_added_on_or_before_its_date(survey, cli):
    facts = release_facts(survey)
    if facts["last_date"] >= clock.today().isoformat():
        pytest.skip(f"the last release ({facts['last']}) is dated today: no release date is both on or after it and "
                    "before a record added today")
    grow.add_paper(cli, survey, grow.PAPERS[0])
    date = facts["last_date"]  # the earliest date the next release may have
    run = cli("release", "--root", survey, facts["next"], "--date", date)
    assert run.code == 1 and f"record(s) were added after {date}, so a release of that date cannot hold them: " in run.err
    assert "orchestra-rl2026 (" in run.err


def test_a_release_names_every_reason_it_refuses_in_one_run(survey, cli):
    from masrl.corpus.provenance import unconfirmed_fields

    facts = release_facts(survey)
    if facts["last_date"] >= clock.today().isoformat():
        pytest.skip(f"the last release ({facts['last']}) is dated today: no release date is both on or after it and "
                    "before a record added today")
    run = cli("add", "--root", survey, "--no-fetch", "--arxiv", "2612.00001", "--title", "Learning to Orchestrate Parallel "
              "Sub-Agents", "--author", "Liu, Shuo", "--year", "2026")
    assert run.code == 0, run.err
    assert cli("suggest", "--root", survey, "liu2026", "--draft").code == 0
    grow.set_field(survey / "corpus/papers/liu2026.yaml", "one_liner", "Trains an orchestrator of parallel sub-agents")
    grow.set_field(survey / "corpus/papers/liu2026.yaml", "verified", "'no'")
    corpus = load(survey)
    drafts = sorted(r["key"] for r in corpus.retained.values() if unconfirmed_fields(r))
    date = facts["last_date"]
    late = [r for r in [*corpus.retained.values(), *corpus.excluded.values()] if r.get("date_added", "") > date]
    run = cli("release", "--root", survey, facts["next"], "--date", date)
    assert run.code == 1
    lines = run.err.splitlines()
    assert lines[-3:-2] == ["masrl: error: the release is refused for 2 reasons; nothing was written:"], run.err
    assert lines[-2].startswith(f"1. {len(drafts)} record(s) hold suggested tags no person has confirmed: {drafts[0]} (")
    assert lines[-1].startswith(f"2. {len(late)} record(s) were added after {date}, so a release of that date cannot hold them: ")
    assert "liu2026 (" in lines[-2] and "liu2026 (" in lines[-1]
    assert not (survey / f"corpus/releases/{facts['next']}.yaml").exists()


def test_a_bad_argument_and_an_invalid_record_are_named_in_one_run(survey, cli, set_field):
    set_field(survey / "corpus/papers/marft.yaml", "reward_type", "hybird")
    run = cli("release", "--root", survey, grow.next_release_name(survey), "--date", "2026-02-30")
    assert run.code == 1
    lines = run.err.splitlines()
    assert "command line: --date: '2026-02-30' names no day of the calendar: February 2026 has 28 days" in lines
    assert any(line.startswith("corpus/papers/marft.yaml:") and "reward_type: 'hybird' is not in the vocabulary" in line
               for line in lines)
    assert lines[-1] == ("masrl: error: 2 errors in 1 file and the command line; nothing was released (fix the records, "
                         "then release again).")


def test_a_name_a_release_froze_is_refused_to_another_paper_and_kept_through_a_correction(survey, cli):
    """A frozen exclusion id (or key) whose file now holds another paper (a rebase, a cherry-pick, a hand edit gave it
    the name) is named; a corrected title, or a corrected id, keeps the paper."""
    path = survey / "exclusions/E001.yaml"
    text = path.read_text()
    path.write_text(text.replace("Multiagent Debate", "Multi-Agent Debate"))  # a correction of the title
    assert cli("validate", "--root", survey).code == 0
    path.write_text(text.replace("'2305.14325'", "'2305.14326'").replace("2305.14325", "2305.14326"))  # of the id
    assert cli("validate", "--root", survey).code == 0
    path.write_text(text.replace("Improving Factuality and Reasoning in Language Models through Multiagent Debate",
                                 "Voyager, An Open-Ended Embodied Agent").replace("2305.14325", "2305.16291"))
    run = cli("validate", "--root", survey)
    latest = load(survey).releases["releases"][-1]["name"]  # the latest release that holds E001
    assert run.code == 1 and run.err.splitlines()[0] == (
        "exclusions/E001.yaml:2: screening_label: 'Voyager, An Open-Ended Embodied Agent' is another paper than the one "
        f"release {latest} froze as E001 ('Improving Factuality and Reasoning in Language Models through Multiagent Debate'; "
        "no id in common): a released name is that paper's for good. Give this paper a new id and E001 back to the paper "
        "the release holds"), run.err


def test_a_frozen_key_given_to_a_paper_whose_title_differs_by_a_number_is_refused(survey, cli):
    """'DeepSeek-R3' is not 'DeepSeek-R1' (the duplicate rule's numbers), though the titles are 98% alike."""
    path = survey / "corpus/papers/deepseek-r12025.yaml"
    path.write_text(path.read_text().replace("DeepSeek-R1", "DeepSeek-R3").replace("2501.12948", "2612.09999"))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and re.search(r"title: 'DeepSeek-R3: Incentivizing Reasoning Capability in LLMs via Reinforcement "
                                       r"Learning' is another paper than the one release v\d+ froze as deepseek-r12025 "
                                       r"\('DeepSeek-R1: ", run.err), run.err


def test_a_record_corrected_in_two_releases_is_judged_by_the_latest_that_froze_it(survey, cli):
    """A title corrected and released (v2), then the id corrected: one paper, as v2 holds it."""
    path = survey / "exclusions/E001.yaml"
    path.write_text(path.read_text().replace(
        "Improving Factuality and Reasoning in Language Models through Multiagent Debate", "Debating Agents Improve Factual Answers"))
    assert cli("validate", "--root", survey).code == 0
    assert cli("release", grow.next_release_name(survey), "--root", survey, "--date", clock.today_iso(),
               "--allow-undecided").code == 0
    path.write_text(path.read_text().replace("2305.14325", "2305.14326"))
    run = cli("validate", "--root", survey)
    assert run.code == 0, run.err


def test_an_edited_snapshot_is_refused(survey, cli):
    path = survey / "corpus/releases/v1.yaml"
    path.write_text(path.read_text().replace("    credit_granularity: message\n", "    credit_granularity: mesage\n", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and "credit_granularity: 'mesage' is not in the release's vocabulary" in run.err


def test_a_hand_edited_snapshot_with_valid_values_is_refused(survey, cli):
    """An edit that keeps every value in the vocabulary would silently change the published numbers."""
    path = survey / "corpus/releases/v1.yaml"
    text = path.read_text()
    start = text.index("\n  c3:\n")
    at = text.index("    scenario: ", start)
    end = text.index("\n", at)
    path.write_text(text[:at] + "    scenario: coding" + text[end:])
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert run.err.startswith("corpus/releases/v1.yaml:6: the frozen snapshot of release v1 was edited: its content no "
                              "longer has the digest corpus/releases.yaml records (0b3908b3d662…, now "), run.err
    assert run.err.splitlines()[-1] == "1 error in 1 file; no file was changed."  # no cascade through the claims about v1
    assert "restore it (git checkout -- corpus/releases/v1.yaml) and edit the records instead" in run.err
    before = files_under(survey, "reports/releases/v1")
    assert cli("build", "--root", survey).code == 1
    assert files_under(survey, "reports/releases/v1") == before
    path.write_text(text.replace("# Do not edit:", "# (a comment edit changes no number) Do not edit:"))
    assert cli("validate", "--root", survey).code == 0


def test_release_refuses_an_earlier_cutoff_a_future_date_and_a_multiline_title(survey, cli):
    from masrl.corpus.releases import releases_from

    last = releases_from(load(survey).releases)[-1]
    name = grow.next_release_name(survey)
    grow.add_paper(cli, survey, grow.PAPERS[0])
    today = clock.today()
    for args, message in (
        (["--date", today.isoformat(), "--cutoff", "2026-04-01"],
         f"command line: --cutoff: 2026-04-01 is before the search cutoff of the last release {last.name} ({last.search_cutoff}); "
         "a later release covers at least as much"),
        (["--date", (today + datetime.timedelta(days=1)).isoformat()],
         f"command line: --date: {today + datetime.timedelta(days=1)} is in the future (today is {today}); freeze a release "
         "on or after its date"),
        (["--date", today.isoformat(), "--title", "a\nb"], "command line: --title: must be one line (no line break or tab)"),
    ):
        run = cli("release", "--root", survey, name, *args)
        assert run.code == 1 and message in run.err.splitlines(), run.err
    assert not (survey / f"corpus/releases/{name}.yaml").exists()
    grow.confirm_drafts(survey)  # a contributor's drafted tags, confirmed as a maintainer does before releasing
    run = cli("release", "--root", survey, name, "--date", today.isoformat())
    assert run.code == 0, run.err
    from masrl.corpus.releases import content_digest

    corpus = load(survey)
    new = releases_from(corpus.releases)[-1]
    assert new.name == name and new.content_sha256 == content_digest(corpus.snapshots[f"corpus/releases/{name}.yaml"])
    assert cli("validate", "--root", survey).code == 0


# ---------------------------------------------------------------------------- claims a release froze

NEW_CLAIM = ("\n  - id: {id}\n    scope: {scope}\n    statement: It holds {{n}} records with message-level credit.\n"
             "    evidence_boundary: the tag.\n    source: a reading.\n    status: current\n    checks:\n"
             "      - {{id: n, label: message credit, where: {{credit_granularity: message}}, min_count: {min}}}\n")


def test_what_a_claim_about_a_release_counts_is_frozen_with_it(survey, cli):
    """corpus/releases.yaml records the digest of the checks of each claim about v1: an edit of what one counts, a
    claim taken off v1 or out of the ledger is refused by validate and build (which write nothing); rewording it is
    not, and a new reading is a new claim with the old one superseded, leaving v1's numbers as they were."""
    path = survey / "corpus/claims.yaml"
    text = path.read_text()
    numbers = (survey / "reports/releases/v1/tex/numbers.tex").read_bytes()
    old = "where: {credit_granularity: message}, count: 2, macro: MessageCreditBroad}"
    assert old in text and "\\newcommand{\\MessageCreditBroad}{2}" in numbers.decode()
    line = text[:text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, "where: {credit_granularity: agent}, count: 23, macro: MessageCreditBroad}", 1))
    for args in (("validate",), ("build",), ("build", "--check")):
        run = cli(*args, "--root", survey)
        assert run.code == 1, run.err
        assert (f"corpus/claims.yaml:{line - 1}: claims[7].checks: what claim 'message-credit-v1' counts changed since release "
                "v1 froze it (corpus/releases.yaml records the digest of its checks): a release's numbers never change. "
                "Restore its checks (git diff corpus/claims.yaml); to state a new reading, add a claim about the pool (or a "
                "later release) and mark this one `status: superseded` with `superseded_by:` the new claim") in run.err.splitlines()
    assert (survey / "reports/releases/v1/tex/numbers.tex").read_bytes() == numbers
    path.write_text(text.replace("  - id: message-credit-v1\n    scope: v1\n", "  - id: message-credit-v1\n    scope: pool\n", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and ("claims[7].scope: 'pool', but release v1 froze this claim with its numbers (corpus/releases.yaml): "
                              "it stays about v1; to state a new reading") in run.err, run.err
    path.write_text(text.replace("  - id: message-credit-v1\n", "  - id: message-credit-v1b\n", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1, run.err
    assert ("releases[0].claims.message-credit-v1: claim 'message-credit-v1' about release v1 is not in corpus/claims.yaml, "
            "but the release froze it with its numbers: restore it") in run.err
    assert "warning: claim 'message-credit-v1b' is about release v1, which has not frozen it" in run.err
    reworded = text.replace("    status: current\n    checks:\n      - {id: broad, label: records with message-level credit",
                            "    status: superseded\n    superseded_by: message-credit-now\n    checks:\n"
                            "      - {id: broad, label: records with message-level credit", 1)
    assert reworded != text
    path.write_text(reworded + NEW_CLAIM.format(id="message-credit-now", scope="pool", min=1))
    run = cli("build", "--root", survey, "--no-figures")
    assert run.code == 0 and "warning" not in run.err, run.err
    assert (survey / "reports/releases/v1/tex/numbers.tex").read_bytes() == numbers


def test_a_claim_written_about_a_release_later_is_frozen_by_freeze_claims(survey, cli):
    """A claim about v1 written after v1 was frozen is named by a warning until `masrl release v1 --freeze-claims`
    records it; then an edit of what it counts is refused. Wrong uses of the option are named, writing nothing."""
    from masrl.corpus.releases import claim_digest, releases_from

    claims, listing = survey / "corpus/claims.yaml", survey / "corpus/releases.yaml"
    claims.write_text(claims.read_text() + NEW_CLAIM.format(id="message-credit-later", scope="v1", min=1))
    run = cli("validate", "--root", survey)
    assert run.code == 0 and ("warning: claim 'message-credit-later' is about release v1, which has not frozen it: until it "
                              "does, an edit of what the claim counts changes v1's published numbers; once the claim reads "
                              "as it should, `masrl release v1 --freeze-claims` freezes it") in run.err, run.err
    before = listing.read_bytes()
    for args, message in ((["nosuch"], "command line: NAME: 'nosuch' is not a release (releases: v1"),
                          (["v1", "--date", "2026-12-01"], "command line: --date: does not go with --freeze-claims")):
        run = cli("release", "--root", survey, *args, "--freeze-claims")
        assert run.code == 1 and any(x.startswith(message) for x in run.err.splitlines()), run.err
    run = cli("release", "--root", survey, "v1", "--freeze-claims", "--dry-run")
    assert run.code == 0 and run.out.startswith("dry run: would freeze the checks of 1 claim(s) about release v1: "
                                                "message-credit-later in corpus/releases.yaml"), run.out
    assert listing.read_bytes() == before
    run = cli("release", "--root", survey, "v1", "--freeze-claims")
    assert run.code == 0 and run.out.startswith("froze the checks of 1 claim(s) about release v1: message-credit-later\n")
    corpus = load(survey)
    frozen = releases_from(corpus.releases)[0].frozen_claims
    assert len(frozen) == 8 and frozen["message-credit-later"] == claim_digest(corpus.claims[-1])
    run = cli("validate", "--root", survey)
    assert run.code == 0 and "warning" not in run.err, run.err
    run = cli("release", "--root", survey, "v1", "--freeze-claims")
    assert run.code == 1 and run.err.startswith("masrl: error: no claim about release v1 is left to freeze: it froze "
                                                "headline-sparsity, "), run.err
    claims.write_text(claims.read_text().replace("min_count: 1}", "min_count: 2}"))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and "what claim 'message-credit-later' counts changed since release v1 froze it" in run.err
    run = cli("release", "--root", survey, "v9")
    assert run.code == 1 and "command line: --date: is required: the date of release 'v9' (YYYY-MM-DD)" in run.err, run.err
    listing.write_text(listing.read_text().replace("  headline-sparsity: ", "  Headline: 12\n      headline-sparsity: ", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1, run.err
    assert run.err.splitlines()[:2] == [
        "corpus/releases.yaml:24: releases[0].claims: 'Headline' is not a lower-case name: a letter or digit, then "
        "lower-case letters, digits, '.', '_' and '-'",
        "corpus/releases.yaml:24: releases[0].claims.Headline: expected a string, got the integer 12"], run.err


def test_freeze_claims_refuses_a_claim_that_fails(survey, cli):
    """A failing verdict frozen with a release could never be corrected: refused, naming the claim, writing nothing."""
    claims, listing = survey / "corpus/claims.yaml", survey / "corpus/releases.yaml"
    claims.write_text(claims.read_text() + NEW_CLAIM.format(id="message-credit-wrong", scope="v1", min=99))
    before = listing.read_bytes()
    run = cli("release", "--root", survey, "v1", "--freeze-claims")
    assert run.code == 1 and run.err.startswith(
        "masrl: error: current claim(s) message-credit-wrong about release v1 fail: freezing them would publish a failing "
        "verdict for good."), run.err
    assert listing.read_bytes() == before


def test_a_release_and_freeze_claims_keep_a_persons_comments_in_the_listing(survey, cli):
    """corpus/releases.yaml with comments of a person's: the lines a release or frozen claims add go in beside them;
    a listing whose lines masrl cannot place is refused, writing nothing, with the text it should hold."""
    listing, claims = survey / "corpus/releases.yaml", survey / "corpus/claims.yaml"
    text = listing.read_text()
    commented = text.replace("errata:\n", "# the errata, reviewed by A. B.\nerrata:\n", 1).replace(
        "    content_sha256:", "    # as tagged: release-v1\n    content_sha256:", 1)
    assert commented.count("#") == text.count("#") + 2
    listing.write_text(commented)
    claims.write_text(claims.read_text() + NEW_CLAIM.format(id="aaa-later", scope="v1", min=1))
    assert cli("release", "--root", survey, "v1", "--freeze-claims").code == 0
    after = listing.read_text()
    assert "# the errata, reviewed by A. B.\nerrata:\n" in after and "    # as tagged: release-v1\n    content_sha256:" in after
    assert after.replace("      aaa-later: ", "", 1) != after and cli("validate", "--root", survey).code == 0
    grow.add_paper(cli, survey, grow.PAPERS[0])
    grow.confirm_drafts(survey)
    name, today = grow.next_release_name(survey), clock.today().isoformat()
    lines = after.splitlines(keepends=True)
    last = lines.index("# the errata, reviewed by A. B.\n") - 1  # the last line of the releases list, spaced by hand
    lines[last] = lines[last].replace(": ", ":   ", 1) if ": " in lines[last] else lines[last].replace("- ", "-   ", 1)
    listing.write_text("".join(lines))
    assert cli("validate", "--root", survey).code == 0  # valid YAML of the same data
    run = cli("release", "--root", survey, name, "--date", today)
    assert run.code == 1 and run.err.startswith("masrl: error: corpus/releases.yaml holds comments or formatting that masrl "
                                                "cannot keep while it adds to the file; nothing was written."), run.err
    assert not (survey / f"corpus/releases/{name}.yaml").exists()
    listing.write_text(after)
    assert cli("release", "--root", survey, name, "--date", today).code == 0
    released = listing.read_text()
    assert "# the errata, reviewed by A. B.\nerrata:\n" in released and f"  - name: {name}\n" in released
    from masrl.corpus.releases import releases_from

    new = releases_from(load(survey).releases)[-1]
    assert (new.name, new.search_cutoff) == (name, today)
    snapshot = survey / f"corpus/releases/{name}.yaml"
    assert f"\nsearch_cutoff: '{today}'\n" in snapshot.read_text()  # frozen with the release, which its reports state
    listing.write_text(released.replace(f"    search_cutoff: '{today}'", "    search_cutoff: '2026-06-01'", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and (f"releases[{len(load(survey).releases['releases']) - 1}].search_cutoff: '2026-06-01', but the "
                              f"frozen snapshot corpus/releases/{name}.yaml says '{today}': a release's search cutoff never "
                              "changes (its reports state it)") in run.err, run.err
    listing.write_text(released)
    assert cli("build", "--root", survey, "--no-figures").code == 0
    gaps = (survey / f"reports/releases/{name}/gaps.md").read_text()
    assert ("Supports the claim `message-credit-sparse`, which is not about release " + name + ": the current claim ledger "
            "(`reports/claims.md`) evaluates it.") in gaps and "not in the claim ledger" not in gaps


def test_a_release_its_git_tag_says_was_published_cannot_be_reverted_or_edited_unseen(published_tree, tmp_path, cli, repo):
    """The tag `masrl release` asks for records the release's digest outside the files. A revert of the release's
    commit leaves no conflict and files consistent with each other; an edited snapshot with its digest recomputed
    too: validate and build --check compare them with the tag and name the release."""
    import shutil

    from masrl.corpus.releases import content_digest
    from living import git
    from trees import copy_tree

    survey = copy_tree(published_tree, tmp_path / "survey")
    shutil.copy(repo / ".gitattributes", survey / ".gitattributes")
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    name = grow.next_release_name(survey)
    run = cli("release", name, "--root", survey, "--date", clock.today().isoformat())
    assert run.code == 0, run.err
    (tag_command,) = [line.removeprefix("then record its digest outside the files: ").split(" (`masrl diff")[0]
                      for line in run.out.splitlines() if "git tag -a" in line]
    assert cli("build", "--root", survey, "--no-figures").code == 0
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", f"release {name}")
    grow.git(survey, *__import__("shlex").split(tag_command)[1:])  # the tag, as the release said
    assert cli("validate", "--root", survey).code == 0

    git(survey, "revert", "--no-edit", "HEAD")  # no conflict: the release's files are simply gone
    assert not (survey / f"corpus/releases/{name}.yaml").exists()
    run = cli("validate", "--root", survey)
    assert run.code == 1 and run.err.startswith("corpus/releases.yaml:") and (
        f"release {name} was published (git tag release-{name} records content_sha256 ") in run.err
    assert "no longer lists it: a published release is never removed" in run.err
    assert cli("build", "--root", survey, "--check", "--no-figures").code == 1

    git(survey, "revert", "--no-edit", "HEAD")  # the release back
    assert cli("validate", "--root", survey).code == 0
    snapshot = survey / f"corpus/releases/{name}.yaml"
    snapshot.write_text(snapshot.read_text().replace("title: ", "title: Edited ", 1))
    releases = survey / "corpus/releases.yaml"
    import yaml

    listed = next(r["content_sha256"] for r in yaml.safe_load(releases.read_text())["releases"] if r["name"] == name)
    digest = content_digest(load(survey).snapshots[f"corpus/releases/{name}.yaml"])
    releases.write_text(releases.read_text().replace(listed, digest))  # the files agree with each other again
    run = cli("validate", "--root", survey)
    assert run.err.count("\n") == 2 and "was edited" not in run.err, run.err  # the files agree: only the tag tells
    assert run.code == 1 and (f"content_sha256: {digest[:12]}…, but git tag release-{name} recorded {listed[:12]}… when the "
                              f"release was published: its snapshot changed since (`masrl diff release-{name}` shows how") in run.err
    text = re.sub(r"(?m)^\s*content_sha256: '?" + digest + "'?\n", "", releases.read_text())
    releases.write_text(text)  # the entry's digest deleted instead: the tag judges the snapshot
    assert digest not in releases.read_text()
    run = cli("validate", "--root", survey)
    assert run.code == 1 and f"release {name} lists no content_sha256, but git tag release-{name} recorded {listed[:12]}…" in run.err
    assert re.search(rf"corpus/releases/{name}.yaml:[0-9]+: the snapshot's content has the digest [0-9a-f]{{12}}…, but git tag "
                     rf"release-{name} recorded {listed[:12]}…", run.err), run.err
