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


#: "et al." as a whole name, however written (``et al.``, ``et.al.``, ``etal``, inside out ``al., et``): BibTeX's
#: ``others``; and "et al." inside a name (``Ada Lovelace et.al.``, ``Lovelace,et al.``): not one person's name.
_ET_AL_WHOLE = re.compile(r"et\.?\s*al\.?|al\.?\s*,\s*et\.?", re.IGNORECASE)
ET_AL_INSIDE = re.compile(r"(?:^|[\s,~])et(?:\.[\s~]*|[\s~]+)al(?:\b|\.|$)|[\s,~]etal\.?$", re.IGNORECASE)


#: LaTeX that marks a footnote or an affiliation, never part of a name.
FOOTNOTE_MARK = re.compile(r"\\(?:thanks|footnote|footnotemark|textsuperscript|inst|IEEEauthorrefmark|orcidID|orcidlink|orcid"
                           r"|textdagger|textdaggerdbl|dag|ddag|S|P|star|dagger|ddagger|ast)\b|\$\^|\^\{?[0-9*†‡§]")


#: Generational suffixes, which end a name written "First Last" ("Robert W. Heath Jr.") or stand between its two
#: commas ("King, Jr., Martin Luther", BibTeX's "Last, Jr, First").
SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "2nd", "3rd", "4th"})


def is_suffix_form(name: str) -> bool:
    """Whether ``name`` is written ``Last, Jr., First`` (two commas around a generational suffix)."""
    parts = name.split(",")
    return len(parts) == 3 and parts[1].strip().lower() in SUFFIXES and all(p.strip() for p in parts)


def is_et_al(name: str) -> bool:
    """Whether ``name`` is "et al." written as a name, braced or with BibTeX's tie ``~`` (read as ``others``: the
    list goes on unnamed)."""
    text = " ".join(name.replace("~", " ").split())
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    return bool(_ET_AL_WHOLE.fullmatch(text)) or text == "others"


def placeholder_word(word: str) -> bool:
    """Whether one word of a name is a placeholder: ``TODO``, ``tbd``, ``XXX``, ``...``, ``?`` (a word written
    as a name is, ``Todo`` or ``Name``, is one: Yosuke Todo); a ``-`` or ``·`` between names is no placeholder."""
    if word.istitle() or word in ("-", "·", "‧", "–"):
        return False
    return placeholder_problem(word) is not None


def _ascii_marks(text: str) -> str:
    """``text`` with full-width punctuation as ASCII (``；`` is ``;``): what joins two names either way."""
    return text.translate(_FULL_WIDTH)


_FULL_WIDTH = str.maketrans("；＆，／｜（）［］", ";&,/|()[]")


def _top_level_commas(text: str) -> int:
    """The commas of ``text`` outside braces (BibTeX splits a name at those only)."""
    depth = commas = 0
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        commas += ch == "," and depth == 0
    return commas


def _outside_braces(text: str) -> list[str]:
    """The characters of ``text`` outside braces, in order (an organisation's name in braces is taken as written)."""
    depth, found = 0, []
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        found.append(ch if not depth and ch != "}" else " ")
    return found


def _top_level_and(text: str) -> bool:
    """Whether ``text`` holds the word ``and`` outside braces (BibTeX splits authors there)."""
    depth, words, word = 0, [], ""
    for ch in text + " ":
        depth += (ch == "{") - (ch == "}")
        if ch.isspace() or depth:
            if word:
                words.append(word)
            word = ""
        else:
            word += ch
    return any(w.lower() == "and" for w in words)


def author_problem(author: object) -> str | None:
    """Why ``author`` is no author name, or None: a placeholder (:func:`placeholder_problem`), a
    ``Last, First`` name whose last name has no letter (``", G"``, ``"{}, G"``, ``"--, X"``) or a comma
    with no name after it (``"Doe, "``, ``"Doe, , J"``), a name
    holding ``[``, ``]``, ``;``, ``&``, ``|``, ``/`` or ``et al.`` outside braces (several names written
    as text), a parenthesis outside braces (an affiliation or a note, ``Ada Lovelace (MIT)``), a name with
    more than two commas outside braces, which BibTeX refuses ("too many commas") and biber
    skips with its whole entry (a person is ``Last, First`` or ``Last, Jr, First``; an organisation
    with commas is written in braces, ``{Agents and Tools Lab, Inc.}``), unbalanced braces (``{Lovelace,
    Ada``, which would swallow the rest of a BibTeX entry), a name holding the word
    ``and`` outside braces, which BibTeX reads as two authors, a footnote or affiliation mark or an ORCID
    (``Curie, Marie†``, ``Smith, John\\thanks{MIT}``), a digit outside braces (a mark glued to a name,
    ``Smith1, John``, or a part of digits only, ``Doe, 3``: an organisation whose name holds one is braced,
    ``{Team 42}``), a ``=`` outside braces (biblatex's extended name format, ``family=Smith, given=John``), an
    ``@`` outside braces (an e-mail address, ``bin.wang@example.org``), or a name beginning with ``=``, ``+``, ``-`` or ``@`` (a spreadsheet formula, a handle)."""
    why = placeholder_problem(author)
    if why:
        return why
    text = " ".join(str(author).split())
    braced = text.startswith("{") and text.endswith("}")
    last = text if braced or "," not in text else text.split(",", 1)[0]
    if is_et_al(text):
        return f"{text!r} is 'et al.' written as a name: write others (it ends the list, once)"
    if braced and ET_AL_INSIDE.search(text[1:-1]):
        return f"{text!r} holds 'et al.': give the authors it stands for, or end the list with others"
    if not any(ch.isalpha() for ch in last):
        return f"{text!r} has no last name (write \"Last, First\")"
    if not braced and "," in text and placeholder_word(last.strip()):
        return f"{text!r} holds a placeholder ({last.strip()!r}) where the last name goes: write the real name"
    if not braced and (part := next((p.strip() for p in text.split(",")[1:] if p.strip() and placeholder_problem(p) and not p.strip().istitle()), None)):
        return f"{text!r} holds a placeholder ({part!r}) where a name goes: write the real name"
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth != 0:
        return f"{text!r} has unbalanced braces, which BibTeX cannot read: every '{{' is closed by a '}}'"
    outside = _ascii_marks("".join(_outside_braces(text)))  # full-width '；' or '＆' joins two names as ';' does
    if set(outside) & set("[];&|/") or ET_AL_INSIDE.search(outside):
        return (f"{text!r} is not one person's name: '[', ']', ';', '&', '|', '/' and 'et al.' write several names as "
                "text; give each person as an author of their own (an organisation whose name holds one goes in braces)")
    if "=" in outside and text.lstrip("{")[:1] not in _NO_NAME_START:  # a name beginning with '=' is named below
        return (f"{text!r} holds '=': biblatex's extended name format (family=..., given=...) or no name; write "
                "\"Last, First\" (masrl add --bibtex reads the extended format)")
    if "@" in outside and text.lstrip("{")[:1] != "@":  # a name beginning with '@' is named below
        return (f"{text!r} holds '@': an e-mail address is no name; write the person's name (an organisation whose "
                "name holds one goes in braces)")
    if set(outside) & set("()"):
        return (f"{text!r} holds a parenthesis: an affiliation or a note, such as '(MIT)', is no part of a person's "
                "name; write the name alone (an organisation whose name holds one goes in braces)")
    if any(not part.strip() for part in "".join(_outside_braces(text)).split(",")[1:]):
        return (f"{text!r} has a comma with no name after it, which BibTeX refuses: write \"Last, First\", "
                "\"Last, Jr, First\" or only the last name, without the comma")
    if _top_level_commas(text) > 2:
        return (f"{text!r} has more than two commas, which BibTeX cannot read as a name: write one person "
                "\"Last, First\" or \"Last, Jr, First\" (several people are several authors; an organisation "
                "with commas goes in braces, \"{Agents and Tools Lab, Inc.}\")")
    if _top_level_and(text):
        return (f"{text!r} holds the word 'and', which BibTeX reads as two authors: give each person as an "
                "author of their own ('and others' is others, an author of its own; an organisation whose name holds "
                "'and' goes in braces, \"{Agents and Tools Lab}\")")
    words = [] if braced else [w for w in re.split(r"[\s,]+", text) if w]
    if len(words) > 1 and (word := next((w for w in words if placeholder_word(w)), None)):
        return f"{text!r} holds a placeholder ({word!r}) where a name goes: write the real name"
    if not braced and (mark := FOOTNOTE_MARK.search(text) or re.search(r"[†‡§¶⋆*¹²³⁰⁴-⁹]|[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9Xx]", outside)):
        return f"{text!r} holds {mark.group()!r}, a footnote or affiliation mark or an ORCID: write the name alone"
    if text.lstrip("{")[:1] in _NO_NAME_START:
        return (f"{text!r} begins with {text.lstrip('{')[0]!r}, which no name does (a spreadsheet formula, a handle "
                "such as '@roe'): write the name alone")
    if not braced and (word := _digit_word(outside)):
        kind = "a footnote or affiliation mark glued to a name" if re.search(r"[^\W\d_]", word) else "digits where a name goes"
        return (f"{text!r} holds {word!r}, {kind}: write the name alone (a person's name holds no digit; an "
                "organisation whose name holds one goes in braces, '{Team 42}')")
    return None


#: First characters of no name: a spreadsheet formula's (``=Roe``, ``+``, ``-``) or a handle's (``@roe``).
_NO_NAME_START = frozenset("=+-@")


def _digit_word(outside: str) -> str | None:
    """The first word of a name's text outside braces that holds a digit, or None: an affiliation's mark glued to a
    name (``Smith1``, ``Doe2,3``) or a part of digits only (``Smith, 42``); Roman numerals are letters
    (``Louis XIV``), and so are the generational suffixes written with digits (``Fisher, 2nd, Carl``)."""
    return next((w for w in re.split(r"[\s,~]+", outside) if re.search(r"\d", w) and w.lower() not in SUFFIXES), None)


def authors_problem(authors: list) -> str | None:
    """Why a whole author list is wrong, or None: ``others`` (BibTeX's "and others", *et al.*) ends a
    list of named authors; alone it names nobody, and once is enough."""
    names = [a for a in authors if isinstance(a, str)]
    if names and all(a == "others" for a in names):
        return "names no author, only 'others' (et al.): give at least the first author"
    if "others" in names[:-1]:
        return "'others' (et al.) stands for the authors not named and ends the list; move it last (once)"
    return None
