"""The library layer under ``masrl add`` and ``masrl exclude``: identifiers from flags,
authors as records keep them, and refusing papers that are already in the pool."""

from __future__ import annotations

import re

from ..bib.bibtex import has_markup, stacked_problem, stored_author, unread_name_problem
from ..bib.latex import decode_latex, stacked_accents
from ..bib.identifiers import (
    SCHEME_ORDER,
    Identifier,
    IdentifierError,
    as_mapping,
    conflicts,
    parse,
)
from ..bib.matching import Pool, known_records
from ..core.errors import COMMAND_LINE, Problem, UserError, summary

#: The identifier flags of ``add`` and ``exclude`` and the scheme each names.
FLAGS = (("--arxiv", "arxiv"), ("--openreview", "openreview"), ("--doi", "doi"), ("--url", "url"))


def identifiers_from_flags(values: dict[str, str | None], positional: str | None = None) -> list[Identifier]:
    """Every identifier given on the command line, read in any accepted form.

    ``values`` maps a flag of :data:`FLAGS` to its text (None when absent);
    ``positional`` is a bare id or URL of any scheme. ``--doi 10.48550/arXiv.X``
    is the arXiv id X; ``--url https://arxiv.org/abs/X`` too.

    Raises:
        UserError: naming every flag whose value is no accepted form, or two flags
            that name different papers of one scheme.
    """
    problems, found = [], []
    given = [(flag, scheme, values.get(flag)) for flag, scheme in FLAGS]
    if positional is not None:
        given.insert(0, ("IDENTIFIER", None, positional))
    for flag, scheme, text in given:
        if text is None:
            continue
        try:
            found.append(parse(text, scheme))
        except IdentifierError as err:
            problems.append(Problem(COMMAND_LINE, None, flag, str(err)))
    for scheme, first, other in conflicts(found):
        problems.append(Problem(COMMAND_LINE, None, None, f"two different {scheme} ids, {first} and {other}: which paper is it?"))
    if problems:
        raise UserError(summary(problems, "nothing was written."), problems)
    return found


def mapping(idents: list[Identifier]) -> dict:
    """The ``identifiers`` mapping of a record (see :func:`masrl.bib.identifiers.as_mapping`)."""
    return as_mapping(idents)


def author_from_flag(text: str) -> tuple[str, str | None]:
    """``(stored author, warning or None)`` for one ``--author``: ``Last, First`` is kept;
    ``First Last`` is stored ``Last, First`` with a warning naming that form; an
    organisation is written in braces (``{Kimi Team}``); ``others`` marks an incomplete list."""
    name = " ".join(text.split())
    if has_markup(name) and (why := unread_name_problem(name)):
        raise UserError(f"--author {why}")
    stored = stored_author(name)
    if stored == name:
        return name, None
    if has_markup(name):
        return stored, f"--author {name!r} is written in BibTeX's markup; it is stored as {stored!r}"
    return stored, (f"--author {name!r} is not written \"Last, First\"; it is stored as {stored!r} "
                    f"(an organisation goes in braces: '{{{name}}}')")


#: Inline math as pandoc reads ``$...$`` (its ``tex_math_dollars``): the opening ``$`` has a character that is not a blank
#: right after it, the closing one a character that is not a blank right before it and no digit right after it
#: (``The $k$-means``, ``CO$_2$``; never ``Costs $5 and $10``).
_MATH = re.compile(r"(?<![\\$])\$(?=\S)[^$]*(?<=\S)(?<!\\)\$(?![0-9$])")


def title_from_flag(text: str) -> tuple[str, str | None]:
    """``(stored title, warning or None)`` for ``--title``: a title holding TeX's commands, groups or inline math
    (``Scaling $\\alpha$-Nets with \\textbf{Bold} {CNN}s``, ``The $k$-means view``: :data:`_MATH`) is read as TeX, as an arXiv title is, and stored as the
    text it stands for (``Scaling α-Nets with Bold CNNs``), with a warning; any other is plain text, kept."""
    if not re.search(r"\\[A-Za-z`'^\"~=.]|\{[^{}]*\}", text) and not _MATH.search(text):  # a command, an accent, a group
        return text, None
    if stacked := stacked_accents(text):
        raise UserError(f"--title {stacked_problem(text, stacked)}")
    stored = " ".join(decode_latex(text).split())
    if not stored or stored == text:
        return text, None
    return stored, f"--title {text!r} is written in TeX; it is stored as the text {stored!r} (a record's title is plain text)"


def stored_authors(names, where: str) -> tuple[list[str], list[str]]:
    """``(stored authors, warnings)`` of an author list written by hand in a sheet or file (``where``:
    ``file:line``), each as :func:`author_from_flag` stores a ``--author``: a name written ``First Last``
    becomes ``Last, First`` (``Robert W. Heath Jr.`` -> ``Heath, Jr., Robert W.``), with a warning."""
    out, warnings = [], []
    for name in names:
        stored, warning = author_from_flag(name) if isinstance(name, str) else (name, None)
        out.append(stored)
        if warning:
            warnings.append(f"{where}: authors: {warning.removeprefix('--author ')}")
    return out, warnings


def pool_of(corpus) -> Pool:
    """The retained and excluded records of a corpus as a :class:`masrl.bib.matching.Pool`."""
    return Pool(known_records(corpus))


def scheme_order() -> tuple[str, ...]:
    """Order of identifier schemes (re-exported for the commands)."""
    return SCHEME_ORDER
