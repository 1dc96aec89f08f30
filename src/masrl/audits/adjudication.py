"""The adjudication file of a round: every disagreement, to be resolved by a named person (pure)."""

from __future__ import annotations

from ..corpus.taxonomy import Taxonomy
from .analysis import round_results
from .fields import DECISION, INCLUDE
from .model import Audit

INSTRUCTIONS = (
    "For each disagreement, write the resolved value in 'resolved' (an allowed value of the field, see "
    "sheet/allowed-values.csv), your name in 'by', the date (YYYY-MM-DD) and, if useful, a note. Leave 'resolved' "
    "empty while it is open. Do not change item, record, field or values. For an exclusion resolved as include, also "
    "give the paper's 'authors' (a list, 'Last, First'), 'year' and 'venue': masrl audit apply creates its retained "
    "record from them. Then run: masrl audit apply <audit id> (it shows the edits; add --yes to write them)."
)


def adjudication_document(audit: Audit, round_no: int, tax: Taxonomy) -> dict:
    """The mapping of ``adjudication-round-<n>.yaml``: one open entry per disagreement of the round.

    Raises:
        ValueError: if the round has no imported sheet.
    """
    rounds = {r.round: r for r in round_results(audit, tax)}
    if round_no not in rounds:
        raise ValueError(f"round {round_no} has no imported sheet")
    kinds = {i.item: i.kind for i in audit.items}
    entries = []
    for field in rounds[round_no].fields:
        for d in field.disagreements:
            entry = {"item": d.item, "record": d.record, "field": d.field, "values": dict(d.values),
                     "resolved": None, "by": None, "date": None, "note": None}
            if d.field == DECISION and kinds[d.item] == "excluded" and INCLUDE in d.values.values():
                entry.update(authors=None, year=None, venue=None)
            entries.append(entry)
    entries.sort(key=lambda e: (e["item"], audit.fields.index(e["field"])))
    return {"audit_id": audit.audit_id, "round": round_no, "resolutions": entries}


def header_comment() -> bytes:
    """:data:`INSTRUCTIONS` as a YAML comment block, to put on top of a new adjudication file."""
    import textwrap

    return "".join(f"# {line}\n" for line in textwrap.wrap(INSTRUCTIONS, 98)).encode("utf-8")
