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
        folded = anyascii(_GREEK_OU.sub(lambda m: _OU[m.group()], folded))
    return re.sub(r"[^a-z0-9]+", "", folded.lower())


#: Greek ``ου`` is ``ou`` in Latin letters (Παπαδόπουλος is Papadopoulos), not letter by letter ``oy``.
_GREEK_OU = re.compile("[οΟ][υΥ]")
_OU = {"ου": "ou", "Ου": "Ou", "ΟΥ": "OU", "οΥ": "oU"}


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
