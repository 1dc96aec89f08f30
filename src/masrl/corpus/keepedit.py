"""Insertions into a file a person may have annotated, keeping what they wrote.

masrl writes some YAML files whole (``corpus/releases.yaml``) and a person may add comments to them
or format them by hand. A later command that only adds lines (a new release, the digests of claims)
must not lose that. :func:`insert_keeping` carries the lines that the command's own rewrite adds
(the difference between masrl's form of the file before and after the change, when it only inserts)
into the file as it stands, each block right after the line that precedes it in masrl's form.
The caller checks that the result reads as the changed data; when it cannot be placed, None.

Pure functions.
"""

from __future__ import annotations

from difflib import SequenceMatcher


def insert_keeping(actual: str, before: str, after: str) -> str | None:
    """``actual`` (the file as it stands) with the lines that ``after`` adds to ``before`` (masrl's
    own forms of the file before and after the change) inserted where ``after`` has them; None when
    ``after`` does more than insert lines into ``before``, or a block's place in ``actual`` is
    unknown (the line before it was edited by hand)."""
    old, new, have = before.splitlines(keepends=True), after.splitlines(keepends=True), actual.splitlines(keepends=True)
    if have and not have[-1].endswith("\n"):
        have[-1] += "\n"
    inserts: list[tuple[int, list[str]]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "insert":
            return None
        inserts.append((i1, new[j1:j2]))
    if not inserts:
        return actual
    where = {}  # a line of masrl's form -> its line in the file as it stands
    for i, j, size in SequenceMatcher(None, old, have, autojunk=False).get_matching_blocks():
        where.update((i + k, j + k) for k in range(size))
    out = list(have)
    for at, lines in sorted(inserts, reverse=True):  # from the end, so earlier places stay where they are
        if at == 0:
            return None
        if at - 1 not in where:
            return None
        pos = where[at - 1] + 1
        out[pos:pos] = lines
    return "".join(out)
