"""The "did you mean" hint of every message that names a value outside what is allowed."""

from __future__ import annotations

import difflib
import re
from typing import Any, Iterable, Mapping


def did_you_mean(value: Any, allowed: Iterable[str] | Mapping[str, str]) -> str:
    """`` (did you mean 'X'?)`` for the allowed value closest to ``value`` (the same one
    in another case first; then, where ``allowed`` maps each code to its label, the code whose label
    ``value`` is, whatever its case, blanks, hyphens and underscores; else difflib's closest at ratio
    >= 0.6), or ``""`` when none is close or ``value`` is allowed itself."""
    labels = allowed if isinstance(allowed, Mapping) else {}
    allowed = [str(a) for a in allowed]
    text = str(value)
    if text in allowed:
        return ""  # nothing to correct (the caller refuses the value for another reason)
    lowered = {a.lower(): a for a in allowed}
    if text.lower() in lowered:
        return f" (did you mean '{lowered[text.lower()]}'?)"
    plain = {_plain(a): a for a in allowed}
    if labels and _plain(text) in plain:  # x-y for x_y: the code itself, before a label "X y"
        return f" (did you mean '{plain[_plain(text)]}'?)"
    by_label = {_plain(label): (str(code), str(label)) for code, label in labels.items() if str(label) != str(code)}
    if _plain(text) in by_label:
        code, label = by_label[_plain(text)]
        return f" (did you mean '{code}'? '{label}' is its label: write the code)"
    close = difflib.get_close_matches(text, allowed, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def hint_or_list(value: Any, allowed: Iterable[str], noun: str, none: str = "", shown: int = 10) -> str:
    """:func:`did_you_mean` when an allowed value is close, else ``; <noun>: a, b, c`` (the first
    ``shown``, then how many more), or ``none`` (``; start one with ...``) when nothing is allowed
    yet: a name that names nothing is always answered with what it could have been."""
    allowed = [str(a) for a in allowed]
    close = did_you_mean(value, allowed)
    if close:
        return close
    if not allowed:
        return none or f"; there are no {noun} yet"
    more = f" and {len(allowed) - shown} more" if len(allowed) > shown else ""
    return f"; {noun}: {', '.join(allowed[:shown])}{more}"


def _plain(text: str) -> str:
    return " ".join(re.split(r"[\s_-]+", str(text).casefold())).strip()
