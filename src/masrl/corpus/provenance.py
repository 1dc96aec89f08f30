"""The ``tag_provenance`` text of a tag proposed by ``masrl suggest``, written and read in one place.

A tag set from a suggestion says so in the record's ``tag_provenance`` for that field:

* ``suggested (masrl suggest, neighbours c3, halo), confirmed``: a person chose the value
  among the suggestions (``masrl suggest KEY --apply FIELD=VALUE``);
* ``suggested (masrl suggest, neighbours c3, halo), not confirmed``: the best suggestion was
  written as a draft (``masrl suggest KEY --draft``) and no person has confirmed it yet.

The neighbours are the keys of the tagged records that were the evidence for the value. The
audit report counts both kinds apart from hand tags, and the catalogue site marks the
unconfirmed ones as suggestions.
"""

from __future__ import annotations

import re

#: How every suggested tag's provenance starts.
PREFIX = "suggested (masrl suggest"
CONFIRMED = "confirmed"
NOT_CONFIRMED = "not confirmed"

_PATTERN = re.compile(r"suggested \(masrl suggest(?:, neighbours (?P<keys>[^)]*))?\), (?P<state>confirmed|not confirmed)")


def suggested(neighbours: list[str], confirmed: bool) -> str:
    """The provenance of a suggested tag: ``suggested (masrl suggest, neighbours a, b), confirmed``
    (without ``, neighbours ...`` when ``neighbours`` is empty: a value a taxonomy rule forces)."""
    keys = f", neighbours {', '.join(neighbours)}" if neighbours else ""
    return f"{PREFIX}{keys}), {CONFIRMED if confirmed else NOT_CONFIRMED}"


def state(text: object) -> str | None:
    """``"confirmed"`` or ``"not confirmed"`` for the provenance of a suggested tag, None for
    any other provenance (a hand tag, an import, an audit)."""
    match = _PATTERN.fullmatch(str(text)) if isinstance(text, str) else None
    return match.group("state") if match else None


def drafted(records) -> list[str]:
    """``["key (field, field)", ...]`` sorted: each of ``records`` (retained records) that holds
    suggested tags no person has confirmed, with those fields (what ``masrl validate`` notes and
    ``masrl release`` refuses)."""
    return sorted(f"{r.get('key')} ({', '.join(fields)})" for r in records if (fields := unconfirmed_fields(r)))


def named(items: list[str], limit: int = 10) -> str:
    """``items`` joined by ``; ``, the first ``limit`` of them and then ``and N more``."""
    more = f"; and {len(items) - limit} more" if len(items) > limit else ""
    return "; ".join(items[:limit]) + more


def unconfirmed_fields(record: dict) -> list[str]:
    """The fields of ``record`` whose ``tag_provenance`` is a suggestion not yet confirmed, in
    the order of its ``tag_provenance``."""
    how = record.get("tag_provenance")
    return [f for f, text in how.items() if state(text) == NOT_CONFIRMED] if isinstance(how, dict) else []
