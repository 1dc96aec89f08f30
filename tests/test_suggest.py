"""`masrl suggest`: values for a stub's untagged fields from the tagged records, with evidence,
the vocabulary's rules, a measured confidence, and provenance when applied; the screening rank."""

from __future__ import annotations

import json
import re

import grow
import pytest
import yaml

from masrl.core import clock
from masrl.corpus.load import load
from masrl.corpus import provenance
from masrl.corpus.provenance import suggested
from masrl.corpus.taxonomy import Taxonomy
from masrl.review.suggest import evaluate, screening, structure
from masrl.review.suggest.text import record_text
from trees import published_only  # noqa: F401 - the published tree only

TITLE = "Learning to Orchestrate Parallel Sub-Agents with Multi-Agent Reinforcement Learning"
BENCH_TITLE = "AgentArena: A Benchmark of Prompt Injection Attacks on Tool-Using Web Agents"


def _add(cli, root, title=TITLE, arxiv="2612.00001", author="Liu, Shuo") -> str:
    run = cli("add", "--root", root, "--no-fetch", "--arxiv", arxiv, "--title", title, "--author", author, "--year", "2026")
    assert run.code == 0, run.err
    return re.search(r"created corpus/papers/(\S+)\.yaml", run.out).group(1)


def _record(root, key) -> dict:
    return yaml.safe_load((root / f"corpus/papers/{key}.yaml").read_text(encoding="utf-8"))


def _shown(value) -> str:
    """A value as ``masrl suggest`` prints it: a code, or a set as ``[A, B]`` (``[] (none)``)."""
    return str(value) if not isinstance(value, list) else ("[" + ", ".join(value) + "]" if value else "[] (none)")


def _json(cli, root, key) -> dict:
    run = cli("suggest", "--root", root, key, "--json")
    assert run.code == 0, run.err
    return json.loads(run.out)


def _untagged(rec: dict) -> list[str]:
    return [k for k, v in rec.items() if v == "untagged" or v == ["untagged"]]


@pytest.fixture
def stub(survey, cli):
    """(survey root, key) of a stub added by title alone."""
    return survey, _add(cli, survey)


def test_a_stub_added_by_title_gets_suggestions_for_every_untagged_field_with_evidence(stub, cli):
    root, key = stub
    rec = _record(root, key)
    tax = Taxonomy(load(root).taxonomy)
    controlled = {f.name for f in tax.of("retained") if f.suggested}
    wanted = [f for f in _untagged(rec) if f in controlled]
    assert len(wanted) >= 10  # every controlled field a stub carries
    data = _json(cli, root, key)
    assert set(wanted) <= set(data)
    assert "verified" in _untagged(rec) and "verified" not in data  # suggest: false in the taxonomy
    corpus = load(root)
    titles = {r["key"]: r["title"] for r in corpus.retained.values()}
    by_key = {r["key"]: r for r in corpus.retained.values()}
    for field in wanted:
        items = data[field]
        assert items, field
        for item in items:
            assert item["evidence"] or item.get("rules") or item.get("definitions"), (field, item)
            for n in item["evidence"]:
                assert n["key"] != key and n["title"] == titles[n["key"]]
                mine = set(re.findall(r"\w+", record_text(rec, tax.abstract_field).lower()))
                theirs = set(re.findall(r"\w+", record_text(by_key[n["key"]], tax.abstract_field).lower()))
                assert all(set(w.split()) <= mine & theirs for w in n["shared_words"]), n
        # the best value has a neighbour, or a definition, that shares words with the title
        assert (any(n["shared_words"] for n in items[0]["evidence"] + items[0].get("definitions", []))
                or items[0].get("rules")), field


def test_json_shape_and_best_first(stub, cli):
    root, key = stub
    tax = Taxonomy(load(root).taxonomy)
    data = _json(cli, root, key)
    for field, items in data.items():
        f = tax.fields[field]
        scores = [i["score"] for i in items]
        assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
        for item in items:
            assert set(item) - {"rules", "with", "definitions"} == {"value", "score", "evidence", "low_confidence"}
            for d in item.get("definitions", []):
                assert set(d) == {"kind", "text", "similarity", "shared_words"} and 0 < d["similarity"] <= 1
                members = item["value"] if f.multi else [item["value"]]
                labels = [str(f.value_spec(v)["label"]) for v in members]
                # the label alone, or "label: definition"
                assert d["text"] in labels if d["kind"] == "label" else \
                    (d["kind"] == "definition" and d["text"].split(": ", 1)[0] in labels), d
            if f.multi:
                assert isinstance(item["value"], list) and all(v in f.values for v in item["value"])
                assert item["value"] == [v for v in f.values if v in item["value"]]  # a set, in taxonomy order
            else:
                assert item["value"] in f.values
            for n in item["evidence"]:
                assert set(n) == {"key", "title", "similarity", "shared_words"} and 0 <= n["similarity"] <= 1
        values = [json.dumps(i["value"]) for i in items]
        assert len(values) == len(set(values)) <= 3


def test_low_confidence_is_the_measured_one_and_shown_in_text(stub, cli):
    root, key = stub
    corpus = load(root)
    scores = evaluate.measure(list(corpus.retained.values()), Taxonomy(corpus.taxonomy))
    data = _json(cli, root, key)
    for field, items in data.items():
        assert {i["low_confidence"] for i in items} <= {scores[field].low_confidence}
    text = cli("suggest", "--root", root, key).out
    for field in data:
        s = scores[field]
        block = text.split(f"\n{field} (", 1)[1].split("\n\n", 1)[0]
        if s.low_confidence:
            assert (f"low confidence: leave-one-out top-1 accuracy {s.accuracy:.3f} does not beat the majority "
                    f"baseline {s.baseline:.3f}") in block
        else:
            assert "low confidence" not in block


def test_each_neighbour_says_what_it_shares_as_the_json_does(stub, cli):
    root, key = stub
    data = _json(cli, root, key)
    text = cli("suggest", "--root", root, key).out
    said = {line.split()[0]: line.rsplit(" — ", 1)[1] for line in text.splitlines() if line.startswith("       ") and " — " in line
            and not line.strip().startswith("the taxonomy's")}
    evidence = {e["key"]: e["shared_words"] for items in data.values() for i in items for e in i["evidence"]}
    assert said and set(said) == set(evidence)
    for neighbour, words in evidence.items():
        assert said[neighbour] == (f"shares: {', '.join(words)}" if words else "no word in common (it counts a little)")


def test_suggestions_are_deterministic(stub, cli):
    root, key = stub
    first = cli("suggest", "--root", root, key, "--json").out
    assert cli("suggest", "--root", root, key, "--json").out == first
    text = cli("suggest", "--root", root, key).out
    assert cli("suggest", "--root", root, key).out == text
    corpus = load(root)
    tax = Taxonomy(corpus.taxonomy)
    assert evaluate.measure(list(corpus.retained.values()), tax) == evaluate.measure(list(corpus.retained.values()), tax)


def test_nothing_is_written_without_apply(stub, cli):
    root, key = stub
    before = (root / f"corpus/papers/{key}.yaml").read_bytes()
    cli("suggest", "--root", root, key)
    cli("suggest", "--root", root, key, "--json")
    assert (root / f"corpus/papers/{key}.yaml").read_bytes() == before


def test_applying_the_best_values_leaves_a_valid_record_with_its_provenance(stub, cli, set_field):
    root, key = stub
    data = _json(cli, root, key)
    args = []
    for field, items in data.items():
        value = items[0]["value"]
        args += ["--apply", f"{field}={','.join(value) if isinstance(value, list) else value}"]
    run = cli("suggest", "--root", root, key, *args)
    assert run.code == 0, run.err
    rec = _record(root, key)
    for field, items in data.items():
        assert rec[field] == items[0]["value"]
        keys = [n["key"] for n in items[0]["evidence"]]
        assert rec["tag_provenance"][field] == suggested(keys, confirmed=True, given=items[0].get("with"))
        assert rec["tag_provenance"][field].endswith("), confirmed")
    assert "verified" not in data and rec["verified"] == "untagged"
    assert cli("validate", "--root", root).code == 1  # the one-liner and the metadata check are left
    set_field(root / f"corpus/papers/{key}.yaml", "one_liner", "Trains an orchestrator of parallel sub-agents")
    by_hand = cli("suggest", "--root", root, key)
    assert by_hand.code == 1
    assert by_hand.err.endswith(
        f"masrl: error: corpus/papers/{key}.yaml: nothing to suggest for {key!r}: the fields left to tag are tagged "
        "by hand, as corpus/taxonomy.yaml says (suggest: false; no other record's tags can tell them): "
        "verified (Metadata verified: yes, partial, no)\n")
    set_field(root / f"corpus/papers/{key}.yaml", "verified", "yes")
    run = cli("validate", "--root", root)
    assert run.code == 0, run.err
    refused = cli("suggest", "--root", root, key)
    assert refused.code == 1
    assert refused.err.endswith(f"masrl: error: corpus/papers/{key}.yaml: every controlled field of {key!r} is tagged; "
                                "nothing to suggest (masrl suggest proposes values for untagged fields)\n")


def test_a_value_outside_the_suggestions_is_a_hand_tag(stub, cli):
    root, key = stub
    data = _json(cli, root, key)
    tax = Taxonomy(load(root).taxonomy)
    shown = {i["value"] for i in data["scenario"]}
    other = next(v for v in tax.values("scenario") if v not in shown)
    run = cli("suggest", "-q", "--root", root, key, "--apply", f"scenario={other}")
    assert (run.code, run.out, run.err) == (0, "", "")  # --quiet: the record is written, no line per field
    assert _record(root, key)["tag_provenance"]["scenario"] == "hand-tagged (masrl suggest --apply; not among the values suggested)"


def test_a_suggestion_whose_assumption_the_record_contradicts_is_a_hand_tag(stub, cli):
    """A value suggested ``with`` another field's value (credit_mechanism with credit_granularity
    agent) is evidence only while that field holds it: applied together with another value of
    it, the tag is the person's, and its provenance says why."""
    root, key = stub
    data = _json(cli, root, key)
    field, item = next((f, items[0]) for f, items in data.items() if items and items[0].get("with"))
    ((other, assumed),) = item["with"].items()
    alt = next(i["value"] for i in data[other] if i["value"] not in (assumed, "NA"))
    run = cli("suggest", "--root", root, key, "--apply", f"{other}={alt}", "--apply", f"{field}={item['value']}")
    assert run.code == 0, run.err
    how = _record(root, key)["tag_provenance"]
    assert how[field] == (f"hand-tagged (masrl suggest --apply; suggested only with {other} {assumed}, "
                          f"and {other} is {alt})")
    assert how[other].startswith("suggested (masrl suggest, neighbours ") and how[other].endswith("), confirmed")
    assert f"{field}: untagged -> {item['value']} (hand-tagged (masrl suggest --apply; suggested only with " in run.out


def test_a_suggestion_applied_with_its_assumption_is_confirmed(stub, cli):
    root, key = stub
    data = _json(cli, root, key)
    field, item = next((f, items[0]) for f, items in data.items() if items and items[0].get("with"))
    ((other, assumed),) = item["with"].items()
    run = cli("suggest", "--root", root, key, "--apply", f"{other}={assumed}", "--apply", f"{field}={item['value']}")
    assert run.code == 0, run.err
    how = _record(root, key)["tag_provenance"][field]
    assert how == suggested([n["key"] for n in item["evidence"]], confirmed=True, given=item["with"])
    assert how.endswith(f"; with {other} {assumed}), confirmed") and provenance.assumed(how) == {other: assumed}
    assert provenance.state(how) == provenance.CONFIRMED


def test_a_suggestion_confirmed_earlier_becomes_a_hand_tag_when_its_assumption_is_replaced(stub, cli):
    """Confirmed alone first (its assumption, still untagged, holds), then contradicted by a later
    --apply of the field it assumed: the tag is the person's from then on, and the output says so."""
    root, key = stub
    data = _json(cli, root, key)
    field, item = next((f, items[0]) for f, items in data.items() if items and items[0].get("with"))
    ((other, assumed),) = item["with"].items()
    alt = next(i["value"] for i in data[other] if i["value"] not in (assumed, "NA"))
    assert cli("suggest", "--root", root, key, "--apply", f"{field}={item['value']}").code == 0
    assert provenance.state(_record(root, key)["tag_provenance"][field]) == provenance.CONFIRMED
    run = cli("suggest", "--root", root, key, "--apply", f"{other}={alt}")
    assert run.code == 0, run.err
    hand = f"hand-tagged (masrl suggest --apply; suggested only with {other} {assumed}, and {other} is {alt})"
    assert _record(root, key)["tag_provenance"][field] == hand
    assert f"{field}: {item['value']}, now {hand}" in run.out


def _implied(tax, field, value):
    """The (field, value) a taxonomy value implies, read from the taxonomy (e.g. a category's criterion)."""
    for rule in structure.rules(tax):
        if rule.kind == "implied" and rule.other == field and rule.values == (value,):
            return rule.field, rule.target
    return None


def test_conditional_fields_come_with_their_condition(survey, cli):
    key = _add(cli, survey, BENCH_TITLE, "2612.00002", "Kim, Dana")
    tax = Taxonomy(load(survey).taxonomy)
    conditional = [r for r in structure.rules(tax) if r.kind == "required_when"]
    assert conditional
    rule = conditional[0]
    rec = _record(survey, key)
    assert rule.field not in rec  # the stub lacks it until its condition holds
    data = _json(cli, survey, key)
    best = data[rule.other][0]["value"]
    if best in rule.values:  # suggested together with the condition
        assert all(i["with"] == {rule.other: best} for i in data[rule.field])
    else:
        assert rule.field not in data
    # applying the condition adds the conditional fields as untagged, to be suggested next
    value = rule.values[0]
    run = cli("suggest", "--root", survey, key, "--apply", f"{rule.other}={value}")
    assert run.code == 0, run.err
    rec = _record(survey, key)
    added = [r.field for r in conditional if r.other == rule.other and value in r.values]
    for name in added:
        assert rec[name] in ("untagged", ["untagged"])
        assert f"{name}: added as untagged (it applies now)" in run.out
    data = _json(cli, survey, key)
    assert set(added) <= set(data) and rule.other not in data
    assert all("with" not in i for name in added for i in data[name])  # the condition is a tag now
    implied = _implied(tax, rule.other, value)
    if implied:
        name, target = implied
        assert [i["value"] for i in data[name]] == [target]
        assert data[name][0]["rules"] == [f"{rule.other} {value} implies {name} {target} (taxonomy: value {value} of {rule.other})"]


def test_replacing_a_drafted_condition_removes_the_drafts_it_brought(survey, cli):
    """A stub drafted as a benchmark holds drafted benchmark-only fields; confirming another category
    instead removes them (a draft is no tag), and says so."""
    tax = Taxonomy(load(survey).taxonomy)
    rule = next(r for r in structure.rules(tax) if r.kind == "required_when")
    key = _add(cli, survey, BENCH_TITLE, "2612.00002", "Arena, Ann")
    data = _json(cli, survey, key)
    assert data[rule.other][0]["value"] in rule.values  # drafted under the condition
    assert cli("suggest", "--root", survey, key, "--draft").code == 0
    brought = [r.field for r in structure.rules(tax) if r.kind == "required_when" and r.other == rule.other
               and data[rule.other][0]["value"] in r.values]
    drafted = _record(survey, key)
    assert brought and all(provenance.state(drafted["tag_provenance"][f]) == provenance.NOT_CONFIRMED for f in brought)
    other = next(v for v in tax.values(rule.other) if v not in rule.values and v != "NA")
    args = ["--apply", f"{rule.other}={other}"]
    if implied := _implied(tax, rule.other, other):
        args += ["--apply", f"{implied[0]}={implied[1]}"]
    run = cli("suggest", "--root", survey, key, *args)
    assert run.code == 0, run.err
    rec = _record(survey, key)
    for name in brought:
        assert name not in rec and name not in rec["tag_provenance"]
        value = drafted[name]
        shown = "[" + ", ".join(value) + "]" if isinstance(value, list) else value
        assert f"{name}: removed (it no longer applies; it held the unconfirmed draft {shown})" in run.out


def test_na_follows_the_rules_of_validate(stub, cli):
    root, key = stub
    tax = Taxonomy(load(root).taxonomy)
    rule = next(r for r in structure.rules(tax) if r.kind == "na_iff")
    run = cli("suggest", "--root", root, key, "--apply", f"{rule.other}={rule.values[0]}")
    assert run.code == 0, run.err
    data = _json(cli, root, key)
    assert [i["value"] for i in data[rule.field]] == ["NA"]
    other = next(v for v in tax.values(rule.field) if v != "NA")
    refused = cli("suggest", "--root", root, key, "--apply", f"{rule.field}={other}")
    assert refused.code == 1
    assert f"{rule.field}: {other!r} but {rule.other} is {rule.values[0]!r}; use 'NA'" in refused.err
    assert refused.err.endswith("masrl: error: 1 error in 1 file; nothing was written.\n")


def test_a_conditional_field_without_its_condition_is_refused(stub, cli):
    root, key = stub
    tax = Taxonomy(load(root).taxonomy)
    rule = next(r for r in structure.rules(tax) if r.kind == "required_when")
    value = tax.values(rule.field)[0]
    before = (root / f"corpus/papers/{key}.yaml").read_bytes()
    run = cli("suggest", "--root", root, key, "--apply", f"{rule.field}={value}")
    assert run.code == 1
    assert (f"command line: --apply: {rule.describe()}; {rule.other} is untagged: give --apply "
            f"{rule.other}={rule.values[0]} with it") in run.err
    assert (root / f"corpus/papers/{key}.yaml").read_bytes() == before


def test_a_set_field_takes_a_set(stub, cli):
    root, key = stub
    tax = Taxonomy(load(root).taxonomy)
    multi = next(f for f in tax.of("retained") if f.multi and not f.required_when)
    codes = list(multi.values[:2])
    assert cli("suggest", "--root", root, key, "--apply", f"{multi.name}={codes[1]},{codes[0]}").code == 0
    assert _record(root, key)[multi.name] == codes  # taxonomy order


@pytest.mark.parametrize("args, message", [
    # a contributor's key close to it (``nash2026``) adds its hint, taken from the tree in front of the test
    (["nosuchkey2026"], "masrl: error: no retained record has the key 'nosuchkey2026'{hint}; the keys are the file names under corpus/papers/"),
    (["E001"], "masrl: error: no retained record has the key 'E001' (it is an excluded record: suggestions are for retained records); "
               "the keys are the file names under corpus/papers/"),
])
def test_unknown_keys_are_refused(survey, cli, args, message):
    from masrl.core.didyoumean import did_you_mean

    keys = [r["key"] for r in load(survey).retained.values()]
    run = cli("suggest", "--root", survey, *args)
    assert run.code == 1 and run.err.endswith(message.format(hint=did_you_mean(args[0], keys)) + "\n")


def test_an_unknown_key_like_no_other_gets_no_hint(survey, cli):
    run = cli("suggest", "--root", survey, "zzqxw-0")
    assert run.code == 1 and run.err.endswith(
        "masrl: error: no retained record has the key 'zzqxw-0'; the keys are the file names under corpus/papers/\n")


def test_a_key_close_to_a_real_one_gets_did_you_mean(stub, cli):
    root, key = stub
    run = cli("suggest", "--root", root, key + "x")
    assert run.code == 1 and f"(did you mean '{key}'?)" in run.err


def test_a_tagged_record_is_refused(survey, cli):
    key = sorted(r["key"] for r in load(survey).retained.values())[0]
    run = cli("suggest", "--root", survey, key)
    assert run.code == 1
    assert run.err.endswith(f"every controlled field of {key!r} is tagged; nothing to suggest "
                            "(masrl suggest proposes values for untagged fields)\n")
    mistyped = cli("suggest", "--root", survey, key, "--apply", "categry=framework")  # run 33: no did-you-mean when tagged
    assert mistyped.code == 1 and "'categry' is not a controlled field" in mistyped.err, mistyped.err
    assert "did you mean 'category'" in mistyped.err, mistyped.err


def test_bad_assignments_are_refused_all_at_once(stub, cli):
    root, key = stub
    tax = Taxonomy(load(root).taxonomy)
    first = tax.of("retained")[0]
    bad_value = first.values[0].replace("_", "-") + "x"
    before = (root / f"corpus/papers/{key}.yaml").read_bytes()
    run = cli("suggest", "--root", root, key, "--apply", "title=Something", "--apply", f"{first.name}={bad_value}",
              "--apply", "noequals")
    assert run.code == 1
    lines = run.err.splitlines()
    assert lines[-1] == "masrl: error: 3 errors in the command line; nothing was written."
    controlled = ", ".join(f.name for f in tax.of("retained"))
    assert f"command line: --apply: 'title' is not a controlled field of retained records; controlled fields: {controlled}" in lines
    assert any(line.startswith(f"command line: --apply: {bad_value!r} is not a value of {first.name}; allowed: "
                               f"{', '.join(first.values)}") for line in lines)
    assert "command line: --apply: 'noequals' is not FIELD=VALUE (a controlled field, =, one of its values)" in lines
    assert (root / f"corpus/papers/{key}.yaml").read_bytes() == before


def test_a_tag_is_never_overwritten(stub, cli):
    root, key = stub
    tax = Taxonomy(load(root).taxonomy)
    f = next(f for f in tax.of("retained") if not f.multi and not f.required_when and not structure.dependents(tax, f.name))
    assert cli("suggest", "--root", root, key, "--apply", f"{f.name}={f.values[0]}").code == 0
    run = cli("suggest", "--root", root, key, "--apply", f"{f.name}={f.values[-1]}")
    assert run.code == 1
    assert (f"command line: --apply: {f.name} is tagged already ({f.values[0]!r}); masrl suggest never overwrites a tag: "
            "edit the record by hand") in run.err


def test_apply_and_draft_together_is_a_usage_error(stub, cli):
    root, key = stub
    run = cli("suggest", "--root", root, key, "--draft", "--apply", "x=y")
    assert run.code == 2


def test_a_draft_is_marked_not_confirmed_and_can_be_confirmed(stub, cli):
    root, key = stub
    data = _json(cli, root, key)
    assert cli("suggest", "--root", root, key, "--draft").code == 0
    rec = _record(root, key)
    for field, items in data.items():
        assert rec[field] == items[0]["value"]
        assert rec["tag_provenance"][field].endswith("), not confirmed")
    assert rec["verified"] == "untagged" and "verified" not in rec["tag_provenance"]  # suggest: false: no draft either
    # the draft is no evidence, and its fields are suggested again for confirmation, each saying what it holds
    again = _json(cli, root, key)
    assert set(again) == set(data)
    assert {f: [i["value"] for i in items if i.get("drafted")] for f, items in again.items()} == \
        {f: [items[0]["value"]] for f, items in data.items()}  # the same text, the same best value: the one drafted
    shown = cli("suggest", "--root", root, key).out.splitlines()
    arg = lambda v: ",".join(v) if isinstance(v, list) else v  # noqa: E731
    for field, items in data.items():
        at = next(i for i, line in enumerate(shown) if line.startswith(f"{field} ("))
        assert f"  drafted, not confirmed: {_shown(items[0]['value'])} (suggestion 1 below)" in shown[at + 1:at + 3], field
    assert (f"to confirm the drafted values as they are: masrl suggest {key} "
            + " ".join(f"--apply {field}={arg(items[0]['value'])}" for field, items in data.items())) in shown
    assert not any(line.startswith("to write them as a draft") for line in shown)  # drafted already
    field, items = next(iter(data.items()))
    value = items[0]["value"]
    assert cli("suggest", "--root", root, key, "--apply", f"{field}={','.join(value) if isinstance(value, list) else value}").code == 0
    assert _record(root, key)["tag_provenance"][field].endswith("), confirmed")


def test_a_draft_edited_by_hand_is_shown_as_it_is(stub, cli, set_field):
    """A drafted value changed by hand (its provenance still "not confirmed") is shown as the draft,
    outside the suggestions; a drafted set is read in any order."""
    root, key = stub
    data = _json(cli, root, key)
    assert cli("suggest", "--root", root, key, "--draft").code == 0
    tax = Taxonomy(load(root).taxonomy)
    scalar = next(f for f in data if not tax.fields[f].multi and len(tax.values(f)) > len(data[f]) + 1)
    outside = next(v for v in tax.values(scalar) if v not in {i["value"] for i in data[scalar]} and v != "NA")
    set_field(root / f"corpus/papers/{key}.yaml", scalar, outside)
    shown = cli("suggest", "--root", root, key).out.splitlines()
    at = next(i for i, line in enumerate(shown) if line.startswith(f"{scalar} ("))
    assert shown[at + 1] == f"  drafted, not confirmed: {outside} (not among the suggestions below)"
    assert f"--apply {scalar}={outside}" in next(line for line in shown if line.startswith("to confirm the drafted values"))
    assert any(line.startswith("to apply the best values: ") for line in shown)  # no longer the drafts
    assert not any(i.get("drafted") for i in _json(cli, root, key)[scalar])
    multi = next((f for f in data if tax.fields[f].multi and len(data[f][0]["value"]) > 1), None)
    if multi:  # a drafted set written in another order is the same set
        value = data[multi][0]["value"]
        set_field(root / f"corpus/papers/{key}.yaml", multi, "[" + ", ".join(reversed(value)) + "]")
        assert [i["value"] for i in _json(cli, root, key)[multi] if i.get("drafted")] == [value]


def test_a_draft_is_named_in_the_diff_for_the_pull_request(survey, cli, set_field):
    # the records of the tree in front of the test with drafts (a contributor's paper may hold some)
    before = {p.stem: provenance.unconfirmed_fields(_record(survey, p.stem)) for p in (survey / "corpus/papers").glob("*.yaml")}
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-qm", "base")):
        grow.git(survey, *args)
    key = _add(cli, survey)
    assert cli("suggest", "--root", survey, key, "--draft").code == 0
    set_field(survey / f"corpus/papers/{key}.yaml", "one_liner", "Trains an orchestrator of parallel sub-agents")
    set_field(survey / f"corpus/papers/{key}.yaml", "verified", "'no'")
    drafts = {k: f for k, f in {**before, key: provenance.unconfirmed_fields(_record(survey, key))}.items() if f}
    run = cli("diff", "--root", survey, "HEAD")
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    at = lines.index("### Suggested tags not confirmed")
    assert lines[at + 1:at + 7 + len(drafts)] == [
        "", "Drafted by `masrl suggest --draft`; `masrl release` refuses them until a person confirms each",
        "(`masrl suggest KEY` shows them beside the suggestions).", "",
        *[f"- `{k}`: {', '.join(drafts[k])}" for k in sorted(drafts)], "", "### Counts and table cells"]
    data = json.loads(cli("diff", "--root", survey, "HEAD", "--json").out)
    assert data["drafts"] == [{"key": k, "fields": drafts[k]} for k in sorted(drafts)]
    grow.confirm_drafts(survey)
    assert "### Suggested tags not confirmed" not in cli("diff", "--root", survey, "HEAD").out


def test_a_draft_shows_in_the_site_and_the_audit_report(stub, cli, set_field):
    root, key = stub
    assert cli("suggest", "--root", root, key, "--draft").code == 0
    set_field(root / f"corpus/papers/{key}.yaml", "one_liner", "Trains an orchestrator of parallel sub-agents")
    set_field(root / f"corpus/papers/{key}.yaml", "verified", "yes")  # suggest: false: never drafted, tagged by hand
    run = cli("build", "--root", root, "--no-figures")
    assert run.code in (0, 1), run.err  # a pool claim may move with a new record; the reports are written
    rec = _record(root, key)
    draft = [f for f, how in rec["tag_provenance"].items() if how.endswith("not confirmed")]
    index = (root / "reports/site/index.html").read_text(encoding="utf-8")
    assert (f'<span class="badge" title="tags suggested by masrl suggest that no person has confirmed: '
            f'{", ".join(draft)}">suggested tags</span>') in index
    audit = (root / "reports/audit.md").read_text(encoding="utf-8")
    assert "## Suggested tags" in audit
    records = list(load(root).retained.values())
    tagged, first = len(records), draft[0]
    # the tree's own suggested tags of that field (a contributor's confirmed suggestion, say), besides the draft's
    states = {r["key"]: provenance.state((r.get("tag_provenance") or {}).get(first)) for r in records}
    confirmed = sorted(k for k, v in states.items() if v == provenance.CONFIRMED)
    unconfirmed = sorted(k for k, v in states.items() if v == provenance.NOT_CONFIRMED)
    assert key in unconfirmed
    other = tagged - len(confirmed) - len(unconfirmed)
    assert f"| {first} | {tagged} | {len(confirmed)} | {len(unconfirmed)} | {other} |" in audit
    data = json.loads((root / "reports/audit.json").read_text(encoding="utf-8"))
    entry = next(e for e in data["suggested_tags"] if e["field"] == first)
    assert entry == {"field": first, "tags": tagged, "confirmed": confirmed, "not_confirmed": unconfirmed, "other": other}


def test_a_release_refuses_tags_no_person_has_confirmed(stub, cli, set_field):
    root, key = stub
    assert cli("suggest", "--root", root, key, "--draft").code == 0
    set_field(root / f"corpus/papers/{key}.yaml", "one_liner", "Trains an orchestrator of parallel sub-agents")
    set_field(root / f"corpus/papers/{key}.yaml", "verified", "yes")  # suggest: false: never drafted, tagged by hand
    # the records of the tree in front of the test with drafts (a contributor's paper may hold some), and the stub
    drafts = {k: fields for k, r in ((p.stem, _record(root, p.stem)) for p in (root / "corpus/papers").glob("*.yaml"))
              if (fields := provenance.unconfirmed_fields(r))}
    assert drafts[key] == [f for f, how in _record(root, key)["tag_provenance"].items() if how.endswith("not confirmed")]
    named = "; ".join(f"{k} ({', '.join(drafts[k])})" for k in sorted(drafts))
    run = cli("release", "zz-next", "--root", root, "--date", clock.today().isoformat())
    assert run.code == 1
    assert run.err.splitlines()[-1] == (
        f"masrl: error: {len(drafts)} record(s) hold suggested tags no person has confirmed: {named}. A release "
        "freezes what the survey states: confirm each with `masrl suggest KEY --apply FIELD=VALUE` (or tag it by hand), "
        "then release")
    assert not (root / "corpus/releases/zz-next.yaml").exists()
    validated = cli("validate", "--root", root)  # valid, with a note naming them
    assert validated.code == 0 and validated.err == "" and validated.out.splitlines()[-1] == (
        f"note: {len(drafts)} record(s) hold suggested tags no person has confirmed: {named}. They are valid and built as "
        "drafts; `masrl release` refuses them until each is confirmed (`masrl suggest KEY --apply FIELD=VALUE`, or a tag by hand)")
    # confirmed as drafted (what the tests do before freezing a release: tests/grow.py), the release goes ahead
    assert grow.confirm_drafts(root) == sorted(drafts)
    assert all(how.endswith(", confirmed") for how in _record(root, key)["tag_provenance"].values() if how.startswith("suggested"))
    assert cli("validate", "--root", root).out.splitlines()[-1].startswith("ok: ")
    run = cli("release", "zz-next", "--root", root, "--date", clock.today().isoformat())
    assert run.code == 0, run.err


# ---------------------------------------------------------------- structure from any taxonomy
def test_structure_comes_from_the_taxonomy_not_from_field_names():
    tax = Taxonomy({"format_version": 2, "not_applicable": "NA", "fields": {
        "mech": {"applies_to": "retained", "na_iff": {"unit": "NA"}, "values": {"x": {}, "NA": {}}},
        "unit": {"applies_to": "retained", "values": {"a": {}, "NA": {}}},
        "kind": {"applies_to": "retained", "values": {"p": {"implies": {"crit": "c2"}}, "q": {}}},
        "crit": {"applies_to": "retained", "values": {"c1": {}, "c2": {}}},
        "extra": {"applies_to": "retained", "required_when": {"kind": ["q"]}, "multi": True, "values": {"e1": {}, "e2": {}}},
        "stage": {"applies_to": "excluded", "values": {"s": {}}},
    }})
    assert [f.name for f in structure.order(tax)] == ["unit", "mech", "kind", "crit", "extra"]
    assert structure.allowed(tax.fields["mech"], tax, {"unit": "NA"})[0] == ["NA"]
    assert structure.allowed(tax.fields["mech"], tax, {"unit": "a"})[0] == ["x"]
    assert structure.allowed(tax.fields["crit"], tax, {"kind": "p"})[0] == ["c2"]
    assert structure.allowed(tax.fields["crit"], tax, {"kind": "q"})[0] == ["c1", "c2"]
    assert [structure.applies(tax.fields["extra"], tax, c) for c in ({"kind": "q"}, {"kind": "p"}, {})] == [True, False, None]


# ---------------------------------------------------------------- screening
def test_screening_rank_orders_candidates_and_gives_likely_reasons(published_tree):
    corpus = load(published_tree)
    excluded = sorted(corpus.excluded.values(), key=lambda r: r["record_id"])
    retained = sorted(corpus.retained.values(), key=lambda r: r["key"])
    candidates = [{"title": excluded[0]["screening_label"], "venue": "arXiv", "authors": ["Doe, Jane"]},
                  {"title": retained[0]["title"], "abstract": "", "authors": []}]
    ranked = screening.rank_candidates(corpus, candidates)
    assert [r.rank for r in ranked] == [1, 2]
    assert sorted(r.index for r in ranked) == [0, 1]
    assert ranked[0].score >= ranked[1].score
    reasons = Taxonomy(corpus.taxonomy).values("reason_class")
    for r in ranked:
        assert 0 <= r.score <= 1
        assert (r.likely_reason is None) == (r.score >= 0.5)
        assert r.likely_reason is None or r.likely_reason in reasons
        assert r.evidence and all(e.similarity >= 0 for e in r.evidence)
    # a candidate identical to a judged record has it as its nearest evidence
    by_index = {r.index: r for r in ranked}
    assert excluded[0]["record_id"] in [e.ident for e in by_index[0].evidence if not e.retained][:1]
    assert retained[0]["key"] in [e.ident for e in by_index[1].evidence if e.retained][:1]
    assert screening.rank_candidates(corpus, candidates) == ranked
    assert screening.rank_candidates(corpus, []) == []


def test_screening_measure_is_against_random_order(published_tree):
    corpus = load(published_tree)
    s = evaluate.measure_screening(corpus)
    assert (s.n, s.relevant) == (len(corpus.retained) + len(corpus.excluded), len(corpus.retained))
    assert s.random_recall50 == (s.n // 2) / s.n
    assert -0.05 <= s.wss95 <= 0.95 and 0 <= s.recall50 <= 1
    assert evaluate.measure_screening(corpus) == s


def test_add_dry_run_shows_the_screening_rank(survey, cli, tmp_path):
    bib = tmp_path / "new.bib"
    bib.write_text("@article{a1, title={Multi-Agent Debate for Factuality without Training}, author={Doe, Jane}, year={2025},"
                   " journal={arXiv preprint arXiv:2511.00001}}\n"
                   "@article{a2, title={Credit Assignment for LLM Agent Teams via Reinforcement Learning}, author={Roe, Rick},"
                   " year={2026}, journal={arXiv preprint arXiv:2601.00002}}\n", encoding="utf-8")
    run = cli("add", "--root", survey, "--bibtex", bib, "--dry-run")
    assert run.code == 0, run.err
    lines = [line for line in run.out.splitlines() if line.startswith("# screening rank")]
    assert [line.split(":")[0] for line in lines] == ["# screening rank 1 of 2", "# screening rank 2 of 2"]
    for line in lines:
        assert re.fullmatch(r"# screening rank \d of 2: score [01]\.\d{3}, (resembles the retained records|likely exclusion "
                            r"reason X\d \([^)]+\)); nearest judged records: .+", line), line
    assert not (survey / "corpus/papers/doe2025.yaml").exists()


def test_a_field_the_taxonomy_does_not_suggest_is_named_to_tag_by_hand_and_can_be_applied(stub, cli):
    """``verified`` (``suggest: false``): no values shown, named on the line of fields to tag by hand,
    and ``--apply`` writes a person's value for it, recorded as a hand tag."""
    root, key = stub
    text = cli("suggest", "--root", root, key).out
    assert "\nverified (" not in text
    assert ("to tag by hand (the taxonomy says suggest: false: no other record's tags can tell them): verified\n"
            in text)
    run = cli("suggest", "--root", root, key, "--apply", "verified=partial")
    assert run.code == 0, run.err
    rec = _record(root, key)
    assert rec["verified"] == "partial"
    assert "to tag by hand" not in cli("suggest", "--root", root, key).out


def test_a_long_list_of_drafted_records_names_ten_and_counts_the_rest():
    items = [f"k{i:02d} (category)" for i in range(12)]
    assert provenance.named(items) == "; ".join(items[:10]) + "; and 2 more"
    assert provenance.named(items[:10]) == "; ".join(items[:10])


def test_a_provenance_keeps_what_its_suggestion_assumed_sets_included():
    text = suggested(["c3", "halo"], confirmed=True, given={"subdecisions": ["O1", "O2"], "category": "benchmark"})
    assert text == "suggested (masrl suggest, neighbours c3, halo; with subdecisions [O1, O2], category benchmark), confirmed"
    assert provenance.assumed(text) == {"subdecisions": "[O1, O2]", "category": "benchmark"}
    assert provenance.state(text) == provenance.CONFIRMED
    assert provenance.assumed(suggested([], confirmed=False, given={"subdecisions": []})) == {"subdecisions": "[]"}
    assert provenance.assumed("hand-tagged: nearest criterion") == {} == provenance.assumed(suggested(["c3"], True))
