"""A full audit round on a copy of the survey: sample -> filled sheet -> import -> agreement -> adjudicate -> apply."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
import yaml

from masrl.corpus.load import load
from masrl.corpus.taxonomy import Taxonomy

AUDIT = "tags-2026-06-01"


def _other(value: str, allowed: tuple[str, ...]) -> str:
    return next(v for v in allowed if v != value)


def _hand_coefficients(first: list[str], second: list[str], q: int) -> dict:
    """Cohen's κ, AC1 and PABAK of two readers from their textbook formulas."""
    n = len(first)
    p_o = sum(a == b for a, b in zip(first, second)) / n
    rows, cols = Counter(first), Counter(second)
    p_e = sum(rows[k] * cols[k] for k in rows) / n ** 2
    pi = {k: (rows[k] + cols[k]) / (2 * n) for k in set(first) | set(second)}
    pe_ac1 = sum(p * (1 - p) for p in pi.values()) / (q - 1)
    return {"observed": p_o, "kappa": (p_o - p_e) / (1 - p_e), "ac1": (p_o - pe_ac1) / (1 - pe_ac1),
            "pabak": (q * p_o - 1) / (q - 1)}


def test_a_full_round_end_to_end(survey, cli, sheets, tmp_path):
    run = cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "12", "--seed", "11",
              "--stratify", "category", "--fields", "category,is_rl,scenario", "--date", "2026-06-01")
    assert run.code == 0, run.err
    assert run.out.startswith(f"created corpus/audits/{AUDIT}/audit.yaml\n")
    sample = sheets.sample(survey, AUDIT)
    assert [s["sampled"] for s in sample["sampling"]["strata"]] == [6, 0, 3, 1, 1, 1]  # 42/3/18/6/10/5 of 84, Hamilton
    assert [i["item"] for i in sample["items"]] == [f"S{k:02d}" for k in range(1, 13)]

    tax = Taxonomy(load(survey).taxonomy)
    first, second = sample["items"][0], sample["items"][1]
    new_scenario = _other(first["original"]["scenario"], tax.values("scenario"))
    new_is_rl = _other(second["original"]["is_rl"], tax.values("is_rl"))
    rows = sheets.filled(survey, AUDIT, {("S01", "scenario"): new_scenario, ("S02", "is_rl"): new_is_rl},
                         {"S03": "abstract only; full text behind a paywall"})
    sheet = sheets.write(tmp_path / "jane.csv", rows, delimiter=";", encoding="utf-8-sig")  # Excel, European locale

    run = cli("audit", "import", sheet, "--root", survey, "--audit", AUDIT, "--reader", "Jane Doe", "--date", "2026-06-03")
    assert run.code == 0, run.err
    stored = yaml.safe_load((survey / f"corpus/audits/{AUDIT}/rounds/round-1-jane-doe.yaml").read_text())
    assert (stored["round"], stored["reader"], stored["date"], stored["source"]["file"]) == (1, "Jane Doe", "2026-06-03", "jane.csv")
    assert stored["rows"][0] == {"item": "S01", "record": first["record"],
                                 "values": {**{k: first["original"][k] for k in ("category", "is_rl")}, "scenario": new_scenario}}
    assert stored["rows"][2]["note"] == "abstract only; full text behind a paywall"
    assert f"| S01 | {first['record']} | scenario | {first['original']['scenario']} | {new_scenario} | not adjudicated |  |" in run.out

    assert cli("build", "--root", survey, "--no-figures").code == 0
    report = json.loads((survey / "reports/audit.json").read_text())
    entry = next(a for a in report["agreements"] if a["audit_id"] == AUDIT)
    fields = {f["field"]: f for f in entry["rounds"][0]["fields"]}
    assert entry["rounds"][0]["readers"] == ["original", "Jane Doe"]
    assert {k: (f["agree"], f["items"]) for k, f in fields.items()} == {"category": (12, 12), "is_rl": (11, 12), "scenario": (11, 12)}
    # statsmodels (the reference) is imported here, not when the module is collected (a second per worker)
    from statsmodels.stats.inter_rater import cohens_kappa
    from statsmodels.stats.proportion import proportion_confint

    for name in ("is_rl", "scenario"):
        a = [i["original"][name] for i in sample["items"]]
        b = [r["values"][name] for r in stored["rows"]]
        q = len(tax.values(name))
        hand = _hand_coefficients(a, b, q)
        for key in ("observed", "kappa", "ac1", "pabak"):
            assert fields[name][key] == pytest.approx(hand[key], abs=1e-6), (name, key)
        labels = list(tax.values(name))
        table = [[sum(x == r and y == c for x, y in zip(a, b)) for c in labels] for r in labels]
        sm = cohens_kappa(table)
        assert fields[name]["kappa"] == pytest.approx(sm.kappa, abs=1e-6)
        assert fields[name]["kappa_ci"] == pytest.approx([max(-1, sm.kappa_low), min(1, sm.kappa_upp)], abs=1e-6)
        assert fields[name]["observed_ci"] == pytest.approx(list(proportion_confint(11, 12, method="wilson")), abs=1e-6)
    assert fields["category"]["kappa"] == 1.0 and fields["category"]["disagreements"] == []
    md = (survey / "reports/audit.md").read_text()
    assert f"### {AUDIT}\n\nSample: 12 retained records drawn 2026-06-01 with seed 11, stratified by `category`" in md
    # the strata are a list a reader reads: each "value n of N", after a comma and a space (a space had been lost)
    assert re.search(r"stratified by `category` \([^,() ]+ \d+ of \d+(, [^,() ]+ \d+ of \d+)+\); fields:", md), md

    run = cli("audit", "adjudicate", AUDIT, "--root", survey)
    assert run.code == 0 and "adjudication-round-1.yaml with 2 disagreement(s)" in run.out
    path = survey / f"corpus/audits/{AUDIT}/adjudication-round-1.yaml"
    text = path.read_text()
    assert text.startswith("# For each disagreement, write the resolved value in 'resolved'")
    adjudication = yaml.safe_load(text)
    assert [(r["item"], r["field"], r["values"]) for r in adjudication["resolutions"]] == [
        ("S01", "scenario", {"original": first["original"]["scenario"], "Jane Doe": new_scenario}),
        ("S02", "is_rl", {"original": second["original"]["is_rl"], "Jane Doe": new_is_rl})]
    adjudication["resolutions"][0].update(resolved=new_scenario, by="Ada Lovelace", date="2026-06-05")
    adjudication["resolutions"][1].update(resolved=second["original"]["is_rl"], by="Ada Lovelace", note="original stands")
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False))

    # S01's record moved to the exclusion log since the sample: its resolution is named (it had read "None now"), and
    # nothing is written; moved back, the round applies
    record = survey / f"corpus/papers/{first['record']}.yaml"
    kept = record.read_bytes()
    assert cli("exclude", "--root", survey, "--key", first["record"], "--stage", "abstract_screen", "--reason", "x",
               "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration").code == 0
    run = cli("audit", "apply", AUDIT, "--root", survey, "--yes")
    assert run.code == 1
    assert re.search(rf"resolutions\[0\]: {first['record']} was retained in the sample and is moved to the exclusion log "
                     rf"\(E[0-9]+\): its scenario cannot be resolved on it: remove this resolution", run.err), run.err
    for moved in (survey / "exclusions").glob("*.yaml"):
        if f"former_key: {first['record']}" in moved.read_text():
            moved.unlink()
    record.write_bytes(kept)

    before = record.read_bytes()
    run = cli("audit", "apply", AUDIT, "--root", survey)
    assert run.code == 0, run.err
    assert record.read_bytes() == before  # no --yes: nothing written
    assert f"--- a/corpus/papers/{first['record']}.yaml\n+++ b/corpus/papers/{first['record']}.yaml\n" in run.out
    assert f"\n-scenario: {first['original']['scenario']}\n+scenario: {new_scenario}\n" in run.out
    provenance = f"audit {AUDIT} round 1: adjudicated by Ada Lovelace on 2026-06-05 (was {first['original']['scenario']})"
    assert f"+  scenario: '{provenance}'\n" in run.out
    assert run.out.endswith(f"change: {first['record']}: scenario {first['original']['scenario']} -> {new_scenario}\n"
                            "dry run: 1 file(s) would change; nothing was written (run again with --yes to write them)\n")

    run = cli("audit", "apply", AUDIT, "--root", survey, "--yes")
    assert run.code == 0, run.err
    edited = yaml.safe_load(record.read_text())
    assert edited["scenario"] == new_scenario and edited["tag_provenance"]["scenario"] == provenance
    assert yaml.safe_load(before)["is_rl"] == edited["is_rl"]
    assert cli("audit", "apply", AUDIT, "--root", survey).out == \
        "nothing to apply: the records already hold every resolved value of round 1\n"
    assert cli("validate", "--root", survey).code == 0
    assert cli("build", "--root", survey).code == 0
    entry = next(a for a in json.loads((survey / "reports/audit.json").read_text())["agreements"] if a["audit_id"] == AUDIT)
    # the audit's own edit, told apart from an edit made since the sample
    assert entry["applied"] == [[first["record"], "scenario", first["original"]["scenario"], new_scenario]]
    assert entry["changed"] == []
    assert [(d["resolved"], d["by"], d["status"]) for f in entry["rounds"][0]["fields"] for d in f["disagreements"]] == [
        (second["original"]["is_rl"], "Ada Lovelace", "resolved"), (new_scenario, "Ada Lovelace", "resolved")]
    assert cli("build", "--root", survey, "--check").code == 0
    # a sampled record moved to the exclusion log since the sample is a change the report names
    for third in sample["items"][2:]:  # the first the taxonomy and the claims do not name
        if cli("exclude", "--root", survey, "--key", third["record"], "--reason", "out of scope", "--stage",
               "full_text_screen", "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration").code == 0:
            break
    assert not (survey / f"corpus/papers/{third['record']}.yaml").exists()
    assert cli("build", "--root", survey, "--no-figures").code == 0
    entry = next(a for a in json.loads((survey / "reports/audit.json").read_text())["agreements"] if a["audit_id"] == AUDIT)
    assert entry["changed"] == [[third["record"], "decision", "include", "exclude"]]
    assert f"since the sample, apart from the adjudication: {third['record']} decision include → exclude." in \
        (survey / "reports/audit.md").read_text()


def test_the_same_seed_draws_the_same_sample(survey, cli, sheets):
    args = ("--root", survey, "--population", "retained", "--n", "9", "--stratify", "is_rl", "--date", "2026-06-01")
    assert cli("audit", "sample", *args, "--seed", "4", "--id", "a").code == 0
    assert cli("audit", "sample", *args, "--seed", "4", "--id", "b").code == 0
    assert cli("audit", "sample", *args, "--seed", "5", "--id", "c").code == 0
    records = {k: [i["record"] for i in sheets.sample(survey, k)["items"]] for k in "abc"}
    assert records["a"] == records["b"] and records["a"] != records["c"]
    assert (survey / "corpus/audits/a/sheet/sheet.csv").read_bytes() == (survey / "corpus/audits/b/sheet/sheet.csv").read_bytes()
    assert sheets.sample(survey, "a")["provenance"]["source"] == (
        "masrl audit sample --population retained --n 9 --seed 4 --stratify is_rl --id a")


def test_the_sheet_is_blind(survey, cli):
    assert cli("audit", "sample", "--root", survey, "--population", "all", "--n", "20", "--seed", "2",
               "--stratify", "decision", "--date", "2026-06-01").code == 0
    folder = survey / "corpus/audits/screening-2026-06-01"
    sheet = (folder / "sheet/sheet.csv").read_text(encoding="utf-8-sig")
    assert sheet.splitlines()[0] == "item,identifier,title,link,decision,stage,reason_class,note"
    audit = yaml.safe_load((folder / "audit.yaml").read_text())
    corpus = load(survey)
    for item in audit["items"]:
        rec = next((r for r in corpus.retained.values() if r["key"] == item["record"]), None)
        if rec is not None:
            assert f",{item['record']}," not in sheet and rec["one_liner"] not in sheet
        else:
            assert item["record"] not in sheet  # no E-numbers: they would tell excluded from retained
    assert [s["sampled"] for s in audit["sampling"]["strata"]] == [14, 6]  # 84 / 32 of 116
    assert "Inclusion criteria" in (folder / "sheet/instructions.md").read_text()
    values = (folder / "sheet/allowed-values.csv").read_text(encoding="utf-8-sig").splitlines()
    assert values[:3] == ["field,value,label,definition,when",
                          "decision,include,include,\"the record meets one of the inclusion criteria (I1, I2, I3, I4, I5) and is retained\",always",
                          "decision,exclude,exclude,the record meets none of the inclusion criteria; give the stage and the exclusion-reason class,always"]
    assert values[3].startswith("stage,abstract_screen,abstract screen,") and values[3].endswith(",only when decision is exclude; empty otherwise")


def test_kappa_paradox_in_the_report(survey, cli, sheets, tmp_path):
    """32 records stratified by a skewed field; the reader calls every one 'yes': κ = 0, AC1 and PABAK high."""
    assert cli("audit", "sample", "--root", survey, "--population", "retained", "--n", "32", "--seed", "5",
               "--stratify", "verified", "--fields", "verified", "--id", "skewed", "--date", "2026-06-01").code == 0
    sample = sheets.sample(survey, "skewed")
    partial = [i["item"] for i in sample["items"] if i["original"]["verified"] == "partial"]
    assert len(partial) == 3  # 8 of 84 partly verified: 3.05 of 32
    rows = sheets.filled(survey, "skewed", {(item, "verified"): "yes" for item in partial})
    run = cli("audit", "import", sheets.write(tmp_path / "s.csv", rows), "--root", survey, "--audit", "skewed", "--reader", "R")
    assert run.code == 0, run.err
    # by hand: p_o = 29/32; p_e(κ) = 29/32 * 32/32 = p_o -> κ = 0; pi_yes = 61/64, pi_partial = 3/64, q = 3
    p_o = 29 / 32
    pe = 2 * (61 / 64) * (3 / 64) / 2
    assert ("| verified | 32 | 29 | 0.906 [0.758, 0.968] | 0.000 [not estimable] | "
            f"{(p_o - pe) / (1 - pe):.3f} [") in run.out
    assert f"| {(3 * p_o - 1) / 2:.3f} [" in run.out
    assert ("- verified: 29 of 32 items agree and 'yes' is 95% of all ratings, so Cohen's κ is 0.000 while AC1 is "
            f"{(p_o - pe) / (1 - pe):.3f} and PABAK {(3 * p_o - 1) / 2:.3f}.") in run.out


def _init_with_methods(tmp_path, cli, methods):
    root = tmp_path / "s"
    assert cli("init", str(root), "--title", "Retired values").code == 0
    for i, method in enumerate(methods, 1):
        assert cli("add", "--root", root, "--no-fetch", "--arxiv", f"2605.0280{i}", "--title", f"Paper number {i} about things",
                   "--author", f"Auth{chr(96 + i)}, A", "--year", "2026").code == 0
    for path, method in zip(sorted((root / "corpus/papers").glob("*.yaml")), methods):
        text = path.read_text().replace("method: untagged", f"method: {method}").replace("  - untagged", "  - benchmark")
        path.write_text(text.replace("one_liner: untagged", "one_liner: x"))
    assert cli("validate", "--root", root).code == 0
    return root


def test_an_audit_keeps_the_values_of_its_time_when_one_is_retired(tmp_path, cli, sheets):
    root = _init_with_methods(tmp_path, cli, ["learned", "learned", "hand_crafted", "hand_crafted"])
    assert cli("audit", "sample", "--root", root, "--population", "retained", "--n", "4", "--seed", "1", "--fields", "method",
               "--id", "t").code == 0
    sample = sheets.sample(root, "t")
    assert sample["vocabulary"] == {"method": ["learned", "hand_crafted", "NA"]}  # the values of the time, recorded
    first = sample["items"][0]
    other = "learned" if first["original"]["method"] == "hand_crafted" else "hand_crafted"
    rows = sheets.filled(root, "t", {(first["item"], "method"): other})
    assert cli("audit", "import", sheets.write(tmp_path / "r.csv", rows), "--root", root, "--audit", "t", "--reader", "Bo").code == 0
    # the survey retires 'hand_crafted': its records are retagged, the value leaves the vocabulary
    for path in (root / "corpus/papers").glob("*.yaml"):
        path.write_text(path.read_text().replace("method: hand_crafted", "method: learned"))
    taxonomy = root / "corpus/taxonomy.yaml"
    taxonomy.write_text("".join(line for line in taxonomy.read_text().splitlines(keepends=True) if "hand_crafted:" not in line))
    assert cli("validate", "--root", root).code == 0  # the audit is a dated record: its values were the vocabulary's then
    assert cli("build", "--root", root, "--no-figures").code == 0
    report = (root / "reports/audit.md").read_text()
    assert "| method | 4 | 3 |" in report
    # a value added since is none of the audit's: its agreement (the categories it was read with) does not move
    taxonomy.write_text(taxonomy.read_text().replace("      NA: {label: not applicable", "      hybrid: {label: hybrid, definition: "
                                                     "both, source: \"your reading\"}\n      NA: {label: not applicable", 1))
    assert cli("build", "--root", root, "--no-figures").code == 0
    assert [line for line in (root / "reports/audit.md").read_text().splitlines() if line.startswith("| method |")] == \
        [line for line in report.splitlines() if line.startswith("| method |")]
    # a resolution can name the retired value (it was a choice then), but apply writes only today's values
    assert cli("audit", "adjudicate", "t", "--root", root).code == 0
    path = root / "corpus/audits/t/adjudication-round-1.yaml"
    adjudication = yaml.safe_load(path.read_text())
    adjudication["resolutions"][0].update(resolved="hand_crafted", by="Ada")
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False))
    assert cli("validate", "--root", root).code == 0
    run = cli("audit", "apply", "t", "--root", root, "--yes")
    assert run.code == 1 and ("method: 'hand_crafted' was a value when the audit was sampled but is not one of the "
                              "vocabulary now (corpus/taxonomy.yaml): resolve it to one of learned, hybrid, NA") in run.err
    # a value the audit never recorded is refused as before, and so is a recorded field the audit does not ask
    audit = root / "corpus/audits/t/audit.yaml"
    text = audit.read_text()
    audit.write_text(text.replace("vocabulary:\n", "vocabulary:\n  scenario:\n    - web\n", 1))
    run = cli("validate", "--root", root)
    assert run.code == 1 and "vocabulary.scenario: 'scenario' is neither a field of this audit (method) nor its stratification field" in run.err
    audit.write_text(text.replace("    - hand_crafted\n", "", 1))
    run = cli("validate", "--root", root)
    assert run.code == 1 and "'hand_crafted' is not an allowed value of method" in run.err


def test_an_audit_that_recorded_no_vocabulary_keeps_the_values_of_the_releases(tmp_path, cli, sheets, monkeypatch):
    root = _init_with_methods(tmp_path, cli, ["learned", "learned", "hand_crafted", "hand_crafted"])
    assert cli("audit", "sample", "--root", root, "--population", "retained", "--n", "4", "--seed", "1", "--fields", "method",
               "--id", "t").code == 0
    rows = sheets.filled(root, "t")
    assert cli("audit", "import", sheets.write(tmp_path / "r.csv", rows), "--root", root, "--audit", "t", "--reader", "Bo").code == 0
    audit = root / "corpus/audits/t/audit.yaml"
    text = audit.read_text()
    start = text.index("vocabulary:\n")
    audit.write_text(text[:start] + text[text.index("sampling:\n"):])  # as an earlier masrl wrote it
    for path in (root / "corpus/papers").glob("*.yaml"):
        path.write_text(path.read_text().replace("method: hand_crafted", "method: learned"))
    taxonomy = root / "corpus/taxonomy.yaml"
    before = taxonomy.read_text()
    taxonomy.write_text("".join(line for line in before.splitlines(keepends=True) if "hand_crafted:" not in line))
    run = cli("validate", "--root", root)  # no release knew the value: the audit's values are refused
    assert run.code == 1 and "'hand_crafted' is not an allowed value of method" in run.err
    taxonomy.write_text(before)
    assert cli("build", "--root", root, "--no-figures").code == 0
    assert cli("release", "v1", "--root", root, "--date", "2027-01-15").code == 0
    taxonomy.write_text("".join(line for line in before.splitlines(keepends=True) if "hand_crafted:" not in line))
    assert cli("validate", "--root", root).code == 0  # release v1 froze the vocabulary the audit was sampled under
    assert cli("build", "--root", root, "--no-figures").code == 0
    assert "| method | 4 | 4 |" in (root / "reports/audit.md").read_text()
