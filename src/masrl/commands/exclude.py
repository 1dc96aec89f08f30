"""``masrl exclude``: log a screening decision as ``exclusions/<next id>.yaml``.

With ``--key`` a retained record is moved: the exclusion record keeps its
former key and every field of the former record (``former_record``), it is
written first, and only then is ``corpus/papers/<key>.yaml`` removed; the
move is refused when the corpus would not validate afterwards (the record is
named by the taxonomy, the claim ledger or an audit).
"""

from __future__ import annotations

import dataclasses
import sys
from argparse import Namespace

from ..build import write
from ..checks.textwarn import cut_text_warnings
from ..core import console
from ..core.errors import UserError, summary
from ..corpus.load import PAPERS, find_root, parse_tree, read_taxonomy, read_tree
from ..corpus.taxonomy import Taxonomy
from ..review import intake
from ..review.excluding import (
    Decision,
    decision_problems,
    option_fields,
    plan_exclusions,
)

#: How messages name masrl's own fields of a decision given on the command line.
LABELS = {"reason": "--reason", "date": "--date", "key": "--key", "title": "--title", "key/title": "--key/--title",
          "author": "--author", "year": "--year", "force": "--force"}


def survey_taxonomy(root_arg) -> Taxonomy | None:
    """The survey's taxonomy (found from ``root_arg`` as every command finds it), or None when
    there is no survey root or its taxonomy cannot be read."""
    try:
        return Taxonomy(read_taxonomy(find_root(root_arg)))
    except UserError:
        return None


def vocabulary(tax: Taxonomy | None) -> list[tuple[str, str, tuple[str, ...]]] | None:
    """``[(option, field, allowed values)]`` of the fields a decision gives (``()`` for a free-text
    field), from the survey's taxonomy; None without one."""
    if tax is None:
        return None
    return [(option, name, tax.values(name)) for option, name in option_fields(tax)]


def _values(args: Namespace) -> dict[str, str]:
    """The values of the survey's fields of excluded records, from their options (parsed into
    ``args.field_values`` by the CLI)."""
    return {k: v for k, v in (getattr(args, "field_values", None) or {}).items() if v is not None}


def _decision(args: Namespace, tax: Taxonomy) -> Decision:
    """The decision the command line gives: every argument problem at once first, then the
    identifier flags read in any accepted form.

    Raises:
        UserError: naming every problem of the arguments, or of the identifiers.
    """
    given = {scheme: value for flag, scheme in intake.FLAGS if (value := getattr(args, scheme)) is not None}
    labels = {**LABELS, **{name: option for option, name in option_fields(tax)}}
    authors = []
    for text in args.author or []:
        if text.strip():  # as masrl add stores it: "First Last" becomes "Last, First", with a warning
            stored, warning = intake.author_from_flag(text)
            authors.append(stored)
            if warning:
                print(f"warning: {warning}", file=sys.stderr)
    decision = Decision(reason=args.reason, values=_values(args), date=args.date, key=args.key, title=args.title,
                        identifiers=given, authors=tuple(authors), year=args.year,
                        url=args.url, labels=labels, force=args.force)
    problems = decision_problems(decision, tax)
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)
    if args.key:
        return decision
    idents = intake.identifiers_from_flags({flag: getattr(args, scheme) for flag, scheme in intake.FLAGS})
    return dataclasses.replace(decision, identifiers=intake.mapping(idents))


def run(args: Namespace) -> int:
    """Write the exclusion record (and move a retained one); return the exit code."""
    root = find_root(args.root)
    files = read_tree(root)
    corpus = parse_tree(files)
    decision = _decision(args, Taxonomy(corpus.taxonomy))
    if decision.key:  # a text YAML cut short in the record to be moved is named before anything else
        for warning in cut_text_warnings(corpus):
            if warning.file == f"{PAPERS}{decision.key}.yaml":
                print(warning, file=sys.stderr)
    plan = plan_exclusions(corpus, files, [decision])
    (new_file, data), = plan.files.items()
    moved_from = plan.moved.get(new_file)
    if args.dry_run:
        print(f"# would write {new_file}\n{data.decode()}")
        if moved_from:
            print(f"# would then remove {moved_from}")
        print("dry run: nothing was written")
        return 0
    write.create_new(root, {new_file: data})
    if moved_from:
        try:
            write.remove(root, moved_from)
        except UserError:
            write.remove(root, new_file)  # roll back: the record stays retained, nothing is half-moved
            raise
        console.info(f"moved {moved_from} -> {new_file} (former key and tags kept under former_key / former_record)")
    else:
        console.info(f"created {new_file}")
    console.info("next: `masrl build` and `masrl diff HEAD` to see what the decision changes")
    return 0
