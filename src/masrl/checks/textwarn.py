"""Warnings about text that YAML read differently from what was meant.

An unquoted value ends where `` #`` starts a comment, so
``title: Agents #1 at scale`` is read as ``Agents``. A comment after a
vocabulary code or a number is normal; after free text (a title, an author, a
claim's statement) it usually means the value was cut. These are warnings,
not errors: the corpus stays valid, and a deliberate comment can be moved to
its own line.
"""

from __future__ import annotations

import json

from ..core.errors import Problem, sort_key
from ..corpus.load import AUDITS, CLAIMS, Corpus
from ..corpus.records import text_fields
from ..corpus.taxonomy import Taxonomy


def _dotted(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _value(doc_value, path: tuple):
    for part in path:
        doc_value = doc_value[part]
    return doc_value


def _is_text(file: str, path: tuple, controlled: set[str], texts: frozenset[str]) -> bool:
    names = [p for p in path if isinstance(p, str)]
    if not names:
        return False
    if names[0] == "bibtex" and len(names) > 1:
        return True
    if names[-1] not in texts:
        return False
    return file in (CLAIMS,) or file.startswith(AUDITS) or names[-1] not in controlled


def cut_text_warnings(corpus: Corpus) -> list[Problem]:
    """One warning per free-text value of a record, claim or audit that is unquoted
    and followed by a `` #`` comment on its line, naming the fix (quote it)."""
    tax = Taxonomy(corpus.taxonomy)
    controlled, texts = set(tax.fields), text_fields(tax)
    out = []
    for file, doc in sorted(corpus.docs.items()):
        for path, comment in doc.comments.items():
            if not _is_text(file, path, controlled, texts):
                continue
            try:
                value = _value(doc.value, path)
            except (KeyError, IndexError, TypeError):
                continue
            if not isinstance(value, str):
                continue
            whole = f"{value} {comment}"
            key = path[-1] if isinstance(path[-1], str) else "-"
            fix = f"{key}: {json.dumps(whole, ensure_ascii=False)}" if isinstance(path[-1], str) else f"- {json.dumps(whole, ensure_ascii=False)}"
            out.append(Problem(file, doc.line(path), _dotted(path),
                               f"warning: YAML reads {comment!r} as a comment, so the value is {value!r}; if the '#' "
                               f"belongs to the text, quote the value: {fix}"))
    return sorted(out, key=sort_key)
