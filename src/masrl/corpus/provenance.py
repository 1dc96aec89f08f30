"""The ``tag_provenance`` text of a tag proposed by ``masrl suggest``, written and read in one place.

A tag set from a suggestion says so in the record's ``tag_provenance`` for that field:

* ``suggested (masrl suggest, neighbours c3, halo), confirmed``: a person chose the value
  among the suggestions (``masrl suggest KEY --apply FIELD=VALUE``);
* ``suggested (masrl suggest, neighbours c3, halo), not confirmed``: the best suggestion was
  written as a draft (``masrl suggest KEY --draft``) and no person has confirmed it yet;
* ``suggested (masrl suggest, neighbours c3, halo; with FIELD VALUE, ...), confirmed``: a value
  suggested for a record assumed to hold those values of other fields (a set as ``[A, B]``).

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

_PATTERN = re.compile(r"suggested \(masrl suggest(?:, neighbours (?P<keys>[^);]*))?(?:; with (?P<with>[^)]*))?\), "
                      r"(?P<state>confirmed|not confirmed)")
#: One assumption of a ``with`` part: a field name and its value (a code, or a set as ``[A, B]``).
_ASSUMED = re.compile(r"(?P<field>\w+) (?P<value>\[[^\]]*\]|[^,\[]+?)(?:, |$)")


def shown(value) -> str:
    """A value as provenance texts write it: a code, or a set as ``[A, B]``."""
    return "[" + ", ".join(map(str, value)) + "]" if isinstance(value, (list, tuple)) else str(value)


def suggested(neighbours: list[str], confirmed: bool, given: dict | None = None) -> str:
    """The provenance of a suggested tag: ``suggested (masrl suggest, neighbours a, b), confirmed``
    (without ``, neighbours ...`` when ``neighbours`` is empty: a value a taxonomy rule forces), with
    ``; with FIELD VALUE, ...`` for the other fields' values the suggestion assumed (``given``)."""
    keys = f", neighbours {', '.join(neighbours)}" if neighbours else ""
    assumed = f"; with {', '.join(f'{k} {shown(v)}' for k, v in given.items())}" if given else ""
    return f"{PREFIX}{keys}{assumed}), {CONFIRMED if confirmed else NOT_CONFIRMED}"


def assumed(text: object) -> dict[str, str]:
    """``{field: value as written}`` that the suggestion of a provenance ``text`` assumed ({} for
    none, or for a provenance that is no suggestion)."""
    match = _PATTERN.fullmatch(str(text)) if isinstance(text, str) else None
    if not match or not match.group("with"):
        return {}
    return {m.group("field"): m.group("value") for m in _ASSUMED.finditer(match.group("with"))}


def state(text: object) -> str | None:
    """``"confirmed"`` or ``"not confirmed"`` for the provenance of a suggested tag, None for
    any other provenance (a hand tag, an import, an audit)."""
    match = _PATTERN.fullmatch(str(text)) if isinstance(text, str) else None
    return match.group("state") if match else None


def drafted_fields(records) -> list[tuple[str, list[str]]]:
    """``[(key, [field, ...]), ...]`` by key: each of ``records`` (retained records) that holds
    suggested tags no person has confirmed, with those fields."""
    return sorted(((str(r.get("key")), fields) for r in records if (fields := unconfirmed_fields(r))), key=lambda kf: kf[0])


def drafted(records) -> list[str]:
    """``["key (field, field)", ...]`` (:func:`drafted_fields`), as ``masrl validate`` notes them
    and ``masrl release`` refuses them."""
    return [f"{key} ({', '.join(fields)})" for key, fields in drafted_fields(records)]


def named(items: list[str], limit: int = 10) -> str:
    """``items`` joined by ``; ``, the first ``limit`` of them and then ``and N more``."""
    more = f"; and {len(items) - limit} more" if len(items) > limit else ""
    return "; ".join(items[:limit]) + more


def unconfirmed_fields(record: dict) -> list[str]:
    """The fields of ``record`` whose ``tag_provenance`` is a suggestion not yet confirmed, in
    the order of its ``tag_provenance``."""
    how = record.get("tag_provenance")
    return [f for f, text in how.items() if state(text) == NOT_CONFIRMED] if isinstance(how, dict) else []
