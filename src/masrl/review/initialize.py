"""Starting a new survey: the library under ``masrl init``.

:func:`new_survey` returns the files of a survey that validates and builds at once: a commented
``corpus/taxonomy.yaml`` (two example fields, one table, one figure, the README list and the
site), ``corpus/claims.yaml`` with one claim, an empty ``corpus/papers/`` and ``exclusions/``
(each held by a ``.gitkeep``), a placeholder ``corpus/protocol.yaml`` and a ``README.md`` with
the paper-list markers. The texts are package files of :mod:`masrl.review.newsurvey`. Nothing
here writes.
"""

from __future__ import annotations

import json
from importlib import resources

from ..core.errors import UserError
from ..core.placeholders import placeholder_problem
from ..core.text import text_problem
from ..render.escape import md_text

#: Package file -> path in the new survey.
FILES = {
    "taxonomy.yaml": "corpus/taxonomy.yaml",
    "claims.yaml": "corpus/claims.yaml",
    "protocol.yaml": "corpus/protocol.yaml",
    "README.md": "README.md",
}
#: Empty folders of a new survey, each kept by an empty hidden file (git keeps no empty folder).
FOLDERS = ("corpus/papers/", "exclusions/")
KEEP = ".gitkeep"

#: The title of a survey made without ``--title``.
DEFAULT_TITLE = "A new survey"


def new_survey(title: str = DEFAULT_TITLE) -> dict[str, bytes]:
    """``{path: bytes}`` of a new survey titled ``title`` (one line).

    Raises:
        UserError: if the title is empty, holds a line break, or is a placeholder (``TODO``).
    """
    title = title.strip()
    if not title:
        raise UserError("--title: the title is empty; give the survey's title")
    if "\n" in title or "\r" in title:
        raise UserError("--title: give the survey's title on one line")
    if why := placeholder_problem(title):
        raise UserError(f"--title: {why}; give the survey's real title")
    if why := text_problem(title):
        raise UserError(f"--title: {title!r} {why}")
    package = resources.files(__package__).joinpath("newsurvey")
    out: dict[str, bytes] = {}
    for name, path in FILES.items():
        text = package.joinpath(name).read_text(encoding="utf-8")
        # YAML: a double-quoted scalar (JSON's string syntax is valid YAML); Markdown: the title escaped,
        # so that it shows as written (never as HTML, a link or emphasis: masrl.render.escape.md_text)
        out[path] = text.replace("__TITLE__", json.dumps(title, ensure_ascii=False) if name.endswith(".yaml") else md_text(title)).encode()
    for folder in FOLDERS:
        out[folder + KEEP] = b""
    return out
