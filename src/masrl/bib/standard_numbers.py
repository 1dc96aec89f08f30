"""ISBN and ISSN: whether a BibTeX block's ``isbn`` or ``issn`` is one, by its form and check digit (ISO 2108,
ISO 3297), as biber checks them ("ISBN ... is invalid")."""

from __future__ import annotations

import re

#: Several numbers in one field: ``978-0-262-03384-8, 978-0-262-33737-3`` (a book's print and online ISBNs).
_SEVERAL = re.compile(r"\s*[,;]\s*|\s+and\s+|\s+(?=(?:97[89]|[0-9]{4}-))")


def isbn_problem(value: str) -> str | None:
    """Why ``value`` is no ISBN (or list of them), or None: an ISBN-13 (``978``/``979``, 13 digits) or ISBN-10
    (ten, the last possibly ``X``) with its check digit right; hyphens and blanks between digits are allowed."""
    for one in _numbers(value):
        digits = re.sub(r"[\s-]", "", one)
        if not (_isbn13(digits) or _isbn10(digits)):
            return (f"{one!r} is not an ISBN: 13 digits beginning 978 or 979, or 10 (the last may be X), with the right "
                    "check digit; correct it or leave the field out")
    return None


def issn_problem(value: str) -> str | None:
    """Why ``value`` is no ISSN (or list of them), or None: ``NNNN-NNNC``, ``C`` a digit or ``X``, its check digit
    right."""
    for one in _numbers(value):
        match = re.fullmatch(r"([0-9]{4})-?([0-9]{3})([0-9Xx])", one.strip())
        digits = match.group(1) + match.group(2) if match else ""
        if not match or _check11(digits, match.group(3), 8) is False:
            return f"{one!r} is not an ISSN: NNNN-NNNC (C a digit or X) with the right check digit; correct it or leave the field out"
    return None


def _numbers(value: str) -> list[str]:
    return [one for one in _SEVERAL.split(str(value).strip()) if one.strip()]


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
