"""The help texts of the ``masrl`` command line: its description, epilog and each command's
examples, and the vocabulary listing of ``masrl exclude --help`` (read from the survey's taxonomy)."""

from __future__ import annotations

import shlex

DESCRIPTION = """\
masrl keeps a literature survey reproducible: the records under corpus/ and
exclusions/ are the source of truth, the survey's taxonomy (corpus/taxonomy.yaml)
declares its fields, tables and figures, and every statistic, table, gap
analysis, claim check, figure, BibTeX file and audit under reports/ is
regenerated from them. `masrl init DIR` starts a new survey.

It is a living review. A release is a named, dated, frozen snapshot of the pool
(corpus/releases.yaml): its reports under reports/releases/<name>/ never change.
Records added since the last release are pending; reports/ shows the current
pool with the latest release beside it, and `masrl release NAME --date
YYYY-MM-DD` freezes the next one.

Commands find the survey root by walking up from the current directory to the
folder that holds corpus/taxonomy.yaml; --root DIR overrides."""

EPILOG = """\
exit codes: 0 ok; 1 findings (invalid records, stale reports, a failing claim,
a refused write); 2 usage error (unknown command or option).

examples:
  masrl init my-survey      start a new survey (taxonomy, empty corpus, README)
  masrl validate            check every record against the controlled vocabulary
  masrl build --check       exit 1 if anything committed is stale (CI)
  masrl add --bibtex new.bib
  masrl suggest liu2026     values for a new record's untagged fields, with evidence
  masrl --root ~/survey diff main   what your change does to counts, cells and claims
  masrl resolve             after `git merge` stops on conflicts in reports/
  masrl release v2 --date 2026-12-01   freeze the pool as the next release
  masrl audit sample --population retained --n 20 --seed 7   a second-reader audit
  masrl update search       an update round: search the protocol's query families since the last release"""

EXAMPLES = {
    "validate": """\
examples:
  masrl validate
  masrl validate --root ~/survey
  masrl -q validate && git commit -m 'tag new records'""",
    "build": """\
examples:
  masrl build                 regenerate what changed; prints one summary line (--verbose: every file)
  masrl build --no-figures    ... drawing no figure (faster while editing records)
  masrl build --check         CI: exit 1 listing stale files, write nothing""",
    "add": """\
identifier forms (IDENTIFIER, --arxiv, --doi, --openreview, --url):
  arXiv 2605.08686, 2605.08686v2, arXiv:2605.08686, cs/0506042, https://arxiv.org/abs|pdf|html/...,
        10.48550/arXiv.2605.08686; DOI 10.1145/..., doi:10..., https://doi.org/...;
  OpenReview ur295YVtmt, https://openreview.net/forum?id=...; ACL Anthology 2025.acl-long.476,
        P19-1001, https://aclanthology.org/..., 10.18653/v1/...
metadata sources (without --no-fetch): arXiv API, Crossref (DOIs), OpenReview API, ACL Anthology.

examples:
  masrl add 2605.08686                          look up title, authors, year, venue, abstract
  masrl add --bibtex refs.bib --skip-invalid    add the valid new entries, report the rest in refs-skipped.bib
  masrl add --doi 10.1145/3586183.3606763 --no-fetch --title "Generative Agents: Interactive Simulacra of Human Behavior" --author "Park, Joon Sung" --author others --venue "UIST 2023" --year 2023""",
    "exclude": """\
The options after --reason are the survey's fields of excluded records (corpus/taxonomy.yaml):
each FIELD is asked as --FIELD (underscores as hyphens).

examples:
  masrl exclude --title "Generative Agents: Interactive Simulacra of Human Behavior" --arxiv 2304.03442 --author "Park, Joon Sung" --author others --year 2023 --reason "prompted agents, no training" FIELDS
  masrl exclude --key KEY --reason "out of scope" FIELDS --dry-run""",
    "init": """\
examples:
  masrl init my-survey                     a commented taxonomy, an empty corpus, a README; then:
  cd my-survey && masrl build              the reports of the empty survey
  masrl init my-survey --title 'Credit assignment in multi-agent RL: a survey'""",
    "release": """\
examples:
  masrl release v2 --date 2026-12-01 --title 'Update of December 2026'
  masrl release v2 --date 2026-12-01 --cutoff 2026-11-30 --dry-run
  masrl release v2 --freeze-claims    # freeze the claims written about v2 since""",
    "resolve": """\
examples:
  git merge other-branch     # stops: conflicts in reports/ and exclusions/E033.yaml
  masrl resolve              # regenerates, renames theirs to E034, git-adds
  git commit --no-edit""",
    "diff": """\
examples:
  masrl diff HEAD             paste the Markdown into your pull request
  masrl diff main --json > diff.json""",
}


def exclusion_example(fields) -> str:
    """What ``FIELDS`` stands for in exclude's examples: each field option with its first value
    (``--FIELD VALUE ...``, each the first value of its field in the survey's taxonomy); ``""`` without fields."""
    return " ".join(f"{option} {shlex.quote(values[0] if values else 'TEXT')}" for option, _, values in fields or [])


def _vocabulary_epilog(fields) -> str:
    """The allowed values of exclude's field options, read from the survey's taxonomy (for ``--help``)."""
    if fields is None:
        return "allowed values: see corpus/taxonomy.yaml (no survey root found here; use --root DIR)\n\n"
    lines = ["the survey's fields (corpus/taxonomy.yaml) and their allowed values:"]
    for option, _, values in fields:
        lines.append(f"  {option}: {', '.join(values) or '(free text)'}")
    example = exclusion_example(fields)
    lines.append(f"FIELDS below stands for: {example}" if example else "FIELDS below stands for nothing (no field of excluded records)")
    return "\n".join(lines) + "\n\n"
