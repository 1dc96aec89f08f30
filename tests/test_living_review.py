"""The living review: releases stay frozen while the pool grows, claims are judged on the
population they are about, PRISMA follows the template for updated reviews, merges of
two contributions resolve with one command, and the whole suite passes on a grown pool."""

from __future__ import annotations

import datetime
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from masrl.load import load
from masrl.pipeline import build

import grow

V1 = {"retained": 84, "excluded": 32, "audited": 116}


def files_under(root: Path, folder: str) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / folder).rglob("*")) if p.is_file()}


def claim(result, cid):
    return next(c for c in result.claims if c.id == cid)


def git(root: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root)}
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, env=env, text=True)
    return done.stdout + done.stderr


# ---------------------------------------------------------------------------- releases
def test_release_v1_is_the_survey_as_published(built):
    (release,) = built.releases
    assert (release.name, release.population.release.date, release.population.release.search_cutoff) == ("v1", "2026-05-04", "2026-05-04")
    assert release.headline == V1


def current(root: Path):
    return build(load(root), {"survey_example": True})


def test_published_numbers_survive_a_grown_pool(survey, cli):
    before = files_under(survey, "reports/releases/v1")
    base = current(survey)
    grow.grow(cli, survey)
    result = current(survey)
    assert result.population("v1").headline == V1
    assert result.pool.headline == {k: base.pool.headline[k] + n for k, n in (("retained", 3), ("excluded", 1), ("audited", 4))}
    assert files_under(survey, "reports/releases/v1") == before  # every published file, byte for byte
    assert [c.id for c in result.claims if c.status == "current" and not c.holds] == []
    assert result.pending.retained == tuple(sorted({*base.pending.retained, "haltbench-ops2026", "msgcredit2026", "orchestra-rl2026"}))
    retained = result.pool.headline["retained"]
    numbers = (survey / "reports/tex/numbers.tex").read_text()
    assert "\\newcommand{\\NumRetained}{84}\n" in numbers and f"\\newcommand{{\\CurrentNumRetained}}{{{retained}}}\n" in numbers
    assert "\\newcommand{\\OrchestratorCreditBroad}{8}\n" in numbers  # a claim about v1 keeps its published value
    stats = (survey / "reports/STATS.md").read_text()
    assert f"- Retained records: {retained} (release v1: 84; +{retained - 84})\n" in stats
    orchestrators = int(result.pool.table("credit_granularity").frame.loc["orchestrator", "count"])
    assert f"| orchestrator | orchestrator | {orchestrators} | 8 | {orchestrators - 8} |" in stats
    assert cli("build", "--root", survey, "--check").code == 0


def test_pool_claims_hold_for_hybrid_centralized_and_orchestrator_papers(survey, cli):
    base = claim(current(survey), "orchestrator-credit-sparse").checks[0]
    titles = ("Conductor: Hierarchical Credit for a Trained Orchestrator", "SwarmLead: Learning to Dispatch Sub-Agents at Scale")
    for i, title in enumerate(titles):
        grow.add_paper(cli, survey, dict(grow.PAPERS[0], key=f"orchestra-rl2026{'ab'[i]}", arxiv=f"2606.0999{i}", title=title))
    run = cli("build", "--root", survey)
    assert run.code == 0, run.err
    result = current(survey)
    assert claim(result, "headline-sparsity").holds and claim(result, "orchestrator-credit-v1").holds
    share = claim(result, "orchestrator-credit-sparse").checks[0]
    assert (share.count, share.denominator, share.holds) == (base.count + 2, base.denominator + 2, True)


def test_o5_claim_holds_for_a_non_rl_stop_and_fails_for_an_rl_trained_stop(survey, cli):
    grow.add_paper(cli, survey, grow.PAPERS[1])  # addresses O5 without RL
    run = cli("build", "--root", survey)
    assert run.code == 0, run.err
    assert "| [o5-stopping-uncovered](#o5-stopping-uncovered) | current pool | current | holds |" in (survey / "reports/claims.md").read_text()
    trained = dict(grow.PAPERS[1], key="stoprl2026", arxiv="2606.05678", title="Learning When to Stop: RL for Team Termination",
                   tags=dict(grow.PAPERS[1]["tags"], category="rl_method", is_rl="'yes'", reward_type="orchestration",
                             credit_granularity="orchestrator", credit_mechanism="strict", is_core="core", inclusion_criterion="I1"))
    grow.add_paper(cli, survey, trained)
    run = cli("build", "--root", survey)
    assert run.code == 1
    assert run.err.splitlines()[-1].startswith(
        "masrl: error: claim 'o5-stopping-uncovered' (No retained entry trains the stopping decision (O5) with explicit RL, "
        "while O1-O4 each have at least one record.) no longer holds: records training O5 with explicit RL: stated = 0, "
        "computed 1 (moved by +stoprl2026 since release v1).")
    assert "| [subdecision-coverage-v1](#subdecision-coverage-v1) | release v1 (2026-05-04) | current | holds |" in (
        survey / "reports/claims.md").read_text()


def test_near_miss_claim_holds_for_a_non_rl_stop_and_fails_for_an_rl_trained_stop(survey, cli):
    near = {"category": "rl_method", "credit_granularity": "agent", "credit_mechanism": "broad", "subdecisions": "[O5]"}
    grow.exclude_paper(cli, survey, dict(grow.EXCLUSION, arxiv="2606.07001", title="Prompted Stopping Heuristics for Agent Teams"), dict(near, is_rl="'no'"))
    assert cli("build", "--root", survey).code == 0
    assert claim(build(load(survey), {"survey_example": True}), "near-miss-robust").holds
    grow.exclude_paper(cli, survey, dict(grow.EXCLUSION, arxiv="2606.07002", title="Single-Agent Termination Policies via PPO"), dict(near, is_rl="'yes'"))
    run = cli("build", "--root", survey)
    assert run.code == 1
    assert "claim 'near-miss-robust' (The sparse-credit claims are robust to near-miss exclusions.) no longer holds: near misses " \
           "training O5 with explicit RL: stated = 0, computed 1 (moved by +" in run.err


# ---------------------------------------------------------------------------- PRISMA for updated reviews
def test_prisma_follows_the_updated_review_template_once_records_are_pending(survey, cli):
    base = current(survey).pool.prisma.get("update") or {"identified": 0, "new_included": 0, "dropped": [], "total_included": 84,
                                                         "stages": [{"excluded": 0, "by_reason_class": {"X1": 0}}] * 4}
    grow.grow(cli, survey)
    update = current(survey).pool.prisma["update"]
    assert (update["previous_included"], update["identified"], update["new_included"], update["dropped"], update["total_included"]) == (
        84, base["identified"] + 4, base["new_included"] + 3, base["dropped"], base["total_included"] + 3)
    assert [s["excluded"] - b["excluded"] for s, b in zip(update["stages"], base["stages"])] == [1, 0, 0, 0]
    assert update["stages"][0]["by_reason_class"]["X1"] == base["stages"][0]["by_reason_class"]["X1"] + 1
    table = (survey / "reports/tables/prisma_flow.csv").read_text().splitlines()
    assert table[0] == "step,records,X1,X2,X3,X4,X5"
    assert table[1:3] == ["included in the previous version (release v1 (2026-05-04)),84,,,,,",
                          f"new records identified and screened,{update['identified']},,,,,"]
    assert table[3].startswith(f"excluded at abstract screen,{update['stages'][0]['excluded']},")
    assert table[-1] == f"total included in this version,{update['total_included']},,,,,"
    v1 = (survey / "reports/releases/v1/tables/prisma_flow.csv").read_text().splitlines()
    assert v1[0].startswith("stage,assessed,excluded") and v1[-1].endswith(",84")


def test_a_moved_record_is_dropped_from_the_update(survey, cli):
    assert cli("exclude", "--root", survey, "--key", "collm-maac2026", "--stage", "full_text_screen", "--reason", "overlaps magrpo",
               "--reason-class", "X4", "--source", "arXiv", "--query-family", "multi-agent LLM").code == 0
    pool = current(survey).pool
    update = pool.prisma["update"]
    assert "collm-maac2026" in update["dropped"] and update["total_included"] == pool.headline["retained"]
    assert update["total_included"] == 84 - len(update["dropped"]) + update["new_included"]
    assert update["identified"] == len(current(survey).pending.retained) + len(current(survey).pending.excluded)


# ---------------------------------------------------------------------------- masrl release
def test_release_freezes_the_pool_and_keeps_v1(survey, cli):
    grow.grow(cli, survey)
    v1_files = files_under(survey, "reports/releases/v1")
    grown = current(survey)
    name = next(f"v{n}" for n in range(2, 99) if n > len(grown.releases))
    today = datetime.date.today().isoformat()
    run = cli("release", "--root", survey, name, "--date", today, "--title", "Update of December 2026")
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == (
        f"froze release {name} ({today}): {grown.pool.headline['retained']} retained and {grown.pool.headline['excluded']} excluded "
        f"records; {len(grown.pending.retained)} retained and {len(grown.pending.excluded)} excluded new since {grown.baseline.name}")
    assert cli("build", "--root", survey).code == 0
    assert files_under(survey, "reports/releases/v1") == v1_files
    result = current(survey)
    assert [r.name for r in result.releases] == [*[r.name for r in grown.releases], name] and not result.pending
    assert result.population(name).prisma["update"]["previous_included"] == grown.baseline.headline["retained"]
    numbers = (survey / "reports/tex/numbers.tex").read_text()
    assert f"\\newcommand{{\\NumRetained}}{{{grown.pool.headline['retained']}}}\n" in numbers  # the latest release
    assert "\\newcommand{\\NumRetained}{84}\n" in (survey / "reports/releases/v1/tex/numbers.tex").read_text()
    again = cli("release", "--root", survey, "zz-next", "--date", today)
    assert again.code == 1 and again.err.splitlines()[-1] == (
        f"masrl: error: nothing is pending: the pool is identical to release {name}; add or exclude records first")


@pytest.mark.parametrize("args, message", [
    (["v1", "--date", "2026-12-01"], "command line: NAME: release 'v1' exists already; the next name could be v"),
    (["pool", "--date", "2026-12-01"], "command line: NAME: 'pool' is not a release name"),
    (["v2", "--date", "2026-04-01"], "command line: --date: 2026-04-01 is before the last release v1 (2026-05-04)"),
    (["v2", "--date", "2026-02-30"], "command line: --date: '2026-02-30' is not a date written YYYY-MM-DD"),
])
def test_release_refuses_bad_names_and_dates(survey, cli, args, message):
    before = sorted(p.name for p in (survey / "corpus/releases").iterdir())
    run = cli("release", "--root", survey, *args)
    assert run.code == 1 and any(line.startswith(message) for line in run.err.splitlines()), run.err
    assert sorted(p.name for p in (survey / "corpus/releases").iterdir()) == before


def test_a_release_needs_a_record_added_on_or_before_its_date(survey, cli):
    grow.add_paper(cli, survey, grow.PAPERS[0])
    run = cli("release", "--root", survey, "v2", "--date", "2026-06-01")
    assert run.code == 1 and "record(s) were added after 2026-06-01, so a release of that date cannot hold them: " in run.err
    assert "orchestra-rl2026 (" in run.err


def test_an_edited_snapshot_is_refused(survey, cli):
    path = survey / "corpus/releases/v1.yaml"
    path.write_text(path.read_text().replace("    credit_granularity: message\n", "    credit_granularity: mesage\n", 1))
    run = cli("validate", "--root", survey)
    assert run.code == 1 and "credit_granularity: 'mesage' is not in the release's vocabulary" in run.err


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
    path = survey / "corpus/claims.yaml"
    path.write_text(path.read_text().replace("    scope: pool\n", "", 1).replace("    scope: v1\n", "    scope: v9\n", 1))
    lines = cli("validate", "--root", survey).err.splitlines()
    assert any(line.endswith("claims[0].scope: say what the claim is about: scope: pool, v1") for line in lines), lines
    assert any(line.endswith("claims[7].scope: 'v9' is neither the pool nor a release; allowed: pool, v1")
               for line in lines), lines


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


# ---------------------------------------------------------------------------- merging two contributions
def test_two_branches_that_each_add_a_paper_merge_with_masrl_resolve(survey, cli, repo):
    shutil.copy(repo / ".gitattributes", survey / ".gitattributes")
    first = grow.next_record_id(survey)
    second = f"E{int(first[1:]) + 1:03d}"
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    for branch, paper, excluded in (("a", grow.PAPERS[0], grow.EXCLUSION),
                                    ("b", grow.PAPERS[2], dict(grow.EXCLUSION, arxiv="2606.08888", title="Another Prompted Team"))):
        git(survey, "checkout", "-q", "-b", branch, "main")
        grow.add_paper(cli, survey, paper)
        grow.exclude_paper(cli, survey, excluded)
        assert cli("build", "--root", survey).code == 0
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", f"add {paper['key']}")
    git(survey, "checkout", "-q", "a")
    merged = git(survey, "merge", "--no-edit", "b")
    assert "CONFLICT" in merged and f"exclusions/{first}.yaml" in merged and "reports/STATS.md" in merged
    run = cli("resolve", "--root", survey)
    assert run.code == 0, run.err
    assert f"kept both: exclusions/{first}.yaml is ours; theirs is now exclusions/{second}.yaml (its id/key changed to match)" in run.out
    assert git(survey, "diff", "--name-only", "--diff-filter=U") == ""
    git(survey, "commit", "-q", "--no-edit")
    assert git(survey, "status", "--porcelain") == ""
    assert cli("build", "--root", survey, "--check").code == 0
    result = build(load(survey), {"survey_example": True})
    assert {"orchestra-rl2026", "msgcredit2026"} <= {r["key"] for r in result.pool.retained_records}
    assert {r["record_id"]: r["screening_label"] for r in result.pool.excluded_records if r["record_id"] in (first, second)} == {
        first: grow.EXCLUSION["title"], second: "Another Prompted Team"}


def test_resolve_refuses_a_record_edited_on_both_sides(survey, cli):
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    for branch, scenario in (("a", "math"), ("b", "web")):
        git(survey, "checkout", "-q", "-b", branch, "main")
        grow.set_field(survey / "corpus/papers/c3.yaml", "scenario", scenario)
        git(survey, "commit", "-qam", branch)
    git(survey, "checkout", "-q", "a")
    git(survey, "merge", "--no-edit", "b")
    run = cli("resolve", "--root", survey)
    assert run.code == 1
    assert "conflict: corpus/papers/c3.yaml: the same record was changed on both sides" in run.err


def test_resolve_without_a_merge(survey, cli):
    git(survey, "init", "-q")
    run = cli("resolve", "--root", survey)
    assert run.code == 0 and run.out.startswith("nothing to resolve")


# ---------------------------------------------------------------------------- the whole suite on a grown pool
@pytest.mark.skipif(os.environ.get("MASRL_GROWN_POOL") == "1", reason="already inside the run on a grown pool")
def test_the_whole_suite_passes_on_a_grown_pool(tmp_path, repo, cli):
    """Copy the repository, add and tag three post-cutoff papers, exclude one, rebuild and commit,
    then run every test against the copy: no test may depend on the pool staying as published."""
    copy = tmp_path / "grown"
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git", ".venv", "*.egg-info", "__pycache__", ".pytest_cache",
                                                                 ".hypothesis", "test-output"))
    grow.grow(cli, copy, grow.SUITE_PAPERS, grow.SUITE_EXCLUSION)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-qm", "grown pool")
    env = dict(os.environ, MASRL_GROWN_POOL="1")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", str(copy / "tests")],
                          cwd=copy, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_prisma_figure_follows_the_updated_review_template(survey, cli):
    from matplotlib.text import Text

    from masrl.render.figures import prisma_flow

    grow.grow(cli, survey)
    flow = current(survey).pool.prisma
    up = flow["update"]
    texts = {t.get_gid(): " ".join(t.get_text().split()) for t in prisma_flow.draw(flow).findobj(Text) if t.get_gid()}
    assert texts["previous"] == f"Studies included in the previous version, release v1 (2026-05-04) (n = {up['previous_included']})"
    assert texts["audited"] == f"New records identified and screened (n = {up['identified']})"
    assert texts["retained"] == f"New records included (n = {up['new_included']})"
    assert texts["total"] == f"Total studies included in this version (n = {up['total_included']})"
    assert texts["total:sum"] == f"= {up['previous_included']} previous - {len(up['dropped'])} dropped + {up['new_included']} new"
    published = {t.get_gid() for t in prisma_flow.draw(current(survey).population("v1").prisma).findobj(Text) if t.get_gid()}
    assert "previous" not in published and "total" not in published  # the first release: the plain flow


def test_figures_of_the_pool_say_where_the_published_release_differs(survey, cli):
    from masrl.commands.figures import release_note
    from masrl.render import figures

    before = current(survey)
    spec = next(s for s in figures.FIGURES if s.name == "credit_hierarchy")
    assert release_note(spec, before.population("v1"), None) is None  # a release's own figures carry no such note
    grow.grow(cli, survey)
    result = current(survey)
    old = before.baseline.table("credit_units").frame
    new = result.pool.table("credit_units").frame
    changed = [(unit, col) for unit in new.index for col in ("broad", "strict") if new.loc[unit, col] != old.loc[unit, col]]
    note = release_note(spec, result.pool, result.baseline)
    assert note.startswith(f"Published release v1 (2026-05-04) differs in {len(changed)} cell(s): ")
    assert note.endswith("Its figure: reports/releases/v1/figures/credit_hierarchy.svg.")
    prisma = next(s for s in figures.FIGURES if s.name == "prisma_flow")
    assert release_note(prisma, result.pool, result.baseline) is None  # the update's flow draws the release itself
