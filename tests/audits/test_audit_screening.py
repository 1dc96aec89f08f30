"""Exclusion audits: second-reader decisions, an exclusion overturned into a retained stub, PRISMA confirmations."""

from __future__ import annotations

import json

import yaml

AUDIT = "screening-2026-06-02"


def _round(survey, cli, sheets, tmp_path, changes):
    assert cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "8", "--seed", "3",
               "--stratify", "stage", "--date", "2026-06-02").code == 0
    sample = sheets.sample(survey, AUDIT)
    by_record = {i["record"]: i for i in sample["items"]}
    resolved = {(by_record[rec]["item"], field): value for (rec, field), value in changes.items()}
    rows = sheets.filled(survey, AUDIT, resolved)
    sheet = sheets.write(tmp_path / "li.tsv", rows, delimiter="\t", encoding="utf-16")  # Excel "Unicode text"
    run = cli("audit", "import", sheet, "--root", survey, "--audit", AUDIT, "--reader", "Li Wei", "--date", "2026-06-03")
    assert run.code == 0, run.err
    return sample, by_record, run


def test_screening_round_overturns_an_exclusion_into_a_stub(survey, cli, sheets, tmp_path):
    sample, by_record, run = _round(survey, cli, sheets, tmp_path, {
        ("E007", "decision"): "include", ("E007", "stage"): "", ("E007", "reason_class"): "",
        ("E005", "reason_class"): "X2"})
    assert sorted(by_record) == ["E005", "E007", "E010", "E020", "E024", "E025", "E031", "E032"]
    assert "| decision | 8 | 7 | 0.875 [0.529, 0.978] | 0.000 [not estimable] | " in run.out  # the original excluded all: κ paradox
    assert "| stage (items every reader excluded) | 7 | 7 |" in run.out
    assert "| reason_class (items every reader excluded) | 7 | 6 |" in run.out
    assert "- decision: 7 of 8 items agree and 'exclude' is 94% of all ratings" in run.out

    assert cli("audit", "adjudicate", AUDIT, "--root", survey).code == 0
    path = survey / f"corpus/audits/{AUDIT}/adjudication-round-1.yaml"
    adjudication = yaml.safe_load(path.read_text())
    entries = {(r["record"], r["field"]): r for r in adjudication["resolutions"]}
    assert set(entries) == {("E005", "reason_class"), ("E007", "decision")}
    assert entries[("E007", "decision")]["authors"] is None  # asked for: the exclusion log has no authors
    entries[("E007", "decision")].update(resolved="include", by="Ada Lovelace")
    entries[("E005", "reason_class")].update(resolved="X2", by="Ada Lovelace")
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False))
    run = cli("audit", "apply", AUDIT, "--root", survey)
    assert run.code == 1
    assert ("resolutions[1]: E007 is resolved as include, but the exclusion log does not record its authors and year: "
            "give authors, year (and venue) in this entry") in run.err

    entries[("E007", "decision")].update(authors=["Hong, Sirui", "others"], year=2023, venue="ICLR 2024")
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False))
    exclusion = (survey / "exclusions/E007.yaml").read_text()
    run = cli("audit", "apply", AUDIT, "--root", survey, "--yes")
    assert run.code == 0, run.err
    assert "--- /dev/null\n+++ b/corpus/papers/hong2023.yaml\n" in run.out
    assert "--- a/exclusions/E007.yaml\n+++ /dev/null\n" in run.out
    assert not (survey / "exclusions/E007.yaml").exists()
    stub = yaml.safe_load((survey / "corpus/papers/hong2023.yaml").read_text())
    assert stub["former_record_id"] == "E007" and stub["former_exclusion"] == yaml.safe_load(exclusion)
    assert stub["category"] == "untagged" and stub["identifiers"] == {"arxiv": "2308.00352"}
    assert (stub["authors"], stub["year"], stub["venue"]) == (["Hong, Sirui", "others"], 2023, "ICLR 2024")
    assert stub["bibtex"] == {"type": "inproceedings", "title": stub["title"], "booktitle": "ICLR 2024", "year": "2023"}  # as `masrl add` writes it
    assert stub["tag_provenance"] == {"inclusion_criterion": f"audit {AUDIT} round 1: adjudicated by Ada Lovelace: include, not exclude"}
    assert stub["provenance"]["source"] == f"masrl audit apply {AUDIT} (round 1): exclusion E007 overturned by Ada Lovelace"
    e005 = yaml.safe_load((survey / "exclusions/E005.yaml").read_text())
    assert e005["reason_class"] == "X2"
    assert e005["tag_provenance"]["reason_class"] == f"audit {AUDIT} round 1: adjudicated by Ada Lovelace (was X1)"

    check = cli("validate", "--root", survey)
    assert check.code == 1 and {line.split(":")[0] for line in check.err.splitlines()[:-1]} == {"corpus/papers/hong2023.yaml"}
    assert all("untagged" in line for line in check.err.splitlines()[:-1])  # only the tags are left to do
    assert cli("audit", "apply", AUDIT, "--root", survey).out.startswith("nothing to apply")


def test_confirmed_exclusions_feed_the_prisma_table(survey, cli, sheets, tmp_path, published_tree):
    _round(survey, cli, sheets, tmp_path, {("E010", "decision"): "include", ("E010", "stage"): "", ("E010", "reason_class"): ""})
    assert cli("build", "--root", survey, "--no-figures").code == 0
    table = (survey / "reports/tables/prisma_flow.csv").read_text().splitlines()
    assert table[0] == "stage,assessed,excluded,X1,X2,X3,X4,X5,remaining,2nd reader checked,2nd reader confirmed"
    # checked: E005 E007 E010 E032 (abstract), E020 E031 (full text), E024 E025 (artifact); E010 not confirmed
    assert [row.split(",")[-2:] for row in table[1:]] == [["4", "3"], ["2", "2"], ["2", "2"], ["0", "0"]]
    assert (published_tree / "reports/releases/v1/tables/prisma_flow.csv").read_text().splitlines()[0] == \
        "stage,assessed,excluded,X1,X2,X3,X4,X5,remaining"  # no screening audit: the published table keeps its shape
    data = json.loads((survey / "reports/audit.json").read_text())
    entry = next(a for a in data["agreements"] if a["audit_id"] == AUDIT)
    assert entry["kind"] == "screening" and entry["population"] == "excluded"


def test_a_retained_record_resolved_as_exclude_is_left_to_masrl_exclude(survey, cli, sheets, tmp_path):
    assert cli("audit", "sample", "--root", survey, "--population", "all", "--n", "6", "--seed", "1", "--id", "both",
               "--stratify", "decision").code == 0
    sample = sheets.sample(survey, "both")
    kept = next(i for i in sample["items"] if i["kind"] == "retained")
    rows = sheets.filled(survey, "both", {(kept["item"], "decision"): "exclude", (kept["item"], "stage"): "full_text_screen",
                                          (kept["item"], "reason_class"): "X5"})
    assert cli("audit", "import", sheets.write(tmp_path / "x.csv", rows), "--root", survey, "--audit", "both",
               "--reader", "R").code == 0
    assert cli("audit", "adjudicate", "both", "--root", survey).code == 0
    path = survey / "corpus/audits/both/adjudication-round-1.yaml"
    adjudication = yaml.safe_load(path.read_text())
    assert [r["field"] for r in adjudication["resolutions"]] == ["decision"]
    adjudication["resolutions"][0].update(resolved="exclude", by="Ada")
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False))
    run = cli("audit", "apply", "both", "--root", survey, "--yes")
    assert run.code == 0, run.err
    assert (f"by hand: {kept['record']} is resolved as exclude: masrl exclude --key {kept['record']} --stage STAGE "
            "--reason-class REASON_CLASS --source SOURCE --query-family QUERY_FAMILY --reason '...'") in run.out
    assert (survey / f"corpus/papers/{kept['record']}.yaml").exists()



def _exclude(survey, cli, key):
    assert cli("exclude", "--root", survey, "--key", key, "--reason", "not RL", "--stage", "full_text_screen",
               "--reason-class", "X1", "--source", "arXiv", "--query-family", "orchestration").code == 0
    return next(p.stem for p in (survey / "exclusions").glob("*.yaml") if yaml.safe_load(p.read_text()).get("former_key") == key)


def _overturn(survey, cli, sheets, tmp_path, record_id):
    assert cli("audit", "sample", "--root", survey, "--population", "excluded", "--n", "33", "--seed", "1",
               "--date", "2026-06-02").code == 0
    item = next(i["item"] for i in sheets.sample(survey, AUDIT)["items"] if i["record"] == record_id)
    rows = sheets.filled(survey, AUDIT, {(item, "decision"): "include", (item, "stage"): "", (item, "reason_class"): ""})
    assert cli("audit", "import", sheets.write(tmp_path / "r.csv", rows), "--root", survey, "--audit", AUDIT,
               "--reader", "Li Wei").code == 0
    assert cli("audit", "adjudicate", AUDIT, "--root", survey).code == 0
    path = survey / f"corpus/audits/{AUDIT}/adjudication-round-1.yaml"
    adjudication = yaml.safe_load(path.read_text())
    assert [(r["record"], r["field"]) for r in adjudication["resolutions"]] == [(record_id, "decision")]
    adjudication["resolutions"][0].update(resolved="include", by="Ada Lovelace")
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False))
    return cli("audit", "apply", AUDIT, "--root", survey, "--yes")


def test_a_record_excluded_by_key_and_overturned_comes_back_as_it_was(survey, cli, sheets, tmp_path):
    key = "browsecomp2025"
    before = yaml.safe_load((survey / f"corpus/papers/{key}.yaml").read_text())
    record_id = _exclude(survey, cli, key)
    run = _overturn(survey, cli, sheets, tmp_path, record_id)
    assert run.code == 0, run.err
    assert f"{record_id}: exclusion overturned -> corpus/papers/{key}.yaml restored as it was" in run.out
    assert ", 0 stub(s) created, 1 record(s) restored, 1 exclusion(s) overturned." in run.out
    back = yaml.safe_load((survey / f"corpus/papers/{key}.yaml").read_text())
    assert back["former_record_id"] == record_id and back["former_exclusion"]["former_record"] == before
    assert {k: v for k, v in back.items() if k not in ("former_record_id", "former_exclusion", "tag_provenance")} == \
        {k: v for k, v in before.items() if k != "tag_provenance"}  # its key, tags, date added and history
    assert back["tag_provenance"]["inclusion_criterion"].startswith(f"audit {AUDIT} round 1: adjudicated by Ada Lovelace")
    assert cli("validate", "--root", survey).code == 0
    assert cli("build", "--root", survey, "--no-figures").code == 0
    assert f"{{{key}," in (survey / "reports/papers.bib").read_text()
    flow = (survey / "reports/tables/prisma_flow.csv").read_text()
    assert "new records" not in flow and "dropped" not in flow  # the same record as in release v1: no change to count

