"""Text folded to lower-case ASCII: a record key's surname, and the name words two records' authors are compared by."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: Latin letters that Unicode does not decompose into an ASCII letter and a mark.
_LETTERS = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
                          "đ": "d", "Đ": "D", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D", "ı": "i", "ħ": "h", "Ħ": "H"})


def ascii_slug(text: str) -> str:
    """Lower-case ASCII letters and digits of ``text`` (accents folded, ``ł ø ß æ œ đ þ`` spelled
    out, other scripts transliterated by anyascii): ``Müller`` -> ``muller``, ``Łukasz`` ->
    ``lukasz``, ``Straße`` -> ``strasse``, ``Иванов`` -> ``ivanov``, ``王`` -> ``wang``."""
    from anyascii import anyascii

    text = unicodedata.normalize("NFKD", text.translate(_LETTERS))
    folded = "".join(ch for ch in text if not unicodedata.combining(ch))
    return re.sub(r"[^a-z0-9]+", "", (folded if folded.isascii() else anyascii(folded)).lower())


#: German umlauts as ASCII writes them (Müller is Mueller as much as Muller).
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


@lru_cache(maxsize=65536)
def name_word_forms(word: str) -> tuple[str, ...]:
    """Every way ASCII writes one word of a name: :func:`ascii_slug` (``Søgaard`` is ``sogaard``), and with an
    umlaut spelled out (``Müller`` gives ``muller`` and ``mueller``, so that it meets both; ``Xue`` stays ``xue``,
    never ``Xu``)."""
    spelled = ascii_slug(word.translate(_UMLAUTS))
    plain = ascii_slug(word)
    return (plain,) if spelled == plain else (plain, spelled)
