"""The living review: releases stay frozen while the pool grows, claims are judged on the
population they are about, PRISMA follows the template for updated reviews, and the suite
passes on a grown tree (every data-dependent test runs on the published and the grown tree:
tests/conftest.py).

Each expectation comes from the tree in front of the test: the latest release (``baseline``,
v1 on the published tree, a later one on the grown tree), its counts, the next free release
name and record id; only release v1's published numbers are literals.

Releases frozen with `masrl release`: tests/test_release_workflow.py; merges: tests/test_merges.py."""

from __future__ import annotations

from pathlib import Path

import grow

from masrl.core import clock
from masrl.build.pipeline import build
from masrl.corpus.load import load
from living import files_under, claim, git, keys, current, V1
from trees import grown_only  # noqa: F401 - the grown tree only


# ---------------------------------------------------------------------------- releases


def test_release_v1_is_the_survey_as_published(built):
    release = built.releases[0]  # the first release; later ones follow it
    assert (release.name, release.population.release.date, release.population.release.search_cutoff) == ("v1", "2026-05-04", "2026-05-04")
    assert release.headline == V1
    assert built.population("v1") is release


def test_published_numbers_survive_a_grown_pool(survey, cli, grown_survey):
    before = files_under(survey, "reports/releases")
    base = current(survey)
    result = current(grown_survey)
    assert result.population("v1").headline == V1
    n = len(grow.PAPERS)
    assert result.pool.headline == {k: base.pool.headline[k] + n for k, n in (("retained", n), ("excluded", 1), ("audited", n + 1))}
    assert files_under(grown_survey, "reports/releases") == before  # every file of every release, byte for byte
    assert [c.id for c in result.claims if c.status == "current" and not c.holds] == []
    assert result.pending.retained == tuple(sorted({*base.pending.retained, *keys(grow.PAPERS)}))
    retained, latest = result.pool.headline["retained"], result.baseline
    released = latest.headline["retained"]
    numbers = (grown_survey / "reports/tex/numbers.tex").read_text()
    assert f"\\newcommand{{\\NumRetained}}{{{released}}}\n" in numbers  # the latest release, under the published names
    assert f"\\newcommand{{\\CurrentNumRetained}}{{{retained}}}\n" in numbers
    v1_macro = "\\newcommand{\\OrchestratorCreditBroad}{8}\n"  # a claim about v1 keeps its published value
    assert v1_macro in (grown_survey / "reports/releases/v1/tex/numbers.tex").read_text()
    assert (v1_macro in numbers) == (latest.name == "v1")  # the unprefixed macros are the latest release's
    stats = (grown_survey / "reports/STATS.md").read_text()
    assert f"- Retained records: {retained} (release {latest.name}: {released}; +{retained - released})\n" in stats
    orchestrators = int(result.pool.table("credit_granularity").frame.loc["orchestrator", "count"])
    was = int(latest.table("credit_granularity").frame.loc["orchestrator", "count"])
    assert f"| orchestrator | orchestrator | {orchestrators} | {was} | {orchestrators - was:+d} |" in stats
    assert cli("build", "--root", grown_survey, "--check").code == 0


def test_pool_claims_hold_for_hybrid_centralized_and_orchestrator_papers(survey, cli):
    before = current(survey)
    base = claim(before, "orchestrator-credit-sparse").checks[0]
    bound = next(c for c in before.claims_raw if c["id"] == "orchestrator-credit-sparse")["checks"][0]["max_percent"]
    holds = (base.count + 2) * 100 <= bound * (base.denominator + 2)  # where the pool stands decides, not the papers
    titles = ("Conductor: Hierarchical Credit for a Trained Orchestrator", "SwarmLead: Learning to Dispatch Sub-Agents at Scale")
    for i, title in enumerate(titles):
        grow.add_paper(cli, survey, dict(grow.PAPERS[0], key=f"orchestra-rl2026{'ab'[i]}", arxiv=f"2606.0999{i}", title=title))
    run = cli("build", "--root", survey, "--no-figures")
    assert run.code == (0 if holds else 1), run.err
    result = current(survey)
    assert claim(result, "headline-sparsity").holds and claim(result, "orchestrator-credit-v1").holds
    share = claim(result, "orchestrator-credit-sparse").checks[0]
    assert (share.count, share.denominator, share.holds) == (base.count + 2, base.denominator + 2, holds)


def test_o5_claim_holds_for_a_non_rl_stop_and_fails_for_an_rl_trained_stop(survey, cli):
    latest = current(survey).baseline.name
    grow.add_paper(cli, survey, grow.PAPERS[1])  # addresses O5 without RL
    run = cli("build", "--root", survey, "--no-figures")
    assert run.code == 0, run.err
    assert "| [o5-stopping-uncovered](#o5-stopping-uncovered) | current pool | current | holds |" in (survey / "reports/claims.md").read_text()
    trained = dict(grow.PAPERS[1], key="stoprl2026", arxiv="2606.05678", title="Learning When to Stop: RL for Team Termination",
                   tags=dict(grow.PAPERS[1]["tags"], category="rl_method", is_rl="'yes'", reward_type="orchestration",
                             credit_granularity="orchestrator", credit_mechanism="strict", is_core="core", inclusion_criterion="I1"))
    grow.add_paper(cli, survey, trained)
    run = cli("build", "--root", survey, "--no-figures")
    assert run.code == 1
    assert run.err.splitlines()[-1].startswith(
        "masrl: error: claim 'o5-stopping-uncovered' (No retained entry trains the stopping decision (O5) with explicit RL, "
        "while O1-O4 each have at least one record.) no longer holds: records training O5 with explicit RL: stated = 0, "
        f"computed 1 (moved by +stoprl2026 since release {latest}).")
    assert "| [subdecision-coverage-v1](#subdecision-coverage-v1) | release v1 (2026-05-04) | current | holds |" in (
        survey / "reports/claims.md").read_text()


def test_near_miss_claim_holds_for_a_non_rl_stop_and_fails_for_an_rl_trained_stop(survey, cli):
    near = {"category": "rl_method", "credit_granularity": "agent", "credit_mechanism": "broad", "subdecisions": "[O5]"}
    grow.exclude_paper(cli, survey, dict(grow.EXCLUSION, arxiv="2606.07001", title="Prompted Stopping Heuristics for Agent Teams"), dict(near, is_rl="'no'"))
    assert cli("build", "--root", survey, "--no-figures").code == 0
    assert claim(build(load(survey), {"survey_example": True}), "near-miss-robust").holds
    grow.exclude_paper(cli, survey, dict(grow.EXCLUSION, arxiv="2606.07002", title="Single-Agent Termination Policies via PPO"), dict(near, is_rl="'yes'"))
    run = cli("build", "--root", survey, "--no-figures")
    assert run.code == 1
    assert "claim 'near-miss-robust' (The sparse-credit claims are robust to near-miss exclusions.) no longer holds: near misses " \
           "training O5 with explicit RL: stated = 0, computed 1 (moved by +" in run.err


# ---------------------------------------------------------------------------- PRISMA for updated reviews


def test_prisma_follows_the_updated_review_template_once_records_are_pending(survey, cli, grown_survey):
    before = current(survey)
    latest = before.baseline
    previous = latest.headline["retained"]
    base = before.pool.prisma.get("update") or {"identified": 0, "new_included": 0, "dropped": [], "total_included": previous,
                                                "stages": [{"excluded": 0, "by_reason_class": {"X1": 0}}] * 4}
    update = current(grown_survey).pool.prisma["update"]
    n = len(grow.PAPERS)
    assert (update["previous_included"], update["identified"], update["new_included"], update["dropped"], update["total_included"]) == (
        previous, base["identified"] + n + 1, base["new_included"] + n, base["dropped"], base["total_included"] + n)
    assert [s["excluded"] - b["excluded"] for s, b in zip(update["stages"], base["stages"])] == [1, 0, 0, 0]
    assert update["stages"][0]["by_reason_class"]["X1"] == base["stages"][0]["by_reason_class"]["X1"] + 1
    table = (grown_survey / "reports/tables/prisma_flow.csv").read_text().splitlines()
    assert table[0] == "step,records,X1,X2,X3,X4,X5"
    assert table[1:3] == [f"included in the previous version,{previous},,,,,",
                          f"new records identified and screened,{update['identified']},,,,,"]
    assert table[3].startswith(f"excluded at abstract screen,{update['stages'][0]['excluded']},")
    assert table[-1] == f"total included in this version,{update['total_included']},,,,,"
    v1 = (grown_survey / "reports/releases/v1/tables/prisma_flow.csv").read_text().splitlines()
    assert v1[0].startswith("stage,assessed,excluded") and v1[-1].endswith(",84")
    md = (grown_survey / "reports/tables/prisma_flow.md").read_text()
    rel = latest.population.release
    assert f"Previous version: release {rel.name} ({rel.date}). Total included = {previous} - " in md
    assert "Changed since release" not in md  # the update's flow counts other records than v1's: never compared
    assert "|---|---:|---:|---:|---:|---:|---:|" in md  # the class columns are counts, right-aligned


def test_reports_of_a_grown_pool_say_only_what_they_show(survey, cli, grown_survey):
    before = current(survey)
    base, latest = before.pending, before.baseline.name
    # the tree's own framework papers added since the release (a contributor's paper may be one); grow adds none
    framework = int(before.pool.table("category").frame["count"]["framework"]
                    - before.baseline.table("category").frame["count"]["framework"])
    result = current(grown_survey)
    stats = (grown_survey / "reports/STATS.md").read_text()
    retained, excluded = len(base.retained) + len(grow.PAPERS), len(base.excluded) + 1
    assert (f"The current pool ({retained} retained records and {excluded} excluded record{'s' if excluded != 1 else ''} "
            f"added since release {latest}") in stats
    assert "the release's value is shown beside it" in stats
    for name in ("claims.md", "exclusions.md"):  # they show no release values
        text = (grown_survey / "reports" / name).read_text()
        assert "shown beside it" not in text and f"The release's own reports are in `reports/releases/{latest}/`." in text
    assert "| rl_method | RL method | " in (grown_survey / "reports/tables/category.md").read_text()
    change = {line.split(" | ")[0][2:]: line.rsplit(" | ", 1)[1][:-2]
              for line in (grown_survey / "reports/tables/category.md").read_text().splitlines()[4:10]}
    assert change["rl_method"].startswith("+") and change["framework"] == (f"{framework:+d}" if framework else "0")
    gaps_md = (grown_survey / "reports/gaps.md").read_text()
    listed = set(result.pool.tax.gap_analysis["combine"])
    if f"## Gaps that moved since release {latest}" in gaps_md:
        section = gaps_md.split(f"## Gaps that moved since release {latest}")[1].split("\n## ")[0]
        rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| ") and not line.startswith("| table")]
        assert rows and all(r[0][2:] in listed for r in rows)
        assert all(r[2].split(" (")[0] != r[3].split(" (")[0] for r in rows)  # a status changed, not just a count


def test_a_moved_record_is_dropped_from_the_update(survey, cli):
    assert cli("exclude", "--root", survey, "--key", "collm-maac2026", "--stage", "full_text_screen", "--reason", "overlaps magrpo",
               "--reason-class", "X4", "--source", "arXiv", "--query-family", "multi-agent LLM").code == 0
    result = current(survey)
    pool, previous = result.pool, result.baseline.headline["retained"]
    update = pool.prisma["update"]
    assert "collm-maac2026" in update["dropped"] and update["total_included"] == pool.headline["retained"]
    assert update["total_included"] == previous - len(update["dropped"]) + update["new_included"]
    now = current(survey)
    excluded = {r["record_id"]: r for r in now.pool.population.excluded}
    moved = [rid for rid in now.pending.excluded if excluded[rid].get("former_key") in update["dropped"]]
    assert "collm-maac2026" in [excluded[rid]["former_key"] for rid in moved]  # the previous version's records: not new
    assert update["identified"] == len(now.pending.retained) + len(now.pending.excluded) - len(moved)


# ---------------------------------------------------------------------------- claims: prose from checks


def test_a_changed_stated_value_changes_the_sentence_and_a_typed_number_is_refused(survey, cli):
    path = survey / "corpus/claims.yaml"
    text = path.read_text()
    path.write_text(text.replace("{id: orchestrator, label: credit_granularity orchestrator, where: {credit_granularity: orchestrator}, count: 8}",
                                 "{id: orchestrator, label: credit_granularity orchestrator, where: {credit_granularity: orchestrator}, count: 9}"))
    result = build(load(survey), {"survey_example": True})
    assert "orchestrator 9, message 2" in claim(result, "headline-sparsity").text and not claim(result, "headline-sparsity").holds
    path.write_text(text.replace("credit agent {agent}, role {role}", "credit agent 23, role {role}"))
    run = cli("validate", "--root", survey)
    assert run.code == 1
    assert ("claims[13].statement: the number 23 is written in the statement; take it from a check instead ({id} quotes the "
            "stated value of the check with that id), so that the prose and the checks cannot disagree") in run.err
    path.write_text(text.replace("credit agent {agent}", "credit agent {agnet}"))
    assert "placeholder {agnet} names no check of this claim" in cli("validate", "--root", survey).err


def test_claims_must_say_what_they_are_about(survey, cli):
    from masrl.corpus.releases import releases_from

    scopes = ", ".join(["pool", *(r.name for r in releases_from(load(survey).releases))])  # the pool and every release
    path = survey / "corpus/claims.yaml"
    path.write_text(path.read_text().replace("    scope: pool\n", "", 1).replace("    scope: v1\n", "    scope: v9\n", 1))
    lines = cli("validate", "--root", survey).err.splitlines()
    assert any(line.endswith(f"claims[0].scope: say what the claim is about: scope: {scopes}") for line in lines), lines
    assert any(line.endswith(f"claims[7].scope: 'v9' is neither the pool nor a release; allowed: {scopes}")
               for line in lines), lines


def test_the_ledger_refuses_checks_that_cannot_mean_what_they_say(survey, cli):
    path = survey / "corpus/claims.yaml"
    text = path.read_text()
    text = text.replace("(at most {message_share} of the retained", "(at most {message_share.kes} of the retained", 1)
    text = text.replace("(at most {orchestrator_share} of the retained", "(at most {orchestrator_share of the retained", 1)
    text = text.replace("    scope: pool\n    statement: Message-level credit is sparse",
                        "    scope: pool\n    superseded_by: message-credit-sparse\n    statement: Message-level credit is sparse", 1)
    text = text.replace("where: {credit_granularity: message}, of:", "where: {credit_granularity: {all: [message]}, key: c33}, of:", 1)
    text = text.replace("max_percent: 10}", "max_percent: 10, min_count: 5, max_count: 2}", 1)
    path.write_text(text)
    run = cli("validate", "--root", survey)
    lines = [line.split(": ", 1)[1] for line in run.err.splitlines()[:-1]]
    assert run.code == 1
    assert ("claims[0].statement: placeholder {message_share.kes} names no check of this claim; check ids: message_share"
            in lines or "claims[0].statement: '{message_share.kes}' is not a placeholder: write {id} (the stated value of the "
            "check with that id) or {id.keys} (its records)" in lines), lines
    assert ("claims[1].statement: '{orchestrator_share of the retained records with a credit unit carry it).' is not a "
            "placeholder: write {id} (the stated value of the check with that id) or {id.keys} (its records)") in lines, lines
    assert "claims[0].superseded_by: a claim cannot be superseded by itself" in lines
    assert ("claims[0].checks[0].where.credit_granularity: 'all' is for a field with several values per record; "
            "credit_granularity holds one: use a value, a list, in, not or not_in") in lines
    assert any(line.startswith("claims[0].checks[0].where.key: names record 'c33', which is not in the retained population")
               for line in lines), lines
    assert "claims[0].checks[0]: no count can meet min_count: 5, max_count: 2: the check could never hold" in lines


def test_diff_reports_claim_edits_judged_by_status(survey, cli):
    git(survey, "init", "-q")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    path = survey / "corpus/claims.yaml"
    text = path.read_text()
    text = text.replace("  - id: mas-native-eval-incomplete\n    scope: pool\n    statement: Open MAS-native evaluation remains incomplete.\n"
                        "    evidence_boundary: >-", "  - id: mas-native-eval-incomplete\n    scope: pool\n    statement: Open MAS-native "
                        "evaluation remains incomplete.\n    superseded_by: trace-inspectable\n    evidence_boundary: >-")
    text = text.replace("status: current\n    checks:\n      - {label: benchmarks reporting E1-E4 jointly, where: {category: benchmark, "
                        "eval_measures: {all: [E1, E2, E3, E4]}}, count: 0}",
                        "status: superseded\n    checks:\n      - {label: benchmarks reporting E1-E4 jointly, where: {category: benchmark, "
                        "eval_measures: {all: [E1, E2, E3, E4]}}, count: 1}")
    text = text.replace("max_percent: 10}", "max_percent: 5}")
    path.write_text(text)
    assert cli("validate", "--root", survey).code == 0
    out = cli("diff", "--root", survey, "HEAD").out
    assert "| mas-native-eval-incomplete | status | current | superseded |" in out
    assert "| mas-native-eval-incomplete | stated value of 'benchmarks reporting E1-E4 jointly' | = 0 | = 1 |" in out
    assert "| mas-native-eval-incomplete | verdict | holds | drifted |" in out  # not "holds → fails"
    assert ("| message-credit-sparse | statement | Message-level credit is sparse (at most 10% of the retained records with a "
            "credit unit carry it). | Message-level credit is sparse (at most 5% of the retained records with a credit unit carry it). |") in out
    assert "| message-credit-sparse | stated value of 'share of records with a credit unit whose unit is message' | \\<= 10% | \\<= 5% |" in out


# ---------------------------------------------------------------------------- the grown tree


def test_the_grown_tree_holds_every_workflow_of_the_readme(grown_tree, cli):
    """The second tree every data-dependent test runs on (tests/conftest.py): papers and exclusions
    added, two releases frozen after v1 on one day (an update and a correction of it), an audit round
    applied, two branches merged with resolve."""
    import yaml

    from masrl.corpus.releases import releases_from

    corpus = load(grown_tree)
    releases = releases_from(corpus.releases)
    names = [r.name for r in releases]
    assert names == ["v1", "v2", "v3"] and releases[1].date == releases[2].date == grow.RELEASED
    # v3 only corrects a record of v2: its flow is still an update's, with no record identified
    flow = (grown_tree / "reports/releases/v3/tables/prisma_flow.csv").read_text().splitlines()
    previous = len(corpus.snapshots["corpus/releases/v2.yaml"]["retained"])
    assert [line.rstrip(",") for line in flow[1:3]] == [f"included in the previous version,{previous}",
                                                        "new records identified and screened,0"], flow[:4]
    audit = f"tags-{grow.AUDITED}"
    folder = grown_tree / "corpus/audits" / audit
    assert (folder / "rounds/round-1-jane-doe.yaml").is_file() and (folder / "adjudication-round-1.yaml").is_file()
    applied = [r for r in corpus.retained.values() if any(audit in str(v) for v in (r.get("tag_provenance") or {}).values())]
    assert len(applied) == 1 and applied[0]["is_rl"] == "partial"
    assert "c3" in {i["record"] for i in yaml.safe_load((folder / "audit.yaml").read_text())["items"]}
    keys = {r["key"] for r in corpus.retained.values()}
    assert {p["key"] for p in (*grow.SUITE_PAPERS, *grow.BRANCH_PAPERS)} <= keys
    titles = {r["screening_label"] for r in corpus.excluded.values()}
    assert {e["title"] for e in (grow.SUITE_EXCLUSION, *grow.BRANCH_EXCLUSIONS)} <= titles
    log = git(grown_tree, "log", "--merges", "--format=%s")
    assert "Merge branch 'contrib-b' into contrib-a" in log
    assert git(grown_tree, "status", "--porcelain") == "" and git(grown_tree, "branch", "--show-current").strip() == "main"
    assert cli("validate", "--root", grown_tree).code == 0
    run = cli("build", "--root", grown_tree, "--check")
    assert run.code == 0, run.err
    assert (grown_tree / f"reports/releases/{names[-1]}/STATS.md").is_file()


def with_share_at_its_bound(root: Path, claim_id: str, unit: str) -> int:
    """Retag records of credit unit ``agent`` as ``unit`` until the pool's share check of claim
    ``claim_id`` (``unit`` among the records with a credit unit) sits exactly at its bound, or as
    close below it as whole records allow; returns how many records were retagged."""
    result = current(root)
    check = claim(result, claim_id).checks[0]
    bound = next(c for c in result.claims_raw if c["id"] == claim_id)["checks"][0]["max_percent"]
    room = check.denominator * bound // 100 - check.count
    named = (root / "corpus/taxonomy.yaml").read_text() + (root / "corpus/claims.yaml").read_text()
    agents = sorted(r["key"] for r in result.pool.retained_records if r["credit_granularity"] == "agent" and r["key"] not in named)
    for key in agents[:room]:
        grow.set_field(root / f"corpus/papers/{key}.yaml", "credit_granularity", unit)
    return room


def test_growing_keeps_every_pool_claim_wherever_the_pool_stands(survey, cli):
    """The helper's papers move no claim about the pool over its bound, even when the pool sits at
    exactly the bound of each share claim (orchestrator-level and message-level credit)."""
    retagged = with_share_at_its_bound(survey, "orchestrator-credit-sparse", "orchestrator")
    retagged += with_share_at_its_bound(survey, "message-credit-sparse", "message")
    assert retagged > 0
    before = current(survey)
    assert [c.id for c in before.claims if c.scope == "pool" and c.status == "current" and not c.holds] == []
    share = claim(before, "orchestrator-credit-sparse").checks[0]
    bound = next(c for c in before.claims_raw if c["id"] == "orchestrator-credit-sparse")["checks"][0]["max_percent"]
    assert share.count * 100 <= bound * share.denominator < (share.count + 1) * 100  # no room for one more
    grow.grow(cli, survey, build=False)
    after = current(survey)
    assert len(after.pending.retained) == len(before.pending.retained) + len(grow.PAPERS)
    assert [c.id for c in after.claims if c.scope == "pool" and c.status == "current" and not c.holds] == []


def test_the_prisma_figure_follows_the_updated_review_template(grown_survey):
    from matplotlib.text import Text

    from masrl.render.figures import flow as prisma_flow

    result = current(grown_survey)
    flow, rel = result.pool.prisma, result.baseline.population.release
    up = flow["update"]
    texts = {t.get_gid(): " ".join(t.get_text().split()) for t in prisma_flow.draw(flow, {"by": "category"}).findobj(Text) if t.get_gid()}
    assert texts["previous"] == (f"Studies included in the previous version, release {rel.name} ({rel.date}) "
                                 f"(n = {up['previous_included']})")
    assert texts["audited"] == f"New records identified and screened (n = {up['identified']})"
    assert texts["retained"] == f"New records included (n = {up['new_included']})"
    assert texts["total"] == f"Total studies included in this version (n = {up['total_included']})"
    assert texts["total:sum"] == f"= {up['previous_included']} previous - {len(up['dropped'])} dropped + {up['new_included']} new"
    published = {t.get_gid() for t in prisma_flow.draw(current(grown_survey).population("v1").prisma, {"by": "category"}).findobj(Text) if t.get_gid()}
    assert "previous" not in published and "total" not in published  # the first release: the plain flow


def test_figures_of_the_pool_say_where_the_published_release_differs(survey, cli, grown_survey):
    from masrl.build.figures import release_note
    from masrl.render import figures

    before = current(survey)
    from masrl.corpus.taxonomy import Taxonomy

    declared = figures.figures_of(Taxonomy(load(survey).taxonomy))
    spec = next(s for s in declared if s.name == "credit_hierarchy")
    assert release_note(spec, before.population("v1"), None) is None  # a release's own figures carry no such note
    result = current(grown_survey)
    old = before.baseline.table("credit_units").frame
    new = result.pool.table("credit_units").frame
    changed = [(unit, col) for unit in new.index for col in ("broad", "strict") if new.loc[unit, col] != old.loc[unit, col]]
    note = release_note(spec, result.pool, result.baseline)
    rel = result.baseline.population.release
    assert note.startswith(f"Published release {rel.name} ({rel.date}) differs in {len(changed)} cell(s): ")
    assert note.endswith(f"Its figure: reports/releases/{rel.name}/figures/credit_hierarchy.svg.")
    prisma = next(s for s in declared if s.name == "prisma_flow")
    assert release_note(prisma, result.pool, result.baseline) is None  # the update's flow draws the release itself
