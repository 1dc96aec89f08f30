"""Grow a copy of the test survey as its contributors and maintainers would, through the CLI.

:func:`grow` adds and tags papers after the cutoff and logs an exclusion (the living-review
tests); :func:`grow_tree` runs every workflow of the manual on a copy: papers and an exclusion
added and tagged, the next release frozen, an audit round sampled, read, adjudicated and applied,
and two branches that each add a paper merged with ``masrl resolve``. Each step runs on a fixed
day (``MASRL_TODAY``), and git commits carry fixed dates, so the grown tree is the same bytes on
any day. The papers are invented for the tests (tests/data/grow.yaml).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import yaml

_DATA = yaml.safe_load((Path(__file__).parent / "data/grow.yaml").read_text(encoding="utf-8"))
PAPERS, EXCLUSION = tuple(_DATA["papers"]), _DATA["exclusion"]
SUITE_PAPERS, SUITE_EXCLUSION = tuple(_DATA["suite_papers"]), _DATA["suite_exclusion"]
BRANCH_PAPERS, BRANCH_EXCLUSIONS = tuple(_DATA["branch_papers"]), tuple(_DATA["branch_exclusions"])

#: The days of the grown tree's workflows: the update round's additions, the release that holds
#: them, the audit round, the two branches. The suite's own clock (tests/conftest.py) is later.
ADDED, RELEASED, AUDITED, BRANCHED = "2026-12-10", "2026-12-15", "2026-12-20", "2027-01-05"


def on(day: str):
    """masrl's clock (``MASRL_TODAY``) set to ``day`` inside the ``with`` block, as it was after."""
    return mock.patch.dict(os.environ, {"MASRL_TODAY": day})


def _ok(result, what: str) -> None:
    if result.code != 0:
        raise AssertionError(f"{what} exited {result.code}: {result.err}")


def next_record_id(root: Path) -> str:
    """The record id ``masrl exclude`` gives next in the survey at ``root``."""
    numbers = [int(p.stem[1:]) for p in (root / "exclusions").glob("E*.yaml") if p.stem[1:].isdigit()]
    return f"E{max(numbers, default=0) + 1:03d}"


def set_field(path: Path, field: str, value: str) -> None:
    """Replace the top-level line ``field: ...`` (and a following block list) with ``field: value``."""
    text, n = re.subn(rf"(?m)^{field}:.*(\n  - .*)*$", lambda m: f"{field}: {value}", path.read_text(encoding="utf-8"), count=1)
    if n != 1:
        raise AssertionError(f"{field} not in {path}")
    path.write_text(text, encoding="utf-8")


def add_paper(run, root: Path, paper: dict) -> Path:
    """``masrl add`` the paper with its key, then tag it; returns the record file."""
    args = ["add", "--root", root, "--arxiv", paper["arxiv"], "--title", paper["title"], "--year", paper["year"],
            "--venue", paper["venue"], "--key", paper["key"], *(x for a in paper["authors"] for x in ("--author", a))]
    _ok(run(*args), f"masrl add {paper['key']}")
    path = root / f"corpus/papers/{paper['key']}.yaml"
    for field, value in paper["tags"].items():
        set_field(path, field, value)
    return path


def exclude_paper(run, root: Path, paper: dict, if_retained: dict | None = None) -> Path:
    """``masrl exclude`` a screened paper (optionally with near-miss tags); returns the new exclusion file."""
    before = set((root / "exclusions").glob("*.yaml"))
    args = ["exclude", "--root", root, "--title", paper["title"], "--arxiv", paper["arxiv"], "--year", paper["year"],
            "--stage", paper["stage"], "--reason", paper["reason"], "--reason-class", paper["reason_class"],
            "--source", paper["source"], "--query-family", paper["query_family"],
            *(x for a in paper["authors"] for x in ("--author", a))]
    _ok(run(*args), f"masrl exclude {paper['title']}")
    (path,) = set((root / "exclusions").glob("*.yaml")) - before
    if if_retained:
        lines = "".join(f"  {k}: {v}\n" for k, v in if_retained.items())
        text = path.read_text(encoding="utf-8").replace("\ntag_provenance:", f"\nif_retained:\n{lines}tag_provenance:", 1)
        path.write_text(text, encoding="utf-8")
    return path


def confirm_drafts(root: Path) -> list[str]:
    """Confirm every suggested tag no person has confirmed (``masrl suggest --draft``), as a
    maintainer does by hand before ``masrl release``: the field's ``tag_provenance`` line
    ``suggested (...), not confirmed`` becomes ``suggested (...), confirmed``. Returns the keys."""
    keys = []
    for path in sorted((root / "corpus/papers").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        new = re.sub(r"(?m)^(  \w+: suggested \(masrl suggest[^\n]*\)), not confirmed$", r"\1, confirmed", text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            keys.append(path.stem)
    return keys


def grow(run, root: Path, papers: tuple = PAPERS, exclusion: dict = EXCLUSION, build: bool = True) -> None:
    """Add and tag ``papers``, exclude ``exclusion``, then (with ``build``) ``masrl build``."""
    for paper in papers:
        add_paper(run, root, paper)
    exclude_paper(run, root, exclusion)
    if build:
        _ok(run("build", "--root", root), "masrl build")


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run git in ``root`` (no user or system configuration, fixed dates); returns stdout and stderr."""
    env = {"GIT_AUTHOR_NAME": "masrl tests", "GIT_AUTHOR_EMAIL": "tests@masrl.invalid", "GIT_COMMITTER_NAME": "masrl tests",
           "GIT_COMMITTER_EMAIL": "tests@masrl.invalid", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root),
           "GIT_AUTHOR_DATE": "2027-01-05T12:00:00Z", "GIT_COMMITTER_DATE": "2027-01-05T12:00:00Z",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, env=env, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} exited {done.returncode}: {done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def next_release_name(root: Path) -> str:
    """The next free release name ``v<N>`` of the survey at ``root``."""
    names = {r["name"] for r in yaml.safe_load((root / "corpus/releases.yaml").read_text(encoding="utf-8"))["releases"]}
    return next(f"v{n}" for n in range(len(names) + 1, 10_000) if f"v{n}" not in names)


def audit_round(run, root: Path, audit_id: str | None, reader: str = "Jane Doe", adjudicator: str = "Ada Lovelace",
                seed: int = 7, n: int = 20, spare: tuple = ()) -> str:
    """One audit round ``audit_id`` (None: the id masrl gives) as the manual runs it: ``n`` retained records
    sampled (stratified by category), a reader who agrees with every value but one ``is_rl`` of a record tagged
    ``yes``, adjudicated for the reader and applied; the records ``spare`` keep their values. Returns its id."""
    sampled = run("audit", "sample", "--root", root, "--population", "retained", "--n", n, "--stratify", "category",
                  "--seed", seed, *(("--id", audit_id) if audit_id else ()))
    _ok(sampled, "masrl audit sample")
    audit_id = audit_id or re.search(r"for audit (\S+)\.$", sampled.out, re.M).group(1)
    folder = root / "corpus/audits" / audit_id
    audit = yaml.safe_load((folder / "audit.yaml").read_text(encoding="utf-8"))
    changed = next(i for i in audit["items"] if i["original"].get("is_rl") == "yes" and i["record"] not in spare)
    rows = list(csv.reader(io.StringIO((folder / "sheet/sheet.csv").read_text(encoding="utf-8-sig"), newline="")))
    originals = {i["item"]: i["original"] for i in audit["items"]}
    for row in rows[1:]:
        cells = dict(zip(rows[0], row))
        cells.update({name: originals[cells["item"]][name] for name in audit["fields"]})
        if cells["item"] == changed["item"]:
            cells["is_rl"] = "partial"
        row[:] = [cells[h] for h in rows[0]]
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    sheet = root.parent / f"{root.name}-{audit_id}-sheet.csv"
    sheet.write_text(buffer.getvalue(), encoding="utf-8")
    _ok(run("audit", "import", sheet, "--root", root, "--audit", audit_id, "--reader", reader), "masrl audit import")
    _ok(run("audit", "adjudicate", audit_id, "--root", root), "masrl audit adjudicate")
    path = folder / "adjudication-round-1.yaml"
    adjudication = yaml.safe_load(path.read_text(encoding="utf-8"))
    for entry in adjudication["resolutions"]:
        entry.update(resolved=entry["values"][reader], by=adjudicator)
    path.write_text(yaml.safe_dump(adjudication, sort_keys=False, allow_unicode=True), encoding="utf-8")
    _ok(run("audit", "apply", audit_id, "--root", root, "--yes"), "masrl audit apply")
    return audit_id


def merge_two_branches(run, root: Path, papers: tuple = BRANCH_PAPERS, exclusions: tuple = BRANCH_EXCLUSIONS) -> None:
    """Two contributors' branches off ``main``, each adding a paper and an exclusion and rebuilding,
    merged as the manual says (``git merge``, ``masrl resolve``, ``git commit --no-edit``), then
    brought into ``main``."""
    for branch, paper, exclusion in zip(("contrib-a", "contrib-b"), papers, exclusions):
        git(root, "checkout", "-q", "-b", branch, "main")
        add_paper(run, root, paper)
        exclude_paper(run, root, exclusion)
        _ok(run("build", "--root", root), f"masrl build on {branch}")
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"add {paper['key']}")
    git(root, "checkout", "-q", "contrib-a")
    merged = git(root, "merge", "--no-edit", "contrib-b", check=False)
    if "CONFLICT" not in merged:
        raise AssertionError(f"the two branches merged without a conflict: {merged}")
    _ok(run("resolve", "--root", root), "masrl resolve")
    git(root, "commit", "-q", "--no-edit")
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--ff-only", "contrib-a")


def grow_tree(run, root: Path) -> dict:
    """Run the manual's workflows on the built copy of the test survey at ``root``, each through
    the CLI and on its own day: an update round's papers and exclusion added and tagged
    (:data:`ADDED`), the next release and a correction of it frozen the same day (:data:`RELEASED`), an audit round applied and the
    tree built (:data:`AUDITED`), two branches merged (:data:`BRANCHED`). Leaves ``root`` a git
    repository on ``main`` with a clean working tree and its reports current; returns
    ``{"release": name, "audit": audit id}``."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the survey as bundled")
    with on(ADDED):
        for paper in SUITE_PAPERS:
            add_paper(run, root, paper)
        exclude_paper(run, root, SUITE_EXCLUSION)
    release = next_release_name(root)
    with on(RELEASED):  # two releases of one day: the update, then a correction of it
        _ok(run("release", release, "--root", root, "--date", RELEASED, "--title", "Update of December 2026"), "masrl release")
        set_field(root / f"corpus/papers/{SUITE_PAPERS[0]['key']}.yaml", "scenario", "research")
        release = next_release_name(root)
        _ok(run("release", release, "--root", root, "--date", RELEASED, "--title", "Correction of December 2026"),
            "masrl release")
    with on(AUDITED):
        audit = audit_round(run, root, None)  # the id masrl gives: tags-<day>
        assert audit == f"tags-{AUDITED}", audit
        _ok(run("build", "--root", root), "masrl build")
    git(root, "add", "-A")
    git(root, "commit", "-qm", f"papers added, release {release} frozen, audit {audit} applied")
    with on(BRANCHED):
        merge_two_branches(run, root)
    if git(root, "status", "--porcelain"):
        raise AssertionError(f"the grown tree is not clean: {git(root, 'status', '--porcelain')}")
    return {"release": release, "audit": audit}


@dataclass
class Run:
    """Result of one in-process masrl run: exit code, stdout, stderr."""

    code: int
    out: str
    err: str


def run_captured(*args) -> Run:
    """Run masrl in-process with its output captured (for use outside a test's ``capsys``)."""
    from masrl.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 2
    return Run(code, out.getvalue(), err.getvalue())
