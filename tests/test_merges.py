"""Merging two contributions: two branches that each add papers and exclusions merge with one
`masrl resolve`, which renumbers what collides and refuses what it cannot decide."""

from __future__ import annotations

import shutil

import grow

from masrl.build.pipeline import build
from masrl.core import clock
from masrl.corpus.load import load
from living import files_under, git
from trees import grown_only  # noqa: F401 - the grown tree only


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
    assert {grow.PAPERS[0]["key"], grow.PAPERS[2]["key"]} <= {r["key"] for r in result.pool.retained_records}
    assert {r["record_id"]: r["screening_label"] for r in result.pool.excluded_records if r["record_id"] in (first, second)} == {
        first: grow.EXCLUSION["title"], second: "Another Prompted Team"}


def _two_zhao_keys(survey, repo) -> tuple[str, str]:
    """A git repository of ``survey`` (one commit, on main); the key a first paper by "Zhao, Xin" of 2026 gets,
    and the key a second one gets once the first has it."""
    from masrl.corpus.records import free_key

    shutil.copy(repo / ".gitattributes", survey / ".gitattributes")
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    keys = {p.stem for p in (survey / "corpus/papers").glob("*.yaml")}
    ours_key = free_key("zhao2026", keys)
    return ours_key, free_key("zhao2026", keys | {ours_key})


def _two_tagged_zhao_papers(survey, cli, key: str, then=lambda branch: None) -> None:
    """Branches a and b each add a tagged paper by "Zhao, Xin" of 2026 as ``key`` (``then(branch)`` before each commit)."""
    for branch, arxiv, title in (("a", "2606.21111", "Team Credit One"), ("b", "2606.22222", "Team Credit Two")):
        git(survey, "checkout", "-q", "-b", branch, "main")
        assert cli("add", "--root", survey, "--no-fetch", "--arxiv", arxiv, "--title", title, "--author", "Zhao, Xin",
                   "--year", "2026").code == 0
        for field, value in grow.PAPERS[2]["tags"].items():
            grow.set_field(survey / f"corpus/papers/{key}.yaml", field, value)
        then(branch)
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", branch)


def _merge_b_into_a(survey, cli):
    """Branch b merged into branch a with git, then `masrl resolve`: its run."""
    git(survey, "checkout", "-q", "a")
    git(survey, "merge", "--no-edit", "b")
    return cli("resolve", "--root", survey)


def test_resolve_keeps_two_papers_that_got_the_same_key(survey, cli, repo):
    """Both branches add a paper by a "Zhao, Xin" of 2026: both records are zhao2026 (or the same next key).
    Theirs gets the next key of the add scheme, with its bibtex_key; a failed validation writes nothing."""
    ours_key, theirs_key = _two_zhao_keys(survey, repo)
    for branch, arxiv, title in (("a", "2606.21111", "Team Credit One"), ("b", "2606.22222", "Team Credit Two")):
        git(survey, "checkout", "-q", "-b", branch, "main")
        run = cli("add", "--root", survey, "--no-fetch", "--arxiv", arxiv, "--title", title, "--author", "Zhao, Xin",
                  "--year", "2026")
        assert run.code == 0, run.err
        assert (survey / f"corpus/papers/{ours_key}.yaml").is_file()
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", branch)
    run = _merge_b_into_a(survey, cli)
    # the stubs are untagged: nothing may be written while they do not validate
    assert run.code == 1
    assert not (survey / f"corpus/papers/{theirs_key}.yaml").exists()
    assert (f"theirs of corpus/papers/{ours_key}.yaml would become corpus/papers/{theirs_key}.yaml; if both sides added "
            f"the same paper, keep one: `git checkout --ours corpus/papers/{ours_key}.yaml && git add "
            f"corpus/papers/{ours_key}.yaml`") in run.err
    assert f"corpus/papers/{theirs_key}.yaml" in run.err and "bibtex_key" not in run.err
    git(survey, "merge", "--abort")
    for branch in ("a", "b"):  # tag both stubs as a contributor would, then merge again
        git(survey, "checkout", "-q", branch)
        path = survey / f"corpus/papers/{ours_key}.yaml"
        for field, value in grow.PAPERS[2]["tags"].items():
            grow.set_field(path, field, value)
        assert cli("build", "--root", survey, "--no-figures").code == 0  # the keys are the point here, not the figures
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", f"tag {branch}")
    git(survey, "checkout", "-q", "a")
    git(survey, "merge", "--no-edit", "b")
    lock = survey / ".git/index.lock"  # a git command that stopped and left its lock: `git add` would fail after the writes
    lock.touch()
    run = cli("resolve", "--root", survey)
    assert run.code == 1 and run.err.splitlines()[-1] == (
        f"masrl: error: git's index is locked ({lock} exists: another git command is running, or one stopped and left "
        "it); nothing was written. When no git command runs, remove it and run `masrl resolve` again")
    assert not (survey / f"corpus/papers/{theirs_key}.yaml").exists()
    lock.unlink()
    run = cli("resolve", "--root", survey, "--no-figures")
    assert run.code == 0, run.err
    assert (f"kept both: corpus/papers/{ours_key}.yaml is ours; theirs is now corpus/papers/{theirs_key}.yaml "
            "(its id/key changed to match)") in run.out
    renamed = (survey / f"corpus/papers/{theirs_key}.yaml").read_text()
    assert renamed.startswith(f"key: {theirs_key}\n") and f"\nbibtex_key: {theirs_key}\n" in renamed and "Team Credit Two" in renamed
    git(survey, "commit", "-q", "--no-edit")
    assert cli("build", "--root", survey, "--check", "--no-figures").code == 0


def test_resolve_refuses_a_record_edited_on_both_sides(survey, cli):
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    for branch, scenario in (("a", "math"), ("b", "web")):
        git(survey, "checkout", "-q", "-b", branch, "main")
        grow.set_field(survey / "corpus/papers/c3.yaml", "scenario", scenario)
        git(survey, "commit", "-qam", branch)
    run = _merge_b_into_a(survey, cli)
    assert run.code == 1
    assert "conflict: corpus/papers/c3.yaml: the same record was changed on both sides" in run.err


def test_resolve_names_a_record_deleted_on_one_side_and_changed_on_the_other(survey, cli):
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    git(survey, "checkout", "-q", "-b", "a", "main")
    grow.set_field(survey / "corpus/papers/c3.yaml", "scenario", "math")
    git(survey, "commit", "-qam", "a")
    git(survey, "checkout", "-q", "-b", "b", "main")
    git(survey, "rm", "-q", "corpus/papers/c3.yaml")
    git(survey, "commit", "-qm", "b")
    run = _merge_b_into_a(survey, cli)
    assert run.code == 1 and run.err.splitlines()[0] == (
        "conflict: corpus/papers/c3.yaml: theirs deleted or moved it, the other side changed it: keep the file "
        "(`git add corpus/papers/c3.yaml`) or its deletion (`git rm corpus/papers/c3.yaml`)")


def test_resolve_without_a_merge(survey, cli, monkeypatch, tmp_path):
    git(survey, "init", "-q")
    run = cli("resolve", "--root", survey)
    assert run.code == 0 and run.out.startswith("nothing to resolve")
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))  # git missing is said as such, not as "no repository"
    run = cli("resolve", "--root", survey)
    assert run.code == 1 and run.err == "masrl: error: git is not installed (not found on PATH); this command needs it\n"


def test_resolve_names_a_reference_the_merged_branch_made_to_a_key_it_renames(published_tree, tmp_path, cli, repo):
    """Both branches add a zhao2026; branch b also names its own as a representative in the taxonomy (merged without
    a conflict). Theirs becomes the next key, so b's reference would name a's paper: resolve says so and writes
    nothing; once the reference names the renamed key, it resolves. (The tree's history does not matter here.)"""
    from trees import copy_tree

    survey = copy_tree(published_tree, tmp_path / "survey")
    ours_key, theirs_key = _two_zhao_keys(survey, repo)
    taxonomy = survey / "corpus/taxonomy.yaml"

    def name_it(branch: str) -> None:
        if branch == "b":
            taxonomy.write_text(taxonomy.read_text().replace("representatives: [c3]", f"representatives: [c3, {ours_key}]", 1))

    _two_tagged_zhao_papers(survey, cli, ours_key, name_it)
    run = _merge_b_into_a(survey, cli)
    assert run.code == 1
    assert (f"conflict: corpus/taxonomy.yaml: the branch merged in names {ours_key} there, and its {ours_key} is now "
            f"{theirs_key} (ours keeps {ours_key}): point each reference at the record it means") in run.err
    assert not (survey / f"corpus/papers/{theirs_key}.yaml").exists()
    taxonomy.write_text(taxonomy.read_text().replace(f"representatives: [c3, {ours_key}]", f"representatives: [c3, {theirs_key}]"))
    git(survey, "add", "corpus/taxonomy.yaml")
    run = cli("resolve", "--root", survey, "--no-figures")
    assert run.code == 0, run.err
    assert (survey / f"corpus/papers/{theirs_key}.yaml").read_text().startswith(f"key: {theirs_key}\ntitle: Team Credit Two\n")


def test_a_key_never_runs_out():
    """An export of anonymous submissions has thousands of papers of one first author and year."""
    import itertools
    import string

    from masrl.corpus.records import free_key

    taken = {"anon2026"} | {"anon2026" + "".join(p) for n in (1, 2) for p in itertools.product(string.ascii_lowercase, repeat=n)}
    assert free_key("anon2026", taken) == "anon2026aaa"
    assert free_key("anon2026", {"anon2026"}) == "anon2026b" and free_key("anon2026", {"anon2026", "anon2026b"}) == "anon2026c"
    assert free_key("anon2026", taken - {"anon2026zz"}) == "anon2026zz"


def _branches_from_main(survey, repo) -> None:
    shutil.copy(repo / ".gitattributes", survey / ".gitattributes")
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")


def test_an_id_one_side_froze_in_a_release_stays_that_sides_and_the_other_is_renumbered(survey, cli, repo):
    """Branch a excludes a paper and freezes it in a release; branch b, in the meantime, excludes another paper under
    the same next id. Merged into b, the released record keeps the id (the release names it), b's own is renumbered."""
    _branches_from_main(survey, repo)
    first = grow.next_record_id(survey)
    second = f"E{int(first[1:]) + 1:03d}"
    release = grow.next_release_name(survey)
    for branch, excluded in (("a", grow.EXCLUSION), ("b", dict(grow.EXCLUSION, arxiv="2606.08888", title="Another Prompted Team"))):
        git(survey, "checkout", "-q", "-b", branch, "main")
        grow.exclude_paper(cli, survey, excluded)
        if branch == "a":
            assert cli("release", release, "--root", survey, "--date", clock.today().isoformat()).code == 0
        assert cli("build", "--root", survey, "--no-figures").code == 0
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", branch)
    git(survey, "checkout", "-q", "b")
    git(survey, "merge", "--no-edit", "a")
    figures = {rel: data for rel, data in files_under(survey, "reports").items() if "/figures/" in rel}
    run = cli("resolve", "--root", survey, "--no-figures")  # the ids are the point here: no figure is drawn
    assert run.code == 0, run.err
    assert (f"kept both: exclusions/{first}.yaml is theirs (a release of theirs froze it); ours is now "
            f"exclusions/{second}.yaml (its id/key changed to match)") in run.out
    assert run.err == ("note: --no-figures: no figure was drawn; the figures and the manifests that record them were "
                       "left as the merge left them (`masrl build` brings them up to date)\n")
    assert {rel: data for rel, data in files_under(survey, "reports").items() if "/figures/" in rel} == figures
    assert [line for line in git(survey, "status", "--porcelain").splitlines() if line[:2].strip() == "D"] == []
    assert (survey / "reports/releases/v1/manifest.json").is_file()  # a published release's reports stay whole
    git(survey, "commit", "-q", "--no-edit")
    assert cli("build", "--root", survey, "--check", "--no-figures").code == 0
    result = build(load(survey), {"survey_example": True})
    assert {r["record_id"]: r["screening_label"] for r in result.pool.excluded_records if r["record_id"] in (first, second)} == {
        first: grow.EXCLUSION["title"], second: "Another Prompted Team"}
    assert cli("validate", "--root", survey).code == 0


def test_two_branches_that_froze_the_same_release_are_told_what_to_keep(survey, cli, repo):
    _branches_from_main(survey, repo)
    release = grow.next_release_name(survey)
    for branch, paper in (("a", grow.PAPERS[0]), ("b", grow.PAPERS[2])):
        git(survey, "checkout", "-q", "-b", branch, "main")
        grow.add_paper(cli, survey, paper)
        assert cli("release", release, "--root", survey, "--date", clock.today().isoformat()).code == 0
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", branch)
    run = _merge_b_into_a(survey, cli)
    assert run.code == 1
    assert (f"conflict: corpus/releases/{release}.yaml: both sides froze or edited a release; a release is published "
            "once: keep the side that was published (`git checkout --ours corpus/releases.yaml corpus/releases/` or "
            "`--theirs`, then `git add` them); the other side's new papers are then pending, for the next release"
            ) in run.err.splitlines()


def test_two_audit_rounds_sampled_under_one_id_on_two_branches_are_named_once_with_what_to_do(survey, cli, repo):
    _branches_from_main(survey, repo)
    for branch, seed in (("a", 7), ("b", 8)):
        git(survey, "checkout", "-q", "-b", branch, "main")
        assert cli("audit", "sample", "--root", survey, "--population", "retained", "--n", 4, "--seed", seed).code == 0
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", branch)
    audit = f"tags-{clock.today().isoformat()}"
    run = _merge_b_into_a(survey, cli)
    conflicts = [line for line in run.err.splitlines() if line.startswith("conflict: ")]
    assert run.code == 1 and conflicts == [
        f"conflict: corpus/audits/{audit}/: each side sampled an audit round of its own under this id: keep one side's "
        f"(`git checkout --ours -- corpus/audits/{audit}` or `--theirs`, then `git add corpus/audits/{audit}`) and sample "
        f"the other again under an id of its own (`masrl audit sample ... --id {audit}-2`)"], run.err


def test_a_cherry_pick_that_stops_on_conflicts_is_resolved_and_told_how_to_go_on(survey, cli, repo):
    """Ours is HEAD, theirs the commit picked (its parent the ancestor): a same-key paper is renamed as in a merge,
    and the last line names `git cherry-pick --continue`."""
    ours_key, theirs_key = _two_zhao_keys(survey, repo)

    def built(branch: str) -> None:
        assert cli("build", "--root", survey, "--no-figures").code == 0

    _two_tagged_zhao_papers(survey, cli, ours_key, built)
    git(survey, "checkout", "-q", "a")
    git(survey, "cherry-pick", "b")
    run = cli("resolve", "--root", survey, "--no-figures")
    assert run.code == 0, run.err
    assert (f"kept both: corpus/papers/{ours_key}.yaml is ours; theirs is now corpus/papers/{theirs_key}.yaml "
            "(its id/key changed to match)") in run.out
    assert run.out.splitlines()[-1] == "next: review with `git diff --cached`, then `git cherry-pick --continue` to conclude the cherry-pick"
    assert "Team Credit Two" in (survey / f"corpus/papers/{theirs_key}.yaml").read_text()


def test_one_record_changed_on_two_unrelated_histories_is_one_paper_changed_twice(survey, cli, repo):
    """Two histories without a common ancestor (`git merge --allow-unrelated-histories`) both hold a record release
    v1 froze, each with another note: one paper changed on both sides, not two papers under one name."""
    _branches_from_main(survey, repo)
    git(survey, "checkout", "-q", "--orphan", "other")
    git(survey, "commit", "-qm", "another history")
    for branch, note in (("other", "their note"), ("main", "our note")):
        git(survey, "checkout", "-q", branch)
        grow.set_field(survey / "corpus/papers/c3.yaml", "notes", note)
        git(survey, "commit", "-qam", note)
    git(survey, "merge", "--allow-unrelated-histories", "--no-edit", "other")
    run = cli("resolve", "--root", survey)
    assert run.code == 1
    assert "conflict: corpus/papers/c3.yaml: the same record was changed on both sides: edit it to what it should say" \
        in run.err.splitlines()


def test_a_stash_that_stops_on_conflicts_is_named_and_the_reports_still_resolved(survey, cli, repo):
    """`git stash pop` leaves conflicts and no merge: a record conflict is left to a person with what git stopped in;
    with the reports alone in conflict, they are regenerated and the last line says the stash is kept."""
    _branches_from_main(survey, repo)
    grow.exclude_paper(cli, survey, dict(grow.EXCLUSION, arxiv="2606.08888", title="Another Prompted Team"))
    assert cli("build", "--root", survey, "--no-figures").code == 0
    git(survey, "add", "-A")
    git(survey, "stash", "-q")
    grow.exclude_paper(cli, survey, grow.EXCLUSION)
    assert cli("build", "--root", survey, "--no-figures").code == 0
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "exclude")
    git(survey, "stash", "pop")
    run = cli("resolve", "--root", survey)
    assert run.code == 1 and ("but no merge, cherry-pick, rebase or revert is in progress (no merge is in progress: after a "
                              "`git stash pop` (or `apply`) that stopped on conflicts, the stash is kept until `git stash "
                              "drop`), so masrl cannot tell the two sides apart") in run.err, run.err
    first = grow.next_record_id(survey)
    record = f"exclusions/E{int(first[1:]) - 1:03d}.yaml"
    git(survey, "checkout", "--ours", record)
    git(survey, "add", record)
    run = cli("resolve", "--root", survey, "--no-figures")
    assert run.code == 0, run.err
    assert run.out.splitlines()[-1] == ("next: review with `git diff --cached`; no merge is in progress: after a `git stash "
                                        "pop` (or `apply`) that stopped on conflicts, the stash is kept until `git stash drop`")


def test_a_revert_that_would_delete_a_published_release_is_refused(survey, cli, repo):
    """Reverting the commit that froze a release would take the release away: resolve names it and writes nothing."""
    _branches_from_main(survey, repo)
    grow.exclude_paper(cli, survey, grow.EXCLUSION)
    release = grow.next_release_name(survey)
    assert cli("release", release, "--root", survey, "--date", clock.today().isoformat()).code == 0
    assert cli("build", "--root", survey, "--no-figures").code == 0
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "release")
    grow.set_field(survey / "corpus/papers/c3.yaml", "notes", "after the release")
    assert cli("build", "--root", survey, "--no-figures").code == 0
    git(survey, "commit", "-qam", "a note")
    git(survey, "revert", "--no-edit", "HEAD~1")
    run = cli("resolve", "--root", survey)
    assert run.code == 1, run.out
    assert (f"conflict: corpus/releases/{release}.yaml: this would delete release {release}, which is published: a "
            f"release is never removed; keep it (`git checkout HEAD -- corpus/releases/{release}.yaml "
            "corpus/releases.yaml`)") in run.err.splitlines(), run.err


def test_resolve_names_a_current_claim_the_merged_records_break_and_exits_1(survey, cli, repo):
    """Run 37: resolve regenerated the reports, exited 0 and said "next: git commit" though the merged records broke a
    current claim (build --check then failed): the merge was committed as though it were clean."""
    shutil.copy(repo / ".gitattributes", survey / ".gitattributes")
    git(survey, "init", "-q", "-b", "main")
    git(survey, "add", "-A")
    git(survey, "commit", "-qm", "base")
    for branch, paper, excluded in (
            ("a", dict(grow.PAPERS[0], tags={**grow.PAPERS[0]["tags"], "subdecisions": "[O5]"}), grow.EXCLUSION),
            ("b", grow.PAPERS[2], dict(grow.EXCLUSION, arxiv="2606.08888", title="Another Prompted Team"))):
        git(survey, "checkout", "-q", "-b", branch, "main")
        grow.add_paper(cli, survey, paper)
        grow.exclude_paper(cli, survey, excluded)
        cli("build", "--root", survey)  # branch a breaks the claim already: its build says so, and writes the reports
        git(survey, "add", "-A")
        git(survey, "commit", "-qm", f"add {paper['key']}")
    git(survey, "checkout", "-q", "a")
    assert "CONFLICT" in git(survey, "merge", "--no-edit", "b")
    run = cli("resolve", "--root", survey)
    assert run.code == 1 and "claim 'o5-stopping-uncovered'" in run.err and "next: review" not in run.out, run.err
    assert "the merged records break a current claim (above)" in run.err
    assert git(survey, "diff", "--name-only", "--diff-filter=U") == ""  # resolved all the same
