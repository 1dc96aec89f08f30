"""``masrl init DIR``: start a new survey in DIR (created if missing; refused where a survey is)."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

from ..build import write
from ..core import console
from ..core.errors import UserError
from ..core.names import file_name_problem
from ..core.text import text_problem
from ..review.initialize import DEFAULT_TITLE, new_survey


def run(args: Namespace) -> int:
    """Write the files of a new survey into ``args.directory``; return the exit code.

    Raises:
        UserError: if the directory already holds a survey (``corpus/taxonomy.yaml``) or any of
            the files, or is a file.
    """
    root = Path(args.directory)
    for part in root.parts[-1:] if root.name else ():
        # the survey's folder gets a name every system can hold and every terminal shows as written
        why = text_problem(part) or file_name_problem(part)
        if why:
            raise UserError(f"DIR: {part!r} {why}" if not why.startswith("'") else f"DIR: {why}")
    if root.exists() and not root.is_dir():
        raise UserError(f"{root} is a file; give a folder for the new survey")
    if (root / "corpus/taxonomy.yaml").exists():
        raise UserError(f"{root} already holds a survey (corpus/taxonomy.yaml); masrl init never overwrites one")
    files = new_survey(DEFAULT_TITLE if args.title is None else args.title)
    write.create_new(root, files)
    console.info(f"created a new survey in {root}: corpus/taxonomy.yaml, corpus/claims.yaml, corpus/protocol.yaml "
                 "(a commented example, for update rounds), README.md, .gitattributes, corpus/papers/, exclusions/")
    console.info(f"next: cd {root} && masrl build; then edit corpus/taxonomy.yaml and add papers with masrl add")
    return 0
