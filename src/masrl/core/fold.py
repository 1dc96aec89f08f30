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
    if not folded.isascii():
        folded = anyascii(_GREEK.sub(lambda m: _greek(m.group()), folded))
    return re.sub(r"[^a-z0-9]+", "", folded.lower())


#: Apostrophes and the letters that stand for one (Hawaiʻi, O’Brien): no letter of a word.
_APOSTROPHES = re.compile("['\u2018\u2019\u02bb\u02bc`]")


def ascii_words(text: str) -> str:
    """``text`` as lower-case ASCII words, each spelled as masrl's keys spell it (:func:`ascii_slug`: ``Əliyev`` is
    ``eliyev``, ``Hawaiʻi`` ``hawaii``, ``Иванов`` ``ivanov``): what a search typed in ASCII meets."""
    return " ".join(filter(None, (ascii_slug(word) for word in _APOSTROPHES.sub("", text).split())))


#: Greek letter pairs that Latin letters write as one sound (Παπαδόπουλος is Papadopoulos, Παυλίδης Pavlidis, Ευαγγέλου
#: Evangelou, Μπακογιάννης Bakogiannis, Ντόκος Dokos), not letter by letter (``oy``, ``ay``, ``mp``, ``nt``).
_GREEK = re.compile(r"(?i:ου|αυ|ευ|ηυ|γγ)|(?<![^\W\d_])(?i:μπ|ντ|γκ)")
_GREEK_LATIN = {"ου": "ou", "αυ": "av", "ευ": "ev", "ηυ": "iv", "γγ": "ng", "μπ": "b", "ντ": "d", "γκ": "g"}


def _greek(pair: str) -> str:
    latin = _GREEK_LATIN[pair.lower()]
    return latin.upper() if pair.isupper() else latin.capitalize() if pair[0].isupper() else latin


#: Umlauts, and Nordic letters, as ASCII also writes them (Müller is Mueller as much as Muller, Ødegaard Oedegaard,
#: Åström Aastrom as much as Astrom).
_SPELLED = (str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}),
            str.maketrans({"ø": "oe", "Ø": "Oe", "å": "aa", "Å": "Aa"}))


@lru_cache(maxsize=65536)
def name_word_forms(word: str) -> tuple[str, ...]:
    """Every way ASCII writes one word of a name: :func:`ascii_slug` (``Søgaard`` is ``sogaard``), and with its
    umlauts, its Nordic letters or both spelled out (``Müller`` gives ``muller`` and ``mueller``, so that it meets
    both; ``Åström`` ``astrom``, ``aastrom``, ``astroem`` and ``aastroem``; ``Xue`` stays ``xue``, never ``Xu``)."""
    umlauts, nordic = _SPELLED
    forms = [ascii_slug(w) for w in (word, word.translate(umlauts), word.translate(nordic), word.translate(umlauts).translate(nordic))]
    return tuple(dict.fromkeys(forms))
