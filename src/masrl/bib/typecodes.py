"""BibTeX's field ``type`` (a thesis's or a report's kind) and biblatex's codes for it.

biblatex reads the field ``type`` as a localisation key where it is one (the biblatex manual,
field ``type``): ``type = {mathesis}`` prints "Master's thesis", ``type = {resreport}`` "research
report". BibTeX's styles print the field as it is written ("mathesis, University of Oslo"). So a
record keeps the field as an imported .bib wrote it (``type_field``), and the export reads a code:

* a code that names a kind of thesis decides a thesis's entry type: ``mathesis`` -> ``@mastersthesis``,
  ``phdthesis`` -> ``@phdthesis``;
* a code the exported entry type already says is dropped (``phdthesis`` of a ``@phdthesis``,
  ``techreport`` of a ``@techreport``);
* any other code is written as its English label (``resreport`` -> "Research report",
  ``candthesis`` -> "Candidate thesis"); a text that is no code, as it is.
"""

from __future__ import annotations

#: biblatex's codes for the field ``type`` and their labels (biblatex's English strings, capitalised as a
#: BibTeX style prints the field: at the start of a sentence part).
LABELS = {"mathesis": "Master's thesis", "phdthesis": "PhD thesis", "candthesis": "Candidate thesis",
          "techreport": "Technical report", "resreport": "Research report", "software": "Computer software",
          "datacd": "Data CD", "audiocd": "Audio CD"}

#: The BibTeX entry type that says a code's kind itself, with no field ``type``.
SAID_BY = {"mathesis": "mastersthesis", "phdthesis": "phdthesis", "techreport": "techreport"}

#: Entry types of a thesis (BibTeX's and biblatex's).
THESES = frozenset({"thesis", "phdthesis", "mastersthesis"})


def code(value: object) -> str | None:
    """The biblatex code ``value`` is (``mathesis``, `` MAthesis ``), or None for any other text."""
    text = str(value or "").strip().lower()
    return text if text in LABELS else None


def thesis_type(block_type: str, value: object) -> str:
    """The BibTeX entry type of a thesis (``@thesis``, ``@phdthesis`` or ``@mastersthesis``) whose field
    ``type`` is ``value``: a code of a kind of thesis decides it (``mathesis`` -> ``mastersthesis``), else
    a text saying master's (``Master's thesis``) -> ``mastersthesis``; else the block's own (``@thesis``
    -> ``phdthesis``, BibTeX's thesis that names no kind). Any other entry type as it is."""
    if block_type not in THESES:
        return block_type
    said = code(value)
    if said in ("mathesis", "phdthesis"):
        return SAID_BY[said]
    if said is None and "master" in str(value or "").lower():
        return "mastersthesis"
    return "phdthesis" if block_type == "thesis" else block_type


def written(value: object, entry_type: str) -> str | None:
    """What an entry of ``entry_type`` writes for the field ``type`` ``value``: None where the entry type
    says the code already (``phdthesis`` of a ``@phdthesis``); a code's label; any other text as it is."""
    said = code(value)
    if said is None:
        return str(value)
    return None if SAID_BY.get(said) == entry_type else LABELS[said]
