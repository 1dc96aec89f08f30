"""ISBN and ISSN: whether a BibTeX block's ``isbn`` or ``issn`` is one, by its digits and check digit (ISO 2108,
ISO 3297), as biber checks them ("ISBN ... is invalid"), past a label (``ISBN``) and a qualifier (``(Print)``)."""

from __future__ import annotations

import re

#: Several numbers in one field: ``978-0-262-03384-8, 978-0-262-33737-3`` (a book's print and online ISBNs).
_SEVERAL = re.compile(r"\s*[,;]\s*|\s+and\s+|\s+(?=(?:97[89]|[0-9]{4}-))")


def isbn_problem(value: str) -> str | None:
    """Why ``value`` is no ISBN (or list of them), or None: an ISBN-13 (``978``/``979``, 13 digits) or ISBN-10
    (ten, the last possibly ``X``) with its check digit right; hyphens and blanks between digits are allowed."""
    numbers = _numbers(value)
    for one in numbers:
        digits = re.sub(r"[\s-]", "", one)
        if not (_isbn13(digits) or _isbn10(digits)):
            return (f"{value!r} is not an ISBN{_which(numbers, one)}: 13 digits beginning 978 or 979, or 10 (the last may "
                    "be X), with the right check digit; correct it or leave the field out")
    return None


def issn_problem(value: str) -> str | None:
    """Why ``value`` is no ISSN (or list of them), or None: ``NNNN-NNNC``, ``C`` a digit or ``X``, its check digit
    right."""
    numbers = _numbers(value)
    for one in numbers:
        match = re.fullmatch(r"([0-9]{4})[\s-]?([0-9]{3})([0-9Xx])", one.strip())
        digits = match.group(1) + match.group(2) if match else ""
        if not match or _check11(digits, match.group(3), 8) is False:
            return (f"{value!r} is not an ISSN{_which(numbers, one)}: NNNN-NNNC (C a digit or X) with the right check digit; "
                    "correct it or leave the field out")
    return None


#: What biber reads past in a number: its label (``ISBN 978-...``, ``ISSN: ...``) and a qualifier in parentheses
#: (``(hardcover)``, ``(Print)``); dashes of any kind are hyphens.
_LABEL = re.compile(r"^\s*IS[BS]N(?:-1[03])?\s*:?\s*", re.IGNORECASE)
_QUALIFIER = re.compile(r"\s*\([^()]*\)")
_DASHES = str.maketrans({ch: "-" for ch in "\u2010\u2011\u2012\u2013\u2014\u2212"})


def _numbers(value: str) -> list[str]:
    """The numbers of a field, each without its label and qualifier."""
    text = _QUALIFIER.sub("", str(value).translate(_DASHES)).strip()
    return [_LABEL.sub("", one) for one in _SEVERAL.split(text) if _LABEL.sub("", one).strip()]


def _which(numbers: list[str], one: str) -> str:
    """`` (its '…')`` naming the number of a list that is none; nothing for a field of one."""
    return f" (its {one.strip()!r})" if len(numbers) > 1 else ""


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
