"""Bad records give exact, complete error lines: file, line, field, bad value, what is allowed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from masrl.core import clock
from trees import published_only  # noqa: F401 - the published tree only


def line_of(path: Path, prefix: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith(prefix):
            return i
    raise AssertionError(prefix)


def errors(run) -> list[str]:
    return run.err.splitlines()


@pytest.mark.parametrize("tree", ["published", "grown"])
def test_the_bundled_corpus_is_valid(tree, cli, request):
    survey_tree = request.getfixturevalue(f"{tree}_tree")
    run = cli("validate", "--root", survey_tree)
    assert run.code == 0, run.err
    retained = len(list((survey_tree / "corpus/papers").glob("*.yaml")))
    excluded = len(list((survey_tree / "exclusions").glob("*.yaml")))
    audits = len(list((survey_tree / "corpus/audits").glob("*.yaml"))) + len(list((survey_tree / "corpus/audits").glob("*/audit.yaml")))
    lines = run.out.splitlines()
    assert lines[0] == f"ok: {retained} retained and {excluded} excluded records, taxonomy, claim ledger and {audits} audit(s) are valid"
    # a contributor's paper may hold drafted tags (masrl suggest --draft): valid, named in a note
    drafted = sorted(p.stem for p in (survey_tree / "corpus/papers").glob("*.yaml") if ", not confirmed\n" in p.read_text())
    assert len(lines) == 1 + bool(drafted), run.out
    if drafted:
        assert lines[1].startswith(f"note: {len(drafted)} record(s) hold suggested tags no person has confirmed: {drafted[0]} (")


def test_value_outside_the_vocabulary_with_suggestion(survey, cli, set_field):
    set_field(survey / "corpus/papers/marft.yaml", "reward_type", "hybird")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert errors(run) == [
        f"corpus/papers/marft.yaml:{line_of(survey / 'corpus/papers/marft.yaml', 'reward_type:')}: reward_type: 'hybird' is not in the vocabulary; allowed: shared, individual, "
        "role, process, tool, debate, verifier, orchestration, hybrid, NA (did you mean 'hybrid'?)",
        "1 error in 1 file; no file was changed.",
    ]


def test_a_tag_provenance_key_that_is_no_field_name_is_refused(survey, cli):
    path = survey / "corpus/papers/c3.yaml"
    text = path.read_text()
    assert "\ntag_provenance:\n" in text
    path.write_text(text.replace("\ntag_provenance:\n", '\ntag_provenance:\n  "cat\\negory": x\n  cat egory: y\n', 1))
    line = line_of(path, "tag_provenance:")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    why = "is not a field name: each key names the field whose tag it explains (letters, digits and '_')"
    assert errors(run) == [f"corpus/papers/c3.yaml:{line + 1}: tag_provenance: 'cat\\negory' {why}",  # each at its key's line
                           f"corpus/papers/c3.yaml:{line + 2}: tag_provenance: 'cat egory' {why}",
                           "2 errors in 1 file; no file was changed."]


def test_a_values_label_is_answered_with_its_code(survey, cli, set_field):
    """Run 38: 'not applicable' (NA's label) got no hint, here, in suggest --apply and in an audit's sheet."""
    set_field(survey / "corpus/papers/marft.yaml", "reward_type", "Not Applicable")
    assert "(did you mean 'NA'? 'not applicable' is its label: write the code)" in run_err(cli, survey)


def test_did_you_mean_maps_a_label_to_its_code_only_when_given_labels():
    from masrl.core.didyoumean import did_you_mean

    labels = {"NA": "not applicable", "hand_crafted": "hand-crafted", "learned": "learned"}
    assert did_you_mean("not  applicable", labels) == " (did you mean 'NA'? 'not applicable' is its label: write the code)"
    assert did_you_mean("Hand Crafted", labels) == " (did you mean 'hand_crafted'?)"  # the code's own words first
    assert did_you_mean("Learned by RL", {"learned": "learned by RL"}) == (
        " (did you mean 'learned'? 'learned by RL' is its label: write the code)")
    assert did_you_mean("learned", labels) == ""
    assert did_you_mean("not applicable", list(labels)) == ""
    assert did_you_mean("hand-crafted", {**labels, "hand_crafted": "Hand-crafted"}) == " (did you mean 'hand_crafted'?)"


def test_case_slip_is_suggested(survey, cli, set_field):
    set_field(survey / "corpus/papers/marft.yaml", "credit_granularity", "Agent")
    assert "(did you mean 'agent'?)" in run_err(cli, survey)


def run_err(cli, survey) -> str:
    run = cli("validate", "--root", survey)
    assert run.code == 1
    return run.err


def test_unknown_field_suggests_the_known_one(survey, cli):
    path = survey / "corpus/papers/dr-mas.yaml"
    path.write_text(path.read_text().replace("\nreward_type: shared\n", "\nreward_typ: shared\n"))
    lines = errors(cli("validate", "--root", survey))
    assert f"corpus/papers/dr-mas.yaml:{line_of(path, 'reward_typ:')}: reward_typ: unknown field 'reward_typ' (did you mean 'reward_type'?)" in lines
    assert "corpus/papers/dr-mas.yaml:1: reward_type: required field is missing" in lines


def test_file_name_must_equal_key(survey, cli):
    (survey / "corpus/papers/c3.yaml").rename(survey / "corpus/papers/c-three.yaml")
    lines = errors(cli("validate", "--root", survey))
    assert ("corpus/papers/c-three.yaml:1: key: 'c3' does not match the file name 'c-three.yaml'; rename the file "
            "to 'c3.yaml' or fix the key") in lines


def test_one_paper_cannot_be_retained_and_excluded(survey, cli):
    path = survey / "exclusions/E001.yaml"
    path.write_text(path.read_text().replace("arxiv: '2305.14325'", "arxiv: '2505.19591v2'"))
    lines = errors(cli("validate", "--root", survey))
    assert (f"exclusions/E001.yaml:{line_of(path, '  arxiv:')}: identifiers.arxiv: identifier arxiv:2505.19591 is also retained as "
            "corpus/papers/puppeteer.yaml — a paper cannot be both") in lines


def test_two_retained_records_with_one_doi(survey, cli):
    path = survey / "corpus/papers/greshake2023.yaml"
    text = path.read_text().replace("  doi: 10.1145/3605764.3623985", "  doi: 10.1142/S0219525901000188")
    path.write_text(text)
    lines = errors(cli("validate", "--root", survey))
    assert any("identifier doi:10.1142/s0219525901000188 is also used by corpus/papers/difference-rewards2001.yaml"
               " — one paper, one record" in line for line in lines), lines


def test_year_range(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "year", "1066")
    next_year = clock.today().year + 1
    assert f"corpus/papers/c3.yaml:{line_of(survey / 'corpus/papers/c3.yaml', 'year:')}: year: 1066 is out of range; allowed: 1950 to {next_year}" in run_err(cli, survey)


def test_quoted_year_is_a_type_error(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "year", "'2026'")
    assert (f"corpus/papers/c3.yaml:{line_of(survey / 'corpus/papers/c3.yaml', 'year:')}: year: expected an integer, got the string '2026' (write it without quotes)"
            in errors(cli("validate", "--root", survey)))


def test_untagged_placeholder(survey, cli, set_field):
    set_field(survey / "corpus/papers/c3.yaml", "orchestration_form", "untagged")
    assert errors(cli("validate", "--root", survey))[0] == (
        f"corpus/papers/c3.yaml:{line_of(survey / 'corpus/papers/c3.yaml', 'orchestration_form:')}: orchestration_form: untagged: tag it with one of centralized, "
        "planner_executor_critic, debate, swarm, hierarchical, harness, NA")


def test_credit_mechanism_is_NA_exactly_when_credit_unit_is(survey, cli, set_field):
    set_field(survey / "corpus/papers/puppeteer.yaml", "credit_mechanism", "NA")
    set_field(survey / "corpus/papers/ppo2017.yaml", "credit_mechanism", "strict")
    lines = errors(cli("validate", "--root", survey))
    assert (f"corpus/papers/puppeteer.yaml:{line_of(survey / 'corpus/papers/puppeteer.yaml', 'credit_mechanism:')}: credit_mechanism: 'NA' but credit_granularity is 'orchestrator'; "
            "use one of strict, broad, unassessed") in lines
    assert f"corpus/papers/ppo2017.yaml:{line_of(survey / 'corpus/papers/ppo2017.yaml', 'credit_mechanism:')}: credit_mechanism: 'strict' but credit_granularity is 'NA'; use 'NA'" in lines


def test_benchmark_fields(survey, cli):
    path = survey / "corpus/papers/gaia2023.yaml"
    path.write_text(path.read_text().replace("domain: research\n", ""))
    c3 = survey / "corpus/papers/c3.yaml"
    c3.write_text(c3.read_text().replace("verified: 'yes'\n", "verified: 'yes'\nmas_native: 'no'\n"))
    lines = errors(cli("validate", "--root", survey))
    assert "corpus/papers/gaia2023.yaml:1: domain: required field is missing (required for category 'benchmark')" in lines
    assert f"corpus/papers/c3.yaml:{line_of(c3, 'mas_native:')}: mas_native: only records with category 'benchmark' have this field; remove it" in lines


def test_inclusion_criterion_must_follow_the_category(survey, cli, set_field):
    set_field(survey / "corpus/papers/gaia2023.yaml", "inclusion_criterion", "I1")
    assert (f"corpus/papers/gaia2023.yaml:{line_of(survey / 'corpus/papers/gaia2023.yaml', 'inclusion_criterion:')}: inclusion_criterion: 'I1' contradicts category 'benchmark', "
            "which implies 'I2'") in errors(cli("validate", "--root", survey))


def test_resolver_url_must_be_written_as_the_identifier(survey, cli):
    path = survey / "corpus/papers/kimi-k2-5.yaml"
    path.write_text(path.read_text().replace("    - https://www.kimi.com/blog/kimi-k2-5.html", "    - https://arxiv.org/abs/2602.02276"))
    lines = errors(cli("validate", "--root", survey))
    assert any("identifiers.url[0]: 'https://arxiv.org/abs/2602.02276' is the landing page of arxiv id "
               "'2602.02276'; write it as arxiv: '2602.02276'" in line for line in lines), lines


def test_every_error_of_the_run_at_once(survey, cli, set_field):
    set_field(survey / "corpus/papers/marft.yaml", "reward_type", "hybird")
    set_field(survey / "corpus/papers/c3.yaml", "year", "1066")
    set_field(survey / "exclusions/E002.yaml", "stage", "abstract")
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert len(errors(run)) == 5  # the year also disagrees with c3's own BibTeX entry now
    assert errors(run)[-1] == "4 errors in 3 files; no file was changed."
    assert f"exclusions/E002.yaml:{line_of(survey / 'exclusions/E002.yaml', 'stage:')}: stage: 'abstract' is not in the vocabulary; allowed: abstract_screen, " \
           "full_text_screen, artifact_screen, duplicate_screen (did you mean 'abstract_screen'?)" in errors(run)
    assert "Traceback" not in run.err


def test_taxonomy_representative_must_exist(survey, cli):
    (survey / "corpus/papers/matpo.yaml").unlink()
    lines = errors(cli("validate", "--root", survey))
    assert any(line.startswith("corpus/taxonomy.yaml:") and "names record 'matpo', which is not a retained record" in line
               for line in lines), lines


def test_anchor_must_be_tagged_with_its_subdecision(survey, cli):
    path = survey / "corpus/papers/puppeteer.yaml"
    path.write_text(path.read_text().replace("subdecisions:\n  - O2\n", "subdecisions: []\n"))
    assert (f"corpus/papers/puppeteer.yaml:{line_of(path, 'subdecisions:')}: subdecisions: the taxonomy names this record as an anchor of O2 but "
            "it is not tagged O2") in errors(cli("validate", "--root", survey))


def test_reward_family_code_must_be_a_reward_type(survey, cli):
    path = survey / "corpus/taxonomy.yaml"
    path.write_text(path.read_text().replace("codes: [tool],", "codes: [tools],"))
    lines = errors(cli("validate", "--root", survey))
    assert any("tables[0].families.R5.codes: 'tools' is not a value of reward_type (did you mean 'tool'?)" in line
               for line in lines), lines
    assert any("fields.reward_type.values.tool: value 'tool' belongs to no family of table reward_families "
               "(list it under a family, or under skip)" in line for line in lines), lines


def test_claim_filter_names_real_fields_and_values(survey, cli):
    path = survey / "corpus/claims.yaml"
    text = path.read_text().replace("where: {credit_granularity: message}, count: 2, macro", "where: {credit_granularity: mesage}, count: 2, macro")
    path.write_text(text.replace("where: {reward_type: hybrid}", "where: {reward: hybrid}"))
    lines = errors(cli("validate", "--root", survey))
    assert any("claims[7].checks[0].where.credit_granularity: 'mesage' is not a value of credit_granularity" in line
               and "(did you mean 'message'?)" in line for line in lines), lines
    assert any("where.reward: unknown field 'reward' (did you mean 'reward_type'?)" in line for line in lines), lines


def test_audit_rows_name_real_records(survey, cli):
    path = survey / "corpus/audits/spotcheck-2026-05-03.yaml"
    path.write_text(path.read_text().replace("- key: puppeteer\n", "- key: pupeteer\n"))
    assert (f"corpus/audits/spotcheck-2026-05-03.yaml:{line_of(path, '  - key: pupeteer')}: rows[2].key: names record 'pupeteer', which is not a "
            "retained record (did you mean 'puppeteer'?)") in errors(cli("validate", "--root", survey))


def test_no_survey_root(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = cli("validate")
    assert run.code == 1
    assert run.err == (f"masrl: error: no survey root found: no corpus/taxonomy.yaml in {tmp_path.resolve()} or any "
                       "folder above it (use --root DIR)\n")


def test_root_is_found_from_a_subfolder(survey, cli, monkeypatch):
    monkeypatch.chdir(survey / "corpus" / "papers")
    assert cli("validate").code == 0


def test_record_that_is_a_list_is_reported_once(survey, cli):
    (survey / "corpus/papers/c3.yaml").write_text("- c3\n")
    assert errors(cli("validate", "--root", survey)) == [
        "corpus/papers/c3.yaml:1: the file must hold one YAML mapping (field: value lines); it is a list",
        "1 error in 1 file; no file was changed.",
    ]


def test_a_chain_of_successors_ends_at_a_current_claim(survey, cli):
    """Two claims that supersede each other leave no current statement; a current claim with a successor says two things."""
    path = survey / "corpus/claims.yaml"
    text = path.read_text()
    head = "  - id: orchestrator-credit-v1\n    scope: v1\n"
    assert head in text
    text = text.replace("    source: \"survey artifact (xxzcc/awesome-llm-mas-rl): docs/claim_ledger.md\"\n    status: current\n    checks:\n"
                        "      - {id: broad, label: records with orchestrator-level credit (broad tag), where: {credit_granularity: "
                        "orchestrator}, count: 8",
                        "    source: \"survey artifact (xxzcc/awesome-llm-mas-rl): docs/claim_ledger.md\"\n    status: superseded\n"
                        "    superseded_by: orchestrator-credit-stress-test-2026-05-03\n    checks:\n"
                        "      - {id: broad, label: records with orchestrator-level credit (broad tag), where: {credit_granularity: "
                        "orchestrator}, count: 8", 1)
    old = "    status: current\n    checks:\n      - {label: records addressing O1"
    assert old in text
    text = text.replace(old, "    status: current\n    superseded_by: headline-sparsity\n    checks:\n"
                             "      - {label: records addressing O1", 1)
    path.write_text(text)
    lines = errors(cli("validate", "--root", survey))
    loop = "orchestrator-credit-v1 -> orchestrator-credit-stress-test-2026-05-03 -> orchestrator-credit-v1"
    assert (f"corpus/claims.yaml:{line_of(path, '    superseded_by: orchestrator-credit-stress')}: claims[8].superseded_by: "
            f"'orchestrator-credit-stress-test-2026-05-03' leads back to this claim ({loop}): a chain of successors ends "
            "at a claim that holds now (status: current)") in lines, lines
    assert any(line.endswith("claims[2].status: 'current', but superseded_by names 'headline-sparsity': a claim with a "
                             "successor is superseded (status: superseded), or remove superseded_by") for line in lines), lines
    assert lines[-1] == "3 errors in 1 file; no file was changed."


@pytest.mark.parametrize("year", ["abc", "true", "2025.0", "{in: [2025, x]}", "12"])
def test_a_claim_that_selects_by_year_names_a_year(survey, cli, year):
    path = survey / "corpus/claims.yaml"
    text = path.read_text()
    old = "where: {credit_granularity: orchestrator}, count: 7}"
    assert old in text
    path.write_text(text.replace(old, f"where: {{year: {year}}}, count: 0}}", 1))
    lines = errors(cli("validate", "--root", survey))
    bad = {"abc": "'abc'", "true": "True", "2025.0": "'2025.0'", "{in: [2025, x]}": "'x'", "12": "12"}[year]
    at = line_of(path, '      - {id: broad, label: records with orchestrator-level credit (broad tag), where: {year')
    assert lines[:-1] == [  # in the same run, that release v1 froze what the claim counts
        f"corpus/claims.yaml:{at - 1}: claims[9].checks: what claim 'orchestrator-credit-stress-test-2026-05-03' counts "
        "changed since release v1 froze it (corpus/releases.yaml records the digest of its checks): a release's numbers never "
        "change. Restore its checks (git diff corpus/claims.yaml); to state a new reading, add a claim about the pool (or a "
        "later release) and mark this one `status: superseded` with `superseded_by:` the new claim",
        f"corpus/claims.yaml:{at}: claims[9].checks[0].where.year: {bad} is not a year: write an integer YYYY (2025), or a "
        "list of them"], lines


@pytest.mark.parametrize("name", ["has space", "__proto__", "f\u200bx"])
def test_a_field_name_of_the_wrong_form_says_what_a_name_may_be_on_its_own_line(survey, cli, name):
    path = survey / "corpus/taxonomy.yaml"
    text = path.read_text()
    path.write_text(text.replace("\nfields:\n", f"\nfields:\n  \"{name}\":\n    applies_to: retained\n    required: false\n"
                                               "    label: X\n    definition: d\n    source: s\n    values:\n"
                                               "      a: {label: A, definition: d, source: s}\n", 1))
    lines = errors(cli("validate", "--root", survey))
    line = line_of(path, "fields:") + 1
    if name == "f\u200bx":  # the character policy names it first
        assert any(f"{line}: fields.f\\u200bx: the name 'f\\u200bx' contains a character that is invisible" in x
                   for x in lines), lines
    assert f"corpus/taxonomy.yaml:{line}: fields: {name!r} is not a name: an ASCII letter or digit, then ASCII " \
           "letters, digits and '_' (no space)" in lines, lines


@pytest.mark.parametrize("name, message", [
    # a field's table named like a crosstab's (<rows>_x_<columns>) was taken for one, and the build stopped
    ("a_x_b", "field name 'a_x_b' holds '_x_', which names a crosstab's table (<rows>_x_<columns>): its table would be taken "
              "for one; choose a name without it"),
    # a claim's `where: {record_id: ...}` read the record's key, never the field
    ("record_id", "'record_id' is one of the names a claim's `where` selects records by (key, record_id, year), whatever the "
                  "field; give the survey's field another name"),
    # the site read a filter on a field named q as the search text too (and sort, dir, paper, release as theirs)
    *[(name, f"{name!r} is one of the names the catalogue site's address gives its own state (q, key, sort, dir, paper, "
             "release): a filter on the field would be read as that; give the survey's field another name")
      for name in ("q", "sort", "dir", "paper", "release")],
])
def test_a_field_name_that_masrl_reads_as_another_thing_is_refused(survey, cli, name, message):
    path = survey / "corpus/taxonomy.yaml"
    path.write_text(path.read_text().replace("\nfields:\n", f"\nfields:\n  {name}:\n    applies_to: retained\n    required: false\n"
                                             "    label: X\n    definition: d\n    source: s\n    values:\n"
                                             "      a: {label: A, definition: d, source: s}\n", 1))
    lines = errors(cli("validate", "--root", survey))
    assert f"corpus/taxonomy.yaml:{line_of(path, f'  {name}:')}: fields.{name}: {message}" in lines, lines


def test_a_claim_of_the_wrong_shape_does_not_hide_the_other_claims_problems(survey, cli):
    """A schema error of one claim (a count written as a list) and an unknown value in another claim: one run."""
    path = survey / "corpus/claims.yaml"
    text = path.read_text()
    old = "where: {credit_granularity: orchestrator}, count: 7}"
    assert old in text
    text = text.replace(old, "where: {credit_granularity: orchestrator}, count: [7]}", 1)
    path.write_text(text.replace("where: {credit_granularity: message}, of:", "where: {credit_granularity: messagee}, of:", 1))
    lines = errors(cli("validate", "--root", survey))
    assert any(x.endswith("claims[0].checks[0].where.credit_granularity: 'messagee' is not a value of credit_granularity; "
                          "allowed: token, tool, message, turn, agent, role, orchestrator, team, NA (did you mean 'message'?)")
               for x in lines), lines
    assert any(x.endswith(".count: expected an integer, got the list [7]") for x in lines), lines
    assert lines[-1] == "2 errors in 1 file; no file was changed."


def test_a_macro_of_a_whole_claim_is_refused(survey, cli):
    """A claim's macro was accepted and written nowhere: a macro carries a check's count (checks[].macro)."""
    path = survey / "corpus/claims.yaml"
    path.write_text(path.read_text().replace("  - id: message-credit-sparse\n", "  - id: message-credit-sparse\n    macro: PoolClaim\n", 1))
    lines = errors(cli("validate", "--root", survey))
    assert lines == [f"corpus/claims.yaml:{line_of(path, '    macro: PoolClaim')}: claims[0].macro: unknown field 'macro'; allowed: "
                     "id, statement, evidence_boundary, source, status, scope, superseded_by, checks",
                     "1 error in 1 file; no file was changed."], lines


@pytest.mark.parametrize("code, written, read", [
    # YAML reads a code of digits in the taxonomy as text (a key) and the same digits in a record as a number
    ("1", "1", "the integer 1 is not in the vocabulary; allowed: yes, partial, 1, no (YAML read it as the number 1; the code "
               "that reads as 1: '1': quote the one you mean)"),
    # '01' too reads as 1 (and 7 as '007' would): the codes that read as the number are offered, never another one
    ("01", "01", "the integer 1 is not in the vocabulary; allowed: yes, partial, 01, no (YAML read it as the number 1; the "
                 "code that reads as 1: '01': quote the one you mean)"),
    ("01", "1", "the integer 1 is not in the vocabulary; allowed: yes, partial, 01, no (YAML read it as the number 1; the "
                "code that reads as 1: '01': quote the one you mean)"),
    # and an unquoted null in a record as nothing, whatever the taxonomy's code "null" says
    ('"null"', "null", "nothing (an empty value) is not in the vocabulary; allowed: yes, partial, null, no (YAML read null "
                       "as nothing: quote it, 'null')"),
])
def test_a_code_that_yaml_reads_as_another_type_says_to_quote_it(survey, cli, code, written, read):
    tax = survey / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text().replace('      "no": {label: unverified,', f'      {code}: {{label: one, definition: d, source: s}}\n'
                                                                          '      "no": {label: unverified,', 1))
    paper = survey / "corpus/papers/c3.yaml"
    paper.write_text(paper.read_text().replace("verified: 'yes'", f"verified: {written}"))
    lines = errors(cli("validate", "--root", survey))
    assert lines[:-1] == [f"corpus/papers/c3.yaml:{line_of(paper, 'verified:')}: verified: {read}"], lines


def test_the_protocols_problems_are_worded_as_every_files(survey, cli):
    """The search protocol's schema errors name the value and what is allowed, as the records' and the taxonomy's do."""
    path = survey / "corpus/protocol.yaml"
    text = path.read_text()
    for old, new in (("endpoint: https://export.arxiv.org/api/query", "endpoint: file:///etc/passwd"),
                     ("endpoint_env: MASRL_ARXIV_API", "endpoint_env: PATH"),
                     ("endpoint_env: MASRL_CROSSREF_API", "endpoint_env: MASRL_MAILTO")):
        assert old in text, old
        text = text.replace(old, new, 1)
    name = next(line for line in text.splitlines() if line.startswith("  - name: "))
    text = text.replace(name, "  - name: 5", 1)
    path.write_text(text)
    lines = errors(cli("validate", "--root", survey))
    assert f"corpus/protocol.yaml:{line_of(path, '    endpoint: file:')}: searchers.arxiv.endpoint: 'file:///etc/passwd' " \
           "is not an http(s) URL" in lines, lines
    kind = ("the name of an environment variable of an address, MASRL_..._API or MASRL_..._URL (upper-case letters, "
            "digits and '_'; not another variable of masrl's, such as MASRL_MAILTO)")
    assert f"corpus/protocol.yaml:{line_of(path, '    endpoint_env: PATH')}: searchers.arxiv.endpoint_env: 'PATH' is not " \
           f"{kind}" in lines, lines
    assert f"corpus/protocol.yaml:{line_of(path, '    endpoint_env: MASRL_MAILTO')}: searchers.crossref.endpoint_env: " \
           f"'MASRL_MAILTO' is not {kind}" in lines, lines
    assert f"corpus/protocol.yaml:{line_of(path, '  - name: 5')}: query_families[0].name: expected a string, got the " \
           "integer 5" in lines, lines


def test_a_malformed_entry_of_the_protocol_hides_no_other_entrys_problem(survey, cli):
    path = survey / "corpus/protocol.yaml"
    text = path.read_text()
    old = "  - {name: ACL Anthology, exclusion_source: ACL Anthology, searched_by: crossref}\n"
    assert old in text
    path.write_text(text.replace("sources:\n", "sources:\n  - 17\n", 1).replace(
        old, "  - {name: ACL Anthology, exclusion_source: ACL Anthology, searched_by: crosref}\n", 1))
    lines = errors(cli("validate", "--root", survey))
    assert lines == [
        f"corpus/protocol.yaml:{line_of(path, '  - 17')}: sources[0]: expected a mapping, got the integer 17",
        f"corpus/protocol.yaml:{line_of(path, '  - {name: ACL Anthology')}: sources[2].searched_by: 'crosref' is not a source "
        "under searchers, nor 'by hand'; allowed: arxiv, crossref, openreview, semanticscholar, citations, by hand (did you "
        "mean 'crossref'?)",
        f"corpus/protocol.yaml:{line_of(path, '  crossref:')}: searchers.crossref: covers no source of the protocol: name "
        "it in the searched_by of the source it searches",
        "3 errors in 1 file; no file was changed."], lines


def test_a_field_of_excluded_records_named_as_an_option_of_masrl_exclude_is_refused_and_exclude_still_runs(survey, cli, capsys):
    """A free field 'force' of excluded records would be asked for as --force, masrl exclude's own option: argparse
    stopped every run of the command (even --help) with a traceback."""
    tax = survey / "corpus/taxonomy.yaml"
    tax.write_text(tax.read_text().replace("free_fields:\n", "free_fields:\n  force:\n    applies_to: excluded\n    type: text\n"
                                                            "    label: Force\n    definition: d\n    source: s\n", 1))
    assert (f"corpus/taxonomy.yaml:{line_of(tax, '  force:')}: free_fields.force: masrl exclude would ask for it as --force, "
            "which is one of its own options; give the field another name") in errors(cli("validate", "--root", survey))
    with pytest.raises(SystemExit) as done:
        cli("exclude", "--root", survey, "--help")
    assert done.value.code == 0 and "--force REASON" in capsys.readouterr().out
    run = cli("exclude", "--root", survey, "--key", "c3", "--reason", "r", "--stage", "abstract_screen", "--reason-class",
              "X1", "--source", "arXiv", "--query-family", "orchestration", "--dry-run")
    assert run.code == 0 and run.out.endswith("dry run: nothing was written\n"), run.err  # it runs (validate names the field)


def test_a_records_link_to_another_paper_than_its_identifiers_is_refused(survey, cli):
    """`masrl add` refuses an --arxiv and a --url of two papers; the record file is held to the same: its url
    and its identifiers name one paper (papers.bib had exported the id of one and the link of the other)."""
    path = survey / "corpus/papers/c3.yaml"
    path.write_text(path.read_text().replace("\nurl: https://arxiv.org/abs/2603.06859\n",
                                             "\nurl: https://arxiv.org/abs/2604.09999v2\n", 1))
    assert errors(cli("validate", "--root", survey)) == [
        f"corpus/papers/c3.yaml:{line_of(path, 'url:')}: url: 'https://arxiv.org/abs/2604.09999v2' is the page of arxiv "
        "2604.09999v2, but identifiers.arxiv is 2603.06859: a record is one paper; correct the one that is wrong",
        "1 error in 1 file; no file was changed."]
    path.write_text(path.read_text().replace("https://arxiv.org/abs/2604.09999v2", "https://arxiv.org/abs/2603.06859v3", 1))
    assert cli("validate", "--root", survey).code == 0  # a version of the same paper


@pytest.mark.parametrize("day, message", [
    ("2027-03-01", "2027-03-01 is in the future (today is 2027-01-15)"),  # the suite's day; `masrl exclude --date` refuses it
    ("1066-10-14", "'1066-10-14' is out of range; allowed: years 1950 to today"),
])
def test_an_exclusion_screened_in_the_future_or_before_the_first_year_is_refused(survey, cli, day, message):
    path = survey / "exclusions/E005.yaml"
    _screened_on(path, day)
    assert errors(cli("validate", "--root", survey))[0] == \
        f"exclusions/E005.yaml:{line_of(path, 'date_screened:')}: date_screened: {message}"


def test_an_exclusion_screened_before_its_arxiv_id_was_given_is_refused(survey, cli):
    """E001 is arXiv 2305.14325 (May 2023): screened in March 2023 it was not there to screen; 30 April is let be (a
    day of slack for the time zones)."""
    path = survey / "exclusions/E001.yaml"
    _screened_on(path, "2023-03-31")
    assert errors(cli("validate", "--root", survey))[0] == (
        f"exclusions/E001.yaml:{line_of(path, 'date_screened:')}: date_screened: 2023-03-31 is before 2023-05, the month "
        "the arXiv id 2305.14325 was given: the paper was not on arXiv to be screened yet")
    _screened_on(path, "2023-04-30")
    assert cli("validate", "--root", survey).code == 0


def test_a_bibtex_field_yaml_read_as_a_number_says_to_quote_it(survey, cli):
    path = survey / "corpus/papers/c3.yaml"
    path.write_text(path.read_text().replace("\nbibtex:\n", "\nbibtex:\n  month: 6\n", 1))
    assert errors(cli("validate", "--root", survey))[0] == (
        f"corpus/papers/c3.yaml:{line_of(path, '  month: 6')}: bibtex.month: expected a string, got the integer 6 (YAML "
        "read it as a number: quote it, '6')")


def test_a_records_acl_anthology_doi_and_acl_id_name_one_paper(survey, cli, capsys):
    """10.18653/v1/<id> is the DOI of ACL Anthology <id>: beside another ACL id it made a record of two papers, and a
    later round filed the other paper as this record's duplicate. `masrl add` refuses the pair as two acl ids."""
    path = survey / "exclusions/E014.yaml"
    text = path.read_text()
    path.write_text(text.replace("  acl: 2024.emnlp-main.912\n", "  acl: 2024.emnlp-main.912\n  doi: 10.18653/v1/2024.emnlp-main.913\n", 1))
    assert errors(cli("validate", "--root", survey)) == [
        f"exclusions/E014.yaml:{line_of(path, '  acl:')}: identifiers.acl: '2024.emnlp-main.912', but identifiers.doi "
        "10.18653/v1/2024.emnlp-main.913 is the DOI of ACL Anthology 2024.emnlp-main.913: a record is one paper; correct "
        "the one that is wrong", "1 error in 1 file; no file was changed."]
    path.write_text(text.replace("  acl: 2024.emnlp-main.912\n", "  acl: 2024.emnlp-main.912\n  doi: 10.18653/V1/2024.EMNLP-MAIN.912\n", 1))
    assert cli("validate", "--root", survey).code == 0  # the same paper, its DOI in capitals
    run = cli("add", "--root", survey, "--no-fetch", "--doi", "10.18653/v1/2026.acl-long.7", "--url",
              "https://aclanthology.org/2026.acl-long.8/", "--title", "T", "--author", "Doe, Jane", "--year", "2026")
    assert run.code == 1 and ("command line: two different acl ids, 2026.acl-long.7 (DOI 10.18653/v1/2026.acl-long.7) and "
                              "2026.acl-long.8: which paper is it?") in run.err, run.err


def test_a_record_screened_or_added_long_before_its_papers_year_is_refused(survey, cli):
    """E014 is a paper of 2024 (EMNLP): screened in 2022 is a typo of the date or the year; in 2023 it is let be (a
    venue's year may be the one after its preprint). The same holds for a retained record's date_added."""
    path = survey / "exclusions/E014.yaml"
    _screened_on(path, "2022-12-31")
    assert errors(cli("validate", "--root", survey)) == [
        f"exclusions/E014.yaml:{line_of(path, 'date_screened:')}: date_screened: 2022-12-31 is before 2023, and the "
        "paper's year is 2024: a paper is screened once it is out (its venue's year may be the next one); fix the date "
        "or the year", "1 error in 1 file; no file was changed."]
    _screened_on(path, "2023-01-01")
    assert cli("validate", "--root", survey).code == 0
    paper = survey / "corpus/papers/c3.yaml"
    year = int(re.search(r"(?m)^year: ([0-9]{4})$", paper.read_text()).group(1))
    paper.write_text(re.sub(r"(?m)^date_added: .*$", f"date_added: '{year - 2}-12-31'", paper.read_text(), count=1))
    assert f"corpus/papers/c3.yaml:{line_of(paper, 'date_added:')}: date_added: {year - 2}-12-31 is before {year - 1}" in \
        errors(cli("validate", "--root", survey))[0]


def _screened_on(path, day: str) -> None:
    text = path.read_text()
    old = next(line for line in text.splitlines() if line.startswith("date_screened:"))
    path.write_text(text.replace(old, f"date_screened: '{day}'", 1))


def test_an_exclusion_whose_former_key_is_a_retained_records_is_refused(survey, cli):
    """former_key names the key a paper had when it was retained: a key that is still retained's would take the
    exclusion for a record moved out of the release (the PRISMA flow of the update vanished)."""
    path = survey / "exclusions/E005.yaml"
    path.write_text(path.read_text() + "former_key: c3\n")
    assert errors(cli("validate", "--root", survey))[0] == (
        f"exclusions/E005.yaml:{line_of(path, 'former_key:')}: former_key: 'c3' is the key of a retained record "
        "(corpus/papers/c3.yaml): a paper is retained or excluded, not both; former_key names the key it had when it "
        "was retained")


@pytest.mark.parametrize("ending", ["not confirmed yet", "Not confirmed", "unconfirmed"])
def test_a_suggestions_provenance_in_neither_of_its_forms_is_refused(survey, cli, ending):
    """A text that starts as masrl suggest's provenance but is neither of its forms was taken for a hand tag, and a
    release froze it unconfirmed."""
    path = survey / "corpus/papers/c3.yaml"
    text = path.read_text()
    line = next(k for k, row in enumerate(text.splitlines(), 1) if row.startswith("tag_provenance:")) + 1
    field = text.splitlines()[line - 1].strip().split(":")[0]
    lines = text.splitlines()
    lines[line - 1] = f"  {field}: 'suggested (masrl suggest, neighbours halo), {ending}'"
    path.write_text("\n".join(lines) + "\n")
    assert errors(cli("validate", "--root", survey))[0] == (
        f"corpus/papers/c3.yaml:{line}: tag_provenance.{field}: 'suggested (masrl suggest, neighbours halo), {ending}' "
        "starts as masrl suggest's provenance but is neither of its forms ('suggested (masrl suggest, ...), confirmed' "
        f"or '... not confirmed'): confirm the tag with `masrl suggest c3 --apply {field}=VALUE`, or write who tagged it")


def test_a_blocks_isbn_that_cannot_exist_is_named(survey, cli):
    """Run 42: D018 (bibtex-isbn-issn)."""
    path = sorted((survey / "corpus/papers").glob("*.yaml"))[0]
    text = path.read_text(encoding="utf-8")
    assert "\nbibtex:\n" in text
    path.write_text(text.replace("\nbibtex:\n", "\nbibtex:\n  isbn: '9781450383'\n", 1), encoding="utf-8")
    run = cli("validate", "--root", survey)
    assert run.code == 1 and f"{path.relative_to(survey).as_posix()}:" in run.err
    assert "bibtex.isbn: '9781450383' is not an ISBN" in run.err, run.err
