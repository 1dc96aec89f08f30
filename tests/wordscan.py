"""Finding whole words in long texts, fast (the tests that look for one survey's names in another
survey's reports or in masrl's code)."""

from __future__ import annotations

import re

_WORD_CHAR = re.compile(r"[\w-]")


def standalone(words, text: str) -> list[str]:
    """Every occurrence of one of ``words`` in ``text`` standing alone (neither a word character
    nor ``-`` on either side), in order; at each position the first of ``words`` that matches.

    What ``finditer`` of ``(?<![\\w-])w1(?![\\w-])|(?<![\\w-])w2(?![\\w-])|...`` finds, searched
    without the look-behind so that the regular expression engine can skip to the words' first
    letters (twenty times as fast over a report tree)."""
    pattern = re.compile("(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])")
    found, at = [], 0
    while (match := pattern.search(text, at)) is not None:
        if match.start() and _WORD_CHAR.match(text, match.start() - 1):
            at = match.start() + 1  # no word standing alone starts here: try the next position
            continue
        found.append(match.group(0))
        at = match.end() if match.end() > match.start() else match.end() + 1
    return found
