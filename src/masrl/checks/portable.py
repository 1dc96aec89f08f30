"""Rules of text and names that every reader and every system can hold.

* The characters of every free-text field (records, the vocabulary, the claim ledger, the
  releases, the audits) follow one policy, :mod:`masrl.core.text`: no control, bidirectional
  or zero-width character, no byte that was not UTF-8. Line breaks in single-line fields are
  rule D002's (:func:`masrl.checks.records.single_line_text`); this rule names the rest.
* Names that become files or folders (record keys, release names, audit ids) follow
  :mod:`masrl.core.names`: at most 64 characters, no Windows device name.

Each public function is one rule of :data:`masrl.checks.validate.RULES`.
"""

from __future__ import annotations

from typing import Any

from ..core.names import file_name_problem
from ..core.text import describe, may_be_unsafe, text_problem, unsafe_characters
from ..corpus.load import AUDITS, CLAIMS, TAXONOMY
from ..corpus.releases import RELEASES, releases_from
from .records import MULTILINE

#: Characters that rule D002 reports in single-line fields (line breaks, C0 controls, DEL).
_LINE_RULE = frozenset(chr(c) for c in range(32)) | {"\x7f", "\u2028", "\u2029", "\x85"}


def _walk(c, file: str, value: Any, path: tuple, multiline: bool | None, keys: bool = False) -> None:
    """Every string under ``value``; ``multiline`` None: by field name (:data:`MULTILINE`), and
    without what D002 reports in single-line fields; ``keys``: the mappings' keys too (the taxonomy's
    names and codes, which no schema pattern holds to a form)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if keys and isinstance(k, str) and may_be_unsafe(k) and (why := text_problem(k)):
                c.add(file, path + (k,), f"the name {k!r} {why}")  # a value's code, a field's name: no hidden character
            _walk(c, file, v, path + (k,), multiline, keys)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk(c, file, v, path + (i,), multiline, keys)
    elif isinstance(value, str) and may_be_unsafe(value):
        own = bool(set(path) & MULTILINE) if multiline is None else multiline
        bad = unsafe_characters(value, own)
        if multiline is None and not own:
            bad = [(ch, kind) for ch, kind in bad if ch not in _LINE_RULE]
        if bad:
            kept = "".join(ch for ch, _ in bad)
            why = text_problem(kept, own) or ", ".join(describe(ch) for ch in kept)
            c.add(file, path, f"{value!r} {why}")


def record_text(c, file: str, rec: dict, kind: str) -> None:
    """Every text of a record follows the character policy (:mod:`masrl.core.text`)."""
    _walk(c, file, rec, (), None)


#: Parts of the taxonomy whose texts are one line each: the vocabulary itself (labels, definitions,
#: sources of fields, values and identifier schemes). The declarations' texts (intros, sentences,
#: the BibTeX header) are paragraphs: line breaks allowed there.
_ONE_LINE_PARTS = frozenset({"fields", "free_fields", "identifier_schemes"})


def taxonomy_text(c) -> None:
    """Every text of the taxonomy follows the character policy: the vocabulary's labels,
    definitions and sources one line each, the declarations' paragraphs with line breaks."""
    doc = c.corpus.taxonomy
    for key, value in doc.items() if isinstance(doc, dict) else []:
        _walk(c, TAXONOMY, value, (key,), key not in _ONE_LINE_PARTS, keys=True)


def claims_text(c) -> None:
    """Every text of the claim ledger follows the character policy (line breaks allowed)."""
    _walk(c, CLAIMS, c.corpus.claims, ("claims",), True)


def releases_text(c) -> None:
    """The titles, sources and errata of ``corpus/releases.yaml`` follow the character policy."""
    if isinstance(c.corpus.releases, dict):
        _walk(c, RELEASES, c.corpus.releases, (), False)


def audits_text(c) -> None:
    """The audits' text (descriptions, instructions, readers' notes) follows the character policy
    (line breaks allowed)."""
    for file, value in sorted({**c.corpus.audits, **c.corpus.audit_files}.items()):
        _walk(c, file, value, (), True)


def record_names(c, file: str, rec: dict, kind: str) -> None:
    """A retained record's key names its file: a portable file name (:mod:`masrl.core.names`)."""
    key = rec.get("key")
    if isinstance(key, str) and (why := file_name_problem(key)):
        c.add(file, ("key",), f"{key[:80]!r}{'...' if len(key) > 80 else ''}: {why}" if why.startswith("is ") else why)


def release_names(c) -> None:
    """A release's name names its snapshot and its report folder: a portable name."""
    if not isinstance(c.corpus.releases, dict):
        return
    for i, rel in enumerate(releases_from(c.corpus.releases)):
        if why := file_name_problem(rel.name):
            c.add(RELEASES, ("releases", i, "name"), f"{rel.name[:80]!r}: {why}" if why.startswith("is ") else why)


def audit_ids(c) -> None:
    """An audit's id names its folder under ``corpus/audits/``: a portable name."""
    ids = {rel[len(AUDITS):].split("/")[0]: rel for rel in c.corpus.audit_files if rel.count("/") >= 3}
    for audit_id, rel in sorted(ids.items()):
        if why := file_name_problem(audit_id):
            c.add(rel, (), f"audit id {audit_id[:80]!r}: {why}" if why.startswith("is ") else f"audit id {why}")
