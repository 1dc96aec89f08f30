"""Placeholder text that must not become a title or an author.

Documentation and templates show ``--title "..."`` or ``TODO``; copied
literally, they would create a record that looks valid. :func:`placeholder_problem`
names such text.
"""

from __future__ import annotations

import re

_WORDS = {
    "todo", "tbd", "tba", "fixme", "xxx", "placeholder", "untitled", "title", "paper title", "the title",
    "author", "authors", "author name", "name", "last, first", "first last", "lastname, firstname",
    "surname, name", "family, given", "untagged",
}


def placeholder_problem(text: object) -> str | None:
    """Why ``text`` is a placeholder rather than a real title or author name, or None.

    Placeholders: empty or only spaces; only punctuation (``...``, ``…``, ``?``,
    ``--``); a placeholder word such as ``TODO``, ``TBD``, ``FIXME``, ``XXX``,
    ``Title`` or ``Last, First`` (case and surrounding punctuation ignored).
    """
    value = " ".join(str(text or "").split())
    if not value:
        return "is empty"
    if re.fullmatch(r"[\W_]+", value):
        return f"{value!r} is only punctuation, a placeholder"
    core = re.sub(r"^[\W_]+|[\W_]+$", "", value).casefold()
    if value.casefold() in _WORDS or core in _WORDS:
        return f"{value!r} is a placeholder"
    return None


def author_problem(author: object) -> str | None:
    """Why ``author`` is no author name, or None: a placeholder (:func:`placeholder_problem`), or a
    ``Last, First`` name whose last name has no letter (``", G"``, ``"{}, G"``, ``"--, X"``)."""
    why = placeholder_problem(author)
    if why:
        return why
    text = " ".join(str(author).split())
    braced = text.startswith("{") and text.endswith("}")
    last = text if braced or "," not in text else text.split(",", 1)[0]
    if not any(ch.isalpha() for ch in last):
        return f"{text!r} has no last name (write \"Last, First\")"
    return None
