"""ISBN and ISSN: whether a BibTeX block's ``isbn`` or ``issn`` is one, by its digits and check digit (ISO 2108,
ISO 3297), as biber checks them ("ISBN ... is invalid"), past a label (``ISBN``) and a qualifier (``(Print)``); a field
may hold several, separated by punctuation or by blanks alone."""

from __future__ import annotations

import re

#: Separators of several numbers in one field: ``978-0-262-03384-8, 978-0-262-33737-3`` (a book's print and online
#: ISBNs), ``;``, ``/``, ``|``, ``and``; numbers separated by blanks alone are told apart by their digits (:func:`_parts`).
_SEVERAL = re.compile(r"\s*[,;/|]\s*|\s+and\s+")


def isbn_problem(value: str) -> str | None:
    """Why ``value`` is no ISBN (or list of them), or None: an ISBN-13 (``978``/``979``, 13 digits) or ISBN-10
    (ten, the last possibly ``X``) with its check digit right; hyphens and blanks between digits are allowed."""
    bad = _first_bad(value, _is_isbn)
    if bad is not None:
        return (f"{value!r} is not an ISBN{bad}: 13 digits beginning 978 or 979, or 10 (the last may be X), with the right "
                "check digit; correct it or leave the field out")
    return None


def issn_problem(value: str) -> str | None:
    """Why ``value`` is no ISSN (or list of them), or None: ``NNNN-NNNC``, ``C`` a digit or ``X``, its check digit
    right."""
    bad = _first_bad(value, _is_issn)
    if bad is not None:
        return (f"{value!r} is not an ISSN{bad}: NNNN-NNNC (C a digit or X) with the right check digit; correct it or leave "
                "the field out")
    return None


#: What biber reads past in a number: its label (``ISBN 978-...``, ``ISSN: ...``, as exporters write it too: ``ISBN13:``,
#: ``ISBN 10:``, ``eISBN``, ``e-ISSN``, ``pISSN``, ``ISSN-L``) and a qualifier in parentheses or brackets
#: (``(hardcover)``, ``(Print)``, ``[print]``); dashes of any kind are hyphens.
_LABEL = re.compile(r"(?<![0-9A-Za-z])(?:[ep]-?)?IS[BS]N(?:[\s-]?(?:1[03]|L)(?=[\s:]))?\s*:?", re.IGNORECASE)
_QUALIFIER = re.compile(r"\s*(?:\([^()]*\)|\[[^\[\]]*\])")
_DASHES = str.maketrans({ch: "-" for ch in "\u2010\u2011\u2012\u2013\u2014\u2212"})


def _is_isbn(digits: str) -> bool:
    return _isbn13(digits) or _isbn10(digits)


def _is_issn(digits: str) -> bool:
    return len(digits) == 8 and digits[:7].isascii() and digits[:7].isdigit() and _check11(digits[:7], digits[7], 8) is True


def first_number(value: str, name: str) -> str | None:
    """The first number of an ``isbn`` or ``issn`` field (``name``) as it is written, without its label and qualifier
    (``978-0-262-03384-8`` of ``ISBN-13: 978-0-262-03384-8 (print), 978-0-262-33737-3 (ebook)``): what biber reads as the
    field, which it takes for one number; None when the field holds none."""
    valid = _is_isbn if name == "isbn" else _is_issn
    for words in _chunks(value):
        for end in range(1, min(len(words), 13) + 1):
            if valid(_digits(words[:end])):
                return re.sub(r"[\s-]+", "-", " ".join(words[:end])).strip("-")  # 978 - 0 - 262 ... as 978-0-262-...
    return None


def _digits(words: list[str]) -> str:
    """The characters of a number written in ``words``, its hyphens taken out."""
    return "".join(words).replace("-", "")


def _chunks(value: str) -> list[list[str]]:
    """The blank-separated words of each part of a field, past labels, qualifiers, separators and a catalogue's closing
    full stop (``978-0-262-03384-8.``)."""
    text = str(value).translate(_DASHES).replace("{", "").replace("}", "")  # BibTeX's braces (978{-}0...) are no characters
    return [c for c in ([w for w in (w.rstrip(".") for w in _LABEL.sub(" ", chunk).split()) if w]
                        for chunk in _SEVERAL.split(_QUALIFIER.sub(" ", text))) if c]


def _first_bad(value: str, valid) -> str | None:
    """None when every number of a field is ``valid`` (given its digits, hyphens and blanks taken out); else
    `` (its '…')`` naming the first part that is none, or nothing when that is the field's one number."""
    if not str(value).strip():
        return None  # an empty field (an exporter's isbn = {}) holds no number to check
    chunks = _chunks(value)
    if not chunks:
        return ""
    for words in chunks:
        done = _parts(words, valid)
        if done < len(words):
            rest = " ".join(words[done:])
            return "" if len(chunks) == 1 and done == 0 else f" (its {rest!r})"
    return None


def _parts(words: list[str], valid) -> int:
    """How many of ``words`` (a chunk's blank-separated words) the longest run of valid numbers from the first covers:
    a number may be written in several words (``978 0 262 03384 8``), and two numbers may follow each other with a blank
    between them (``9780262039246 0262039249``)."""
    reach = [False] * (len(words) + 1)
    reach[0] = True
    for start in range(len(words)):
        if not reach[start]:
            continue
        for end in range(start + 1, min(len(words), start + 13) + 1):
            if valid(_digits(words[start:end])):
                reach[end] = True
    return max(i for i, ok in enumerate(reach) if ok)


def _isbn13(digits: str) -> bool:
    if not (len(digits) == 13 and digits.isascii() and digits.isdigit() and digits[:3] in ("978", "979")):
        return False
    return sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10 == 0


def _isbn10(digits: str) -> bool:
    if not (len(digits) == 10 and digits[:9].isascii() and digits[:9].isdigit()):
        return False
    return _check11(digits[:9], digits[9], 10) is True


def _check11(body: str, check: str, top: int) -> bool | None:
    """Whether ``check`` is the mod-11 check digit of ``body`` (weights ``top`` down to 2); None for a check that is no
    digit nor X."""
    if not (check.isascii() and (check.isdigit() or check in "Xx")):
        return None
    total = sum(int(d) * (top - i) for i, d in enumerate(body)) + (10 if check in "Xx" else int(check))
    return total % 11 == 0
