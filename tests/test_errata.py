"""A vocabulary cut short by YAML is refused; a frozen release's wording is corrected only by a
recorded erratum; every change to a frozen release shows in `masrl diff`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import grow
import pytest
import yaml

from masrl.core import clock
from masrl.checks.validate import validate
from masrl.corpus.errata import errata_from
from masrl.corpus.load import load, parse_tree, read_tree
from masrl.corpus.migrate import migrate
from masrl.corpus.population import releases
from masrl.corpus.releases import content_digest, releases_from
from trees import grown_only  # noqa: F401 - the grown tree only


def build_pending(root: Path):
    from masrl.build.pipeline import build

    return build(load(root), {}).pending


def _problems(root: Path, edits: dict[str, bytes]):
    return validate(parse_tree({**read_tree(root), **edits}))


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@example.org", "PATH": "/usr/bin:/bin", "HOME": str(root)}).stdout


# ---------------------------------------------------------------------------- the vocabulary
def test_no_value_of_the_vocabulary_has_a_key_without_a_value(published_tree):
    taxonomy = yaml.safe_load((published_tree / "corpus/taxonomy.yaml").read_text(encoding="utf-8"))
    empty = [(f, code, k) for f, spec in taxonomy["fields"].items() for code, value in spec["values"].items()
             for k, v in value.items() if v is None]
    assert empty == []
    assert taxonomy["fields"]["reward_type"]["values"]["role"]["definition"] == \
        "rewards that differ by role (planner, executor, critic)"


def test_a_definition_cut_at_a_comma_is_refused_with_the_text_to_quote(published_tree):
    text = (published_tree / "corpus/taxonomy.yaml").read_text(encoding="utf-8")
    cut = text.replace('definition: "rewards that differ by role (planner, executor, critic)"',
                       "definition: rewards that differ by role (planner, executor, critic)")
    assert cut != text
    problems = [p for p in _problems(published_tree, {"corpus/taxonomy.yaml": cut.encode()}) if p.code == "T019"]
    assert [(p.field, p.message) for p in problems] == [(
        "fields.reward_type.values.role.definition",
        "the text was cut at a comma: YAML read 'rewards that differ by role (planner' and made 'executor', 'critic)' "
        "keys without a value; quote the whole text: definition: \"rewards that differ by role (planner, executor, critic)\"")]
    assert problems[0].line == text[: text.index("      role: {label: role-specific")].count("\n") + 1


ALLOWED = "label, definition, source, representatives, anchors, implies (a field adds its own in value_attributes)"


@pytest.mark.parametrize("extra, message", [
    ("colour: red", f"'colour' is an unknown key; allowed: {ALLOWED}"),
    ("labl: x", f"'labl' is an unknown key; allowed: {ALLOWED} (did you mean 'label'?)"),
    ("stray: null", f"'stray' is a key without a value; allowed: {ALLOWED}"),
    ("bracket: x", f"'bracket' is an unknown key; allowed: {ALLOWED}"),  # credit_granularity's, not reward_type's
])
def test_unknown_and_empty_keys_of_a_value_are_refused(published_tree, extra, message):
    text = (published_tree / "corpus/taxonomy.yaml").read_text(encoding="utf-8")
    anchor = "      process: {label: process reward,"
    edited = text.replace(anchor, "      process: {" + extra + ", label: process reward,")
    problems = [p for p in _problems(published_tree, {"corpus/taxonomy.yaml": edited.encode()}) if p.code == "T019"]
    assert [p.message for p in problems] == [message]


def test_a_field_names_the_editorial_attributes_of_its_values(published_tree):
    text = (published_tree / "corpus/taxonomy.yaml").read_text(encoding="utf-8")
    edited = text.replace("      process: {label: process reward,", "      process: {colour: red, label: process reward,")
    head = "  reward_type:\n    applies_to: retained\n"
    assert head in edited
    declared = edited.replace(head, head + "    value_attributes: [colour]\n")
    assert [p.message for p in _problems(published_tree, {"corpus/taxonomy.yaml": declared.encode()}) if p.code == "T019"] == []
    # the bundled taxonomy's own attributes are declared where they are used
    taxonomy = yaml.safe_load(text)
    assert taxonomy["fields"]["credit_granularity"]["value_attributes"] == ["bracket"]
    assert taxonomy["fields"]["query_family"]["value_attributes"] == ["protocol_family"]


# ---------------------------------------------------------------------------- the erratum of v1
def test_the_v1_erratum_corrects_the_eight_definitions_and_nothing_else(published_tree):
    corpus = load(published_tree)
    v1 = next(p for p in releases(corpus) if p.name == "v1")
    frozen = corpus.snapshots["corpus/releases/v1.yaml"]
    recorded = next(r for r in releases_from(corpus.releases) if r.name == "v1").content_sha256
    assert content_digest(frozen) == recorded  # the snapshot itself is as published
    errata = [e for e in errata_from(corpus.releases) if e.release == "v1"]
    assert len(errata) == 1 and len(errata[0].corrections) == 8 and v1.errata == tuple(errata)
    # the corrected vocabulary of v1 is the current one wherever the erratum touched it
    for c in errata[0].corrections:
        assert v1.taxonomy["fields"][c.field]["values"][c.value][c.key] == \
            corpus.taxonomy["fields"][c.field]["values"][c.value][c.key] == c.now
        assert frozen["taxonomy"]["fields"][c.field]["values"][c.value][c.key] == c.was
    # and nothing else of it changed: read in the current format, v1's fields are the current ones
    # but for the values added to the vocabulary since (the sources Crossref and Semantic Scholar and
    # the query family citation searching, of update rounds) and `suggest: false` on verified (what
    # masrl suggest leaves to a person; no value changed)
    then, now = migrate(v1.taxonomy)["fields"], corpus.taxonomy["fields"]
    assert [f for f in now if then.get(f) != now[f]] == ["verified", "source", "query_family"]
    assert set(now["source"]["values"]) - set(then["source"]["values"]) == {"Crossref", "Semantic Scholar"}
    assert set(now["query_family"]["values"]) - set(then["query_family"]["values"]) == {"citation searching"}
    assert {k: v for k, v in now["verified"].items() if k != "suggest"} == then["verified"] and now["verified"]["suggest"] is False
    assert {**then["source"], "values": None} == {**now["source"], "values": None}
    assert {**then["query_family"], "values": None} == {**now["query_family"], "values": None}
    # the records are the frozen ones, value for value
    assert list(v1.retained) == [frozen["retained"][k] for k in sorted(frozen["retained"])]


def test_releases_md_and_the_release_reports_show_the_erratum(published_tree):
    text = (published_tree / "reports/RELEASES.md").read_text(encoding="utf-8")
    assert "- v1: `" + load(published_tree).releases["releases"][0]["content_sha256"] + "`" in text
    assert ("  - reward_type: role (definition): “rewards that differ by role (planner” → "
            "“rewards that differ by role (planner, executor, critic)”") in text
    assert "Erratum of 2026-12-01: 8 corrections of the vocabulary's wording (see `reports/RELEASES.md`)." in \
        (published_tree / "reports/releases/v1/STATS.md").read_text(encoding="utf-8")


def _with_erratum(root: Path, **fields) -> bytes:
    data = yaml.safe_load((root / "corpus/releases.yaml").read_text(encoding="utf-8"))
    correction = {"field": "reward_type", "value": "shared", "key": "label", "was": "shared team reward", "now": "shared reward"}
    correction.update(fields.pop("correction", {}))
    entry = {"release": "v1", "date": "2026-11-30", "reason": "a clearer label", "corrections": [correction], **fields}
    data["errata"] = [*data.get("errata", []), entry]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode()


@pytest.mark.parametrize("change, field, message", [
    ({"correction": {"was": "shared reward team"}}, "corrections[0].was",
     "the snapshot of v1 holds 'shared team reward' at reward_type: shared (label), not 'shared reward team'; an erratum "
     "states the text it replaces"),
    ({"correction": {"value": "no_such_value"}}, "corrections[0].value",
     "'no_such_value' is not a value of reward_type in release v1's vocabulary"),
    ({"correction": {"field": "no_such_field"}}, "corrections[0].field",
     "'no_such_field' is not a field of release v1's vocabulary"),
    ({"correction": {"key": "source"}}, "corrections[0].key", "'source' is not in the vocabulary; allowed: label, definition"),
    ({"correction": {"now": "shared team reward"}}, "corrections[0].now", "is the text the snapshot holds; an erratum changes it"),
    ({"correction": {"now": "individual reward"}}, "corrections[0].now",  # two columns of one name stopped the build
     "'individual reward' is the label of value 'individual' of reward_type in release v1's vocabulary: each value of a "
     "field has a label of its own (tables and figures name it by it)"),
    ({"correction": {"now": "two\nlines"}}, "corrections[0].now",
     "must be one line of printable text, without leading or trailing spaces"),
    ({"correction": {"drop": ["label"]}}, "corrections[0].drop",
     "'label' holds a value; an erratum drops only keys without one (the rest of a text YAML cut at a comma)"),
    ({"correction": {"retained": {"c3": {"reward_type": "role"}}}}, "corrections[0].retained",
     "unknown field 'retained'; allowed: field, value, key, was, now, drop"),
    ({"release": "v9"}, "release", "'v9' is not a release with a valid snapshot (releases: v1)"),
    ({"date": "2026-05-03"}, "date", "2026-05-03 is before the release date of v1 (2026-05-04)"),
    ({"date": "2999-01-01"}, "date", f"2999-01-01 is in the future (today is {clock.today().isoformat()})"),
])
def test_an_erratum_changes_only_the_wording_it_names(published_tree, change, field, message):
    problems = [p for p in _problems(published_tree, {"corpus/releases.yaml": _with_erratum(published_tree, **change)}) if p.code == "S002"]
    assert [(p.field, p.message) for p in problems] == [(f"errata[1].{field}", message)]


@pytest.mark.parametrize("malformed, problem, typo", [
    ("errata", ("errata[0]", "expected a mapping, got the string 'just a string'"), "errata[1].corrections[0]"),
    ("releases", ("releases[0]", "expected a mapping, got the integer 42"), "errata[0].corrections[0]"),
    ("correction", ("errata[0].corrections[0]", "expected a mapping, got the integer 42"), "errata[0].corrections[1]"),
])
def test_a_malformed_entry_of_the_releases_file_hides_no_other_problem(published_tree, malformed, problem, typo):
    text = (published_tree / "corpus/releases.yaml").read_text(encoding="utf-8")
    text = text.replace("field: reward_type\n", "field: reward_typo\n", 1)
    text = {"errata": lambda t: t.replace("errata:\n", "errata:\n  - just a string\n", 1),
            "releases": lambda t: t.replace("releases:\n  - name: v1", "releases:\n  - 42\n  - name: v1", 1),
            "correction": lambda t: t.replace("    corrections:\n", "    corrections:\n      - 42\n", 1)}[malformed](text)
    problems = _problems(published_tree, {"corpus/releases.yaml": text.encode()})
    assert [(p.field, p.message) for p in problems] == [
        problem, (f"{typo}.field", "'reward_typo' is not a field of release v1's vocabulary")]


def test_an_erratum_with_a_bad_date_still_names_an_unknown_release(published_tree):
    text = (published_tree / "corpus/releases.yaml").read_text(encoding="utf-8")
    text = text.replace("errata:\n  - release: v1\n    date: '2026-12-01'\n", "errata:\n  - release: v9\n    date: 'bad'\n", 1)
    problems = _problems(published_tree, {"corpus/releases.yaml": text.encode()})
    assert [(p.field, p.message) for p in problems] == [
        ("errata[0].release", "'v9' is not a release with a valid snapshot (releases: v1)"),
        ("errata[0].date", "'bad' is not a date written YYYY-MM-DD")]


def test_a_valid_new_erratum_passes_and_changes_the_release_label(published_tree):
    files = {**read_tree(published_tree), "corpus/releases.yaml": _with_erratum(published_tree)}
    corpus = parse_tree(files)
    assert validate(corpus) == []
    v1 = next(p for p in releases(corpus) if p.name == "v1")
    assert v1.taxonomy["fields"]["reward_type"]["values"]["shared"]["label"] == "shared reward"


def test_a_new_release_keeps_the_errata(survey, cli):
    grow.confirm_drafts(survey)  # a contributor's drafted tags, confirmed as a maintainer does before releasing
    assert build_pending(survey)  # something to freeze
    before = errata_from(load(survey).releases)
    name = "v" + str(len(releases_from(load(survey).releases)) + 1)
    run = cli("release", "--root", survey, name, "--date", clock.today().isoformat())
    assert run.code == 0, run.err
    corpus = load(survey)
    assert errata_from(corpus.releases) == before and validate(corpus) == []


# ---------------------------------------------------------------------------- masrl diff of a frozen release
@pytest.fixture
def committed(survey):
    git(survey, "init", "-q")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    return survey


def test_diff_shows_an_edited_snapshot_with_a_matching_digest(committed, cli):
    snap = committed / "corpus/releases/v1.yaml"
    text = snap.read_text(encoding="utf-8")
    old_value = yaml.safe_load(text)["excluded"]["E001"]["exclusion_reason"]
    new_value = "a reason the release never published"
    edited = text.replace(f"    exclusion_reason: {old_value}\n", f"    exclusion_reason: {new_value}\n", 1)
    assert edited != text
    snap.write_text(edited, encoding="utf-8")
    old_digest = load(committed).releases["releases"][0]["content_sha256"]
    new_digest = content_digest(yaml.safe_load(edited))
    listing = committed / "corpus/releases.yaml"
    listing.write_text(listing.read_text(encoding="utf-8").replace(old_digest, new_digest), encoding="utf-8")
    assert cli("validate", "--root", committed).code == 0  # the digest matches: validate cannot see it
    assert cli("build", "--root", committed).code == 0
    run = cli("diff", "--root", committed, "HEAD")
    assert run.code == 0, run.err
    section = run.out[run.out.index("### Releases"):run.out.index("### Claims")]
    assert "- **release v1 changed: its frozen snapshot is not what was published.**" in section
    assert f"  - digest recorded in `corpus/releases.yaml`: `{old_digest}` → `{new_digest}`" in section
    assert f"  - excluded record `E001`, `exclusion_reason`: {old_value} → {new_value}" in section
    assert "  - report changed: `reports/releases/v1/exclusions.md`" in section
    unchanged = cli("diff", "--root", committed, "HEAD", "--json")
    frozen = __import__("json").loads(unchanged.out)["frozen"]
    assert [f["release"] for f in frozen] == ["v1"] and frozen[0]["snapshot_changed"] is True


def test_diff_shows_a_report_of_a_release_edited_by_hand(committed, cli):
    path = committed / "reports/releases/v1/gaps.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nedited\n", encoding="utf-8")
    section = cli("diff", "--root", committed, "HEAD").out.split("### Releases", 1)[1].split("### Claims")[0]
    assert section.strip().splitlines() == ["- release v1:", "  - report changed: `reports/releases/v1/gaps.md`"]


def test_diff_shows_a_changed_listing_and_a_claim_no_longer_frozen(committed, cli):
    """A release's search cutoff and title (which its reports state) and the claims it froze are in corpus/releases.yaml,
    outside the snapshot's digest: the diff of a pull request names every change of them."""
    path = committed / "corpus/releases.yaml"
    text = path.read_text(encoding="utf-8")
    digest = re.search(r"\n      message-credit-v1: ([0-9a-f]{64})\n", text).group(1)
    edited = (text.replace("    search_cutoff: '2026-05-04'\n", "    search_cutoff: '2026-04-01'\n", 1)
              .replace(f"      message-credit-v1: {digest}\n", "", 1))
    path.write_text(edited, encoding="utf-8")
    assert cli("validate", "--root", committed).code == 0  # v1's snapshot predates its search cutoff's freeze
    section = cli("diff", "--root", committed, "HEAD").out.split("### Releases", 1)[1].split("### Claims")[0]
    assert section.strip().splitlines() == [
        "- release v1:",
        "  - `search_cutoff` in `corpus/releases.yaml`: 2026-05-04 → 2026-04-01 (the release's reports state it)",
        "  - **claim no longer frozen with the release: `message-credit-v1`** (an edit of what it counts would change the "
        "release's numbers)"], section
    frozen = json.loads(cli("diff", "--root", committed, "HEAD", "--json").out)["frozen"]
    assert frozen[0]["listing"] == [{"key": "search_cutoff", "before": "2026-05-04", "after": "2026-04-01"}]
    assert frozen[0]["claims"] == {"frozen": [], "unfrozen": ["message-credit-v1"], "changed": []}
    # what a frozen claim counts edited with its digest to match: valid, and named
    from masrl.corpus.releases import claim_digest

    claims = committed / "corpus/claims.yaml"
    claims.write_text(claims.read_text(encoding="utf-8").replace(
        "where: {credit_granularity: message}, count: 2, macro: MessageCreditBroad}",
        "where: {credit_granularity: message}, min_count: 1, macro: MessageCreditBroad}", 1), encoding="utf-8")
    path.write_text(text.replace(digest, claim_digest(next(c for c in load(committed).claims if c["id"] == "message-credit-v1"))),
                    encoding="utf-8")
    assert cli("validate", "--root", committed).code == 0
    section = cli("diff", "--root", committed, "HEAD").out.split("### Releases", 1)[1].split("### Claims")[0]
    assert section.strip().splitlines() == [
        "- release v1:", "  - **the digest of claim `message-credit-v1`'s frozen checks changed** (what it counts is one of "
        "the release's numbers)"], section


def test_diff_shows_reports_of_no_release(committed, cli):
    """A copy of v1's reports under a name no release has would pass for a release's published numbers."""
    import shutil

    shutil.copytree(committed / "reports/releases/v1", committed / "reports/releases/v7")
    git(committed, "add", "-A")  # the diff compares what a pull request would hold
    count = sum(1 for p in (committed / "reports/releases/v7").rglob("*") if p.is_file())
    section = cli("diff", "--root", committed, "HEAD").out.split("### Releases", 1)[1].split("### Claims")[0]
    assert section.strip().splitlines() == [
        f"- **`reports/releases/v7/` holds reports of no release** ({count} file(s) added or changed; `corpus/releases.yaml` "
        "lists no v7): only `masrl build` writes a release's reports; remove them."], section
    frozen = json.loads(cli("diff", "--root", committed, "HEAD", "--json").out)["frozen"]
    assert [f["release"] for f in frozen] == ["v7"] and len(frozen[0]["unlisted"]["added"]) == count


def test_diff_shows_a_new_erratum_and_nothing_for_an_untouched_release(committed, cli):
    assert "No release was frozen, removed or changed." in cli("diff", "--root", committed, "HEAD").out
    (committed / "corpus/releases.yaml").write_bytes(_with_erratum(committed))
    section = cli("diff", "--root", committed, "HEAD").out.split("### Releases", 1)[1].split("### Claims")[0]
    assert "  - erratum added (2026-11-30): a clearer label\n    - reward_type: shared (label): “shared team reward” → " \
           "“shared reward”\n" in section
    assert "frozen snapshot is not what was published" not in section


def test_diff_compares_with_a_revision_whose_vocabulary_was_cut(committed, cli):
    """A revision older than the rule that refuses cut texts is still compared (its vocabulary as it was)."""
    tax = committed / "corpus/taxonomy.yaml"
    text = tax.read_text(encoding="utf-8")
    tax.write_text(text.replace('definition: "deep research, search and information seeking"',
                                "definition: deep research, search and information seeking"), encoding="utf-8")
    git(committed, "commit", "-qam", "cut")
    tax.write_text(text, encoding="utf-8")
    run = cli("diff", "--root", committed, "HEAD")
    assert run.code == 0, run.err
    assert re.search(r"No record changed\.", run.out)
    run = cli("diff", "--root", committed, "HEAD~1")
    assert run.code == 0 and run.out.startswith("## masrl diff `HEAD~1` → working tree\n")  # the revision as typed


def test_a_text_cut_at_a_comma_anywhere_in_the_taxonomy_is_refused(published_tree):
    text = (published_tree / "corpus/taxonomy.yaml").read_text(encoding="utf-8")
    cut = text.replace("R2: {name: Individual agent,", "R2: {name: Individual, agent,", 1)
    assert cut != text
    problems = [p for p in _problems(published_tree, {"corpus/taxonomy.yaml": cut.encode()}) if p.code == "T021"]
    assert [(p.field, p.message) for p in problems] == [(
        "tables[0].families.R2.name",
        "the text was cut at a comma: YAML read 'Individual' and made 'agent' a key without a value; quote the whole "
        "text: name: \"Individual, agent\"")]
    assert problems[0].line == cut[: cut.index("      R2: {name: Individual,")].count("\n") + 1
    empty = text.replace("sparse_threshold: 2", "sparse_threshold:", 1)
    assert [(p.field, p.message) for p in _problems(published_tree, {"corpus/taxonomy.yaml": empty.encode()}) if p.code == "T021"] \
        == [("sparse_threshold", "'sparse_threshold' has no value; write one, or remove the key")]


def test_two_figures_of_one_name_are_refused(published_tree):
    text = (published_tree / "corpus/taxonomy.yaml").read_text(encoding="utf-8")
    taxonomy = yaml.safe_load(text)
    first, second = taxonomy["figures"][0]["name"], taxonomy["figures"][1]["name"]
    twice = text.replace(f"name: {second}", f"name: {first}", 1)
    assert twice != text
    problems = [p for p in _problems(published_tree, {"corpus/taxonomy.yaml": twice.encode()}) if p.code == "T012"]
    assert [(p.field, p.message) for p in problems] == [(
        "figures[1].name", f"{first!r} is declared twice (also figures[0]); figures are files, so give this one another name")]
