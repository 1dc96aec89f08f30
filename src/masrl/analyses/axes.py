"""The survey's taxonomy tables, computed from the records (pure functions).

* reward families R1-R8 (survey: Reward Families table);
* credit units token -> team with broad and strict counts (survey: credit hierarchy figure; claim ledger);
* orchestration sub-decisions O1-O5 with counts by RL status (survey: orchestration sub-decisions figure);
* topologies (survey: Topology Cheat Sheet);
* benchmark gap: domain x E1-E4 (survey: Benchmark Gap table; E2-E4 are masrl's reading);
* industrial deployment envelopes (publicly reported vendor figures, not the survey's text).

Editorial columns (representatives, anchors, brackets, defining features) come
from ``corpus/taxonomy.yaml``; every count comes from the records.
"""

from __future__ import annotations

import pandas as pd

from ..corpus.taxonomy import Taxonomy
from .counts import count_by, crosstab, records_per_value
from .table import Table


def _join(keys) -> str:
    return ", ".join(keys) if keys else "none"


def reward_families(retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """One row per family R1-R8: codes, typical credit unit, primary-tag count,
    how many of those are RL-trained (``is_rl`` yes), representatives."""
    rows = []
    for fid, fam in tax.reward_families.items():
        codes = list(fam["codes"])
        tagged = retained[retained["reward_type"].astype(str).isin(codes)]
        rows.append({
            "id": fid,
            "family": fam["name"],
            "reward_type codes": ", ".join(codes),
            "typical credit unit": fam["typical_credit_unit"],
            "primary-tag count": int(len(tagged)),
            "RL-trained": int((tagged["is_rl"].astype(str) == "yes").sum()),
            "representatives": _join(fam.get("representatives")),
        })
    frame = pd.DataFrame(rows).set_index("id")
    return Table("reward_families", "Reward families R1-R8", frame,
                 "survey: Reward Families table; counts from the records' primary reward_type",
                 "A record has one primary reward_type; representatives are the survey's and may carry another primary tag.")


def credit_units(retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """One row per credit unit, finest to coarsest: label, bracket, broad count
    (records tagged with the unit), strict count (of those, ``credit_mechanism``
    strict), representatives."""
    field = tax.fields["credit_granularity"]
    broad = count_by(retained, "credit_granularity", tax)
    strict = crosstab(retained, "credit_granularity", "credit_mechanism", tax)["strict"] if "strict" in tax.values("credit_mechanism") else broad * 0
    rows = []
    for unit in field.values:
        if unit == "NA":
            continue
        spec = field.value_spec(unit)
        rows.append({
            "unit": unit, "label": spec.get("label", unit), "bracket": spec.get("bracket", ""),
            "broad": int(broad[unit]), "strict": int(strict[unit]),
            "representatives": _join(spec.get("representatives")),
        })
    frame = pd.DataFrame(rows).set_index("unit")
    return Table("credit_units", "Credit units, finest to coarsest", frame,
                 "survey: credit hierarchy figure; strict counts from the claim ledger and spot-check",
                 "broad = records tagged with the unit; strict = of those, an explicit (or near-strict) credit mechanism.")


def subdecisions(retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """One row per sub-decision O1-O5: name, the survey's anchors, records tagged,
    split by RL status (explicit RL / partial / none), and a gap flag."""
    field = tax.fields["subdecisions"]
    by_rl = crosstab(retained, "subdecisions", "is_rl", tax)
    rl_field = tax.fields["is_rl"]
    rows = []
    for code in field.values:
        spec = field.value_spec(code)
        counts = {rl_field.value_label(v): int(by_rl.loc[code, v]) for v in rl_field.values}
        total = int(by_rl.loc[code].sum())
        explicit = int(by_rl.loc[code, "yes"]) if "yes" in by_rl.columns else 0
        gap = "gap: no record" if total == 0 else ("gap: no explicit-RL record" if explicit == 0 else "")
        rows.append({"id": code, "sub-decision": spec.get("label", code), "anchors": _join(spec.get("anchors")),
                     "records": total, **counts, "gap": gap})
    frame = pd.DataFrame(rows).set_index("id")
    return Table("subdecisions_coverage", "Orchestration sub-decisions O1-O5", frame,
                 "survey: orchestration sub-decisions figure (anchors); counts from the records' subdecisions",
                 "A claim-level coverage audit, not a disjoint count: one record can address several sub-decisions.")


def topologies(retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """One row per orchestration form (topology): name, defining feature, count, representatives."""
    field = tax.fields["orchestration_form"]
    counts = count_by(retained, "orchestration_form", tax)
    rows = []
    for form in field.values:
        if form == "NA":
            continue
        spec = field.value_spec(form)
        rows.append({"form": form, "topology": spec.get("name", form), "defining feature": spec.get("definition", ""),
                     "count": int(counts[form]), "representatives": _join(spec.get("representatives"))})
    frame = pd.DataFrame(rows).set_index("form")
    return Table("topologies", "Topologies (orchestration forms)", frame,
                 "survey: Topology Cheat Sheet; counts from the records' orchestration_form",
                 "Representatives are the survey's; they need not carry that primary form.")


def benchmark_gap(retained: pd.DataFrame, tax: Taxonomy) -> Table:
    """One row per benchmark domain: benchmarks, MAS-native statuses, how many
    report each of E1-E4, and how many report all four jointly."""
    bench = retained[retained["category"].astype(str) == "benchmark"]
    measures = list(tax.values("eval_measures"))
    members = records_per_value(bench, "domain", tax)
    skip_values = tax.gap_skips[1]
    rows = []
    for domain in tax.values("domain"):
        keys = members[domain]
        if domain in skip_values:
            continue
        sub = bench.loc[keys] if keys else bench.iloc[0:0]
        statuses = sorted({str(v) for v in sub["mas_native"]}, key=lambda v: list(tax.values("mas_native")).index(v) if v in tax.values("mas_native") else 99)
        row = {"domain": domain, "label": tax.fields["domain"].value_label(domain), "benchmarks": _join(keys),
               "MAS-native": ", ".join(statuses) or "none"}
        for m in measures:
            row[m] = int(sub["eval_measures"].map(lambda t, m=m: m in t).sum())
        row[f"all of {measures[0]}-{measures[-1]}" if measures else "all"] = int(
            sub["eval_measures"].map(lambda t: all(m in t for m in measures)).sum())
        rows.append(row)
    frame = pd.DataFrame(rows).set_index("domain")
    unplaced = [k for d in tax.values("domain") if d in skip_values for k in members[d]]
    note = "Cells count the benchmarks of the domain that report the measure."
    if unplaced:
        note += f" Not placed in a domain and not assessed (left out): {', '.join(unplaced)}."
    return Table("benchmark_gap", "Benchmark gap: domain x E1-E4", frame,
                 "survey: Benchmark Gap table (E1 = task outcome); E2-E4 are masrl's reading (corpus/taxonomy.yaml)", note)


def deployment_envelopes(records: list[dict]) -> Table:
    """One row per industrial record with a publicly reported deployment envelope."""
    rows = []
    for rec in records:
        env = rec.get("deployment_envelope")
        if rec.get("category") != "industry" or not env:
            continue
        rows.append({"key": rec["key"], "title": rec["title"], "max sub-agents": env.get("max_subagents", ""),
                     "max steps": env.get("max_steps", ""), "speedup": env.get("speedup", ""),
                     "confidence": env.get("confidence", ""), "source": env.get("source", "")})
    columns = ["key", "title", "max sub-agents", "max steps", "speedup", "confidence", "source"]
    frame = pd.DataFrame(rows, columns=columns).set_index("key")
    for col in ("max sub-agents", "max steps"):
        if frame[col].map(lambda v: isinstance(v, int)).all():
            frame[col] = frame[col].astype("int64")
        else:
            frame[col] = frame[col].astype(str)
    return Table("deployment_envelopes", "Industrial deployment envelopes", frame,
                 "publicly reported vendor figures (not the survey's text); the survey's scale gap is between such envelopes and open evaluation",
                 "Envelopes are reported, not verified traces.")


def axis_tables(retained: pd.DataFrame, records: list[dict], tax: Taxonomy) -> list[Table]:
    """All taxonomy tables, in report order."""
    return [
        reward_families(retained, tax),
        credit_units(retained, tax),
        subdecisions(retained, tax),
        topologies(retained, tax),
        benchmark_gap(retained, tax),
        deployment_envelopes(records),
    ]
