"""``masrl validate``: load, validate, print every problem; writes nothing."""

from __future__ import annotations

import sys
from pathlib import Path

from ..checks.advice import warnings
from ..checks.validate import validate
from ..core import console
from ..core.errors import summary
from ..corpus.gitread import release_tags
from ..corpus.load import find_root, load
from ..corpus.provenance import drafted, named


def run(root_arg: Path | None) -> int:
    """Validate the corpus at the survey root; return 0 if valid, 1 otherwise. A valid corpus
    whose records hold suggested tags no person has confirmed (``masrl suggest --draft``) gets a
    note naming them after the summary line (stdout; stderr is for the corpus's problems and
    warnings): valid, but ``masrl release`` refuses them."""
    root = find_root(root_arg)
    corpus = load(root)
    corpus.release_tags = release_tags(root)
    for warning in warnings(corpus):
        print(warning, file=sys.stderr)
    problems = validate(corpus)
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(summary(problems, "no file was changed."), file=sys.stderr)
        return 1
    folders = sum(rel.endswith("/audit.yaml") for rel in corpus.audit_files)
    console.info(f"ok: {len(corpus.retained)} retained and {len(corpus.excluded)} excluded records, "
                 f"taxonomy, claim ledger and {len(corpus.audits) + folders} audit(s) are valid")
    drafts = drafted(corpus.retained.values())
    if drafts:
        console.info(f"note: {len(drafts)} record(s) hold suggested tags no person has confirmed: {named(drafts)}"
                     ". They are valid and built as drafts; `masrl release` "
                     "refuses them until each is confirmed (`masrl suggest KEY --apply FIELD=VALUE`, or a tag by hand)")
    return 0
