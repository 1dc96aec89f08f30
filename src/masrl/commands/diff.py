"""``masrl diff REV``: the corpus at a git revision vs the working tree."""

from __future__ import annotations

import json
from pathlib import Path

from ..checks.validate import PREDATED, from_older_format, validate
from ..core.errors import UserError, summary
from ..core.text import json_printable
from ..corpus.gitread import read_git_tree, release_report_blobs
from ..corpus.load import Corpus, find_root, parse_tree, read_tree


def _results(corpus: Corpus, label: str, traces_valid: dict[str, bool], rev: str | None = None):
    from ..build.pipeline import build
    from ..core.errors import Problem

    problems = validate(corpus, PREDATED if rev is not None else frozenset())
    if rev is not None:  # an older revision may predate the current file format
        problems = [p for p in problems if not from_older_format(p)]
    if problems:
        if rev is not None:  # name the files as they are at that revision (git's REV:PATH)
            problems = [Problem(f"{rev}:{p.file}", p.line, p.field, p.message) for p in problems]
        raise UserError(summary(problems, f"cannot compare: the corpus {label} does not validate."), problems)
    return build(corpus, traces_valid)


def drafted_records(corpus: Corpus) -> list[dict]:
    """``[{"key", "fields"}]``, by key: the retained records of ``corpus`` that hold suggested tags
    no person has confirmed (``masrl suggest --draft``), with those fields, for a reviewer to see
    in the pull request (``masrl release`` refuses them until each is confirmed)."""
    from ..corpus.provenance import drafted_fields

    return [{"key": key, "fields": fields} for key, fields in drafted_fields(corpus.retained.values())]


def render_markdown(diff: dict, rev: str) -> str:
    """The diff as Markdown, for a pull request (``diff``: :func:`masrl.analyses.compare.compare`'s
    result, with ``"drafts"`` (:func:`drafted_records`) and ``"frozen"`` where :func:`run` adds them)."""
    from ..render.markdown import render_template

    def verdict(holds):
        return "—" if holds is None else ("holds" if holds else "fails")

    return render_template("diff.md.j2", d=diff, rev=rev, verdict=verdict)


def run(root_arg: Path | None, rev: str, as_json: bool = False) -> int:
    """Print the difference; exit 0 (1 only for errors)."""
    from ..analyses.compare import audit_changes, compare
    from ..analyses.frozen import Side, frozen_changes
    from ..build.examples import examples_valid

    root = find_root(root_arg)
    traces_valid = examples_valid()
    old_files, new_files = read_git_tree(root, rev), read_tree(root)
    old, new = parse_tree(old_files), parse_tree(new_files)
    before = _results(old, f"at {rev}", traces_valid, rev)
    after = _results(new, "in the working tree", traces_valid)
    diff = compare(before, after)
    diff["frozen"] = frozen_changes(Side(old.releases, old.snapshots, release_report_blobs(root, rev)),
                                    Side(new.releases, new.snapshots, release_report_blobs(root)))
    diff["drafts"] = drafted_records(new)
    diff["audits"] = audit_changes(old_files, new_files)
    if as_json:
        print(json_printable(json.dumps({"rev": rev, **diff}, indent=2, sort_keys=True, ensure_ascii=False)))
    else:
        print(render_markdown(diff, rev), end="")
    return 0
