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


#: German umlauts as ASCII writes them (Mueller for Müller): folded to the plain vowel, as ascii_slug folds ü.
_UMLAUT_DIGRAPHS = re.compile(r"(?<=[a-z])(ae|oe|ue)")


@lru_cache(maxsize=65536)
def name_word(word: str) -> str:
    """One word of a person's name as two spellings of it compare equal: :func:`ascii_slug`, and ``ae``,
    ``oe``, ``ue`` after a letter as the vowel alone (``Müller``, ``Mueller`` and ``Muller`` are ``muller``;
    ``Søgaard`` and ``Sogaard`` are ``sogaard``)."""
    return _UMLAUT_DIGRAPHS.sub(lambda m: m.group(1)[0], ascii_slug(word))
