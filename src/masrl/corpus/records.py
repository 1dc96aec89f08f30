"""Pure helpers about records: field order, identifiers, titles, keys.

A *retained record* is one file ``corpus/papers/<key>.yaml``; an *excluded
record* is one file ``exclusions/<record_id>.yaml``. Both are plain mappings
here; the vocabulary lives in ``corpus/taxonomy.yaml``.
"""

from __future__ import annotations

import itertools
import re
import string
import unicodedata

from ..bib.identifiers import SCHEME_ORDER  # noqa: F401  (re-exported: the order of a record's identifiers)
from ..core.fold import ascii_slug  # noqa: F401  (re-exported)

#: masrl's own fields of a retained record before the survey's fields, and after them.
RETAINED_BEFORE = ("key", "title", "authors", "first_author", "affiliation", "year", "venue", "url", "identifiers")
RETAINED_AFTER = ("one_liner", "notes", "date_added", "tag_provenance", "forced", "former_record_id", "former_exclusion",
                  "bibtex_key", "bibtex", "bibtex_differs", "provenance")
#: The names the catalogue site's address (the ``#`` fragment its script reads and writes) gives its own
#: state: the search text, the chosen records, the sort, a paper shown, the release filter. A filter on a field
#: of retained records named one of them would be read as that state, so no such field may take one.
SITE_ADDRESS_KEYS = ("q", "key", "sort", "dir", "paper", "release")
#: masrl's own fields of an excluded record.
EXCLUDED_OWN = ("record_id", "screening_label", "authors", "year", "identifiers", "url", "date_screened", "date_added",
                "exclusion_reason", "forced", "if_retained", "former_key", "former_record", "former_file", "tag_provenance", "provenance")


def retained_order(tax) -> tuple[str, ...]:
    """Field order of a retained record file: the taxonomy's ``record_order.retained``, else masrl's
    own fields, the abstract's field, then the survey's controlled and free fields (taxonomy order)."""
    declared = tax.declared("record_order").get("retained")
    if isinstance(declared, list):
        return tuple(str(f) for f in declared)
    abstract = tax.abstract_field
    return (*RETAINED_BEFORE, abstract, *[f.name for f in tax.of("retained")],
            *[f.name for f in tax.free_of("retained") if f.name != abstract], *RETAINED_AFTER)


def excluded_order(tax) -> tuple[str, ...]:
    """Field order of an excluded record file: the taxonomy's ``record_order.excluded``, else masrl's
    own fields with the survey's fields (taxonomy order) after ``url``."""
    declared = tax.declared("record_order").get("excluded")
    if isinstance(declared, list):
        return tuple(str(f) for f in declared)
    head, tail = EXCLUDED_OWN[:6], EXCLUDED_OWN[6:]
    return (*head, *[f.name for f in tax.of("excluded")], *[f.name for f in tax.free_of("excluded")], *tail)


#: masrl's free-text fields of records, claims and audits (not vocabulary codes, identifiers or keys);
#: the survey's own free-text fields are declared in its taxonomy (``free_fields``).
TEXT_FIELDS = frozenset({
    "title", "screening_label", "authors", "first_author", "affiliation", "venue", "one_liner", "notes",
    "exclusion_reason", "forced", "statement", "evidence_boundary", "label",
    "description", "agreement_note", "annotator_note",
})


def text_fields(tax) -> frozenset[str]:
    """Every name under which a record, claim or audit holds free text: masrl's own
    (:data:`TEXT_FIELDS`) and the survey's free fields' (``free_fields`` of the taxonomy)."""
    return TEXT_FIELDS | {k for f in tax.free_fields.values() for k in f.text_keys}

#: Placeholder that ``masrl add`` writes into every controlled field.
UNTAGGED = "untagged"


def ordered(record: dict, order: tuple[str, ...]) -> dict:
    """Return ``record`` with its keys in ``order`` (unknown keys after, in their order)."""
    out = {k: record[k] for k in order if k in record}
    out.update((k, v) for k, v in record.items() if k not in out)
    return out


def make_key(first_author: str, year: int, taken: set[str]) -> str:
    """The record key scheme of ``masrl add``: ``<surname><year>``, then ``b``, ``c``, ... if taken.

    ``first_author`` is in BibTeX ``Last, First`` form (a name without a comma,
    or an organisation in braces, is used whole: ``Kimi Team`` -> ``kimiteam``). Example: ``Liu, Shuo`` and
    2025 give ``liu2025``, or ``liu2025b`` when ``liu2025`` exists, ... ``liu2025z``,
    then ``liu2025aa``.
    """
    braced = first_author.startswith("{") and first_author.endswith("}")
    surname = first_author.split(",", 1)[0] if "," in first_author and not braced else first_author
    return free_key((ascii_slug(surname)[:40] or "anon") + str(year), taken)  # a key names a file: keep it short


def free_key(base: str, taken: set[str]) -> str:
    """``base`` if it is not in ``taken``, else ``base`` plus the first free suffix ``b`` ... ``z``, ``aa`` ... ``zz``,
    ``aaa`` ...: a key never runs out (an export of anonymous submissions has thousands of one name and year)."""
    if base not in taken:
        return base
    for size in itertools.count(1):
        for letters in itertools.product(string.ascii_lowercase, repeat=size):
            suffix = "".join(letters)
            if suffix != "a" and base + suffix not in taken:
                return base + suffix
    raise AssertionError("unreachable")  # pragma: no cover
