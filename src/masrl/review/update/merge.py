"""Two update rounds of the same day on two branches, merged: theirs under the next free round id.

``masrl update search`` names a round by its day (``corpus/rounds/<day>/``, ``<day>-2`` for a
second one). Two branches that each searched on the same day both wrote ``corpus/rounds/<day>/``,
so ``git merge`` stops on its files. :func:`rename_theirs` keeps ours under the id and moves
theirs to the next free id of the same day, and follows the id everywhere theirs wrote it: the
round's own files (``round:``, the header, the sheets' ``corpus/rounds/<id>/`` cells), the
records the branch made from the round (``masrl update apply <id> (corpus/rounds/<id>/...)``) and
the branch's later rounds whose duplicates name its rows (``corpus/rounds/<id>/queue.csv:N``).
A release of theirs that covers the round is left to a person. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...corpus.load import EXCLUSIONS, PAPERS
from ...corpus.rounds import ROUNDS
from ...corpus.yamlio import parse

#: A round id: its day, and ``-N`` for the N-th round of that day.
ROUND_ID = re.compile(r"(?P<day>[0-9]{4}-[0-9]{2}-[0-9]{2})(?:-(?P<n>[0-9]+))?")
RELEASES = "corpus/releases/"


@dataclass
class RoundRename:
    """Theirs of a round id both sides added: its new id, and the files to write.

    Attributes:
        old, new: the round id both sides used, and the new one of the side renamed (:attr:`side`).
        files: ``{path: bytes}``: theirs' round files under the new id, and theirs' records that name
            the round, rewritten.
        by_hand: what a person decides (a release of theirs that covers the round; a file of the round
            changed on both sides since a common ancestor).
    """

    old: str
    new: str
    files: dict[str, bytes] = field(default_factory=dict)
    by_hand: list[str] = field(default_factory=list)
    #: the side renamed: "theirs", or "ours" when only a release of theirs covers the round
    side: str = "theirs"


def round_of(rel: str) -> str | None:
    """The round id of a path under ``corpus/rounds/<id>/`` (None elsewhere)."""
    if not rel.startswith(ROUNDS):
        return None
    rid, sep, _rest = rel[len(ROUNDS):].partition("/")
    return rid if sep and ROUND_ID.fullmatch(rid) else None


def next_free(rid: str, taken: set[str]) -> str:
    """The next id of ``rid``'s day that no round in ``taken`` has (``<day>-2``, ``-3``, ...)."""
    day = ROUND_ID.fullmatch(rid)["day"]
    n = 2
    while f"{day}-{n}" in taken:
        n += 1
    return f"{day}-{n}"


def follow(text: str, old: str, new: str) -> str:
    """``text`` with every mention of round ``old`` as a round (not as a date) made ``new``."""
    text = text.replace(f"{ROUNDS}{old}/", f"{ROUNDS}{new}/")
    text = re.sub(rf"(masrl update apply\s+){re.escape(old)}(?![\w-])", rf"\g<1>{new}", text)
    text = re.sub(rf"(?m)^(round:\s*)(['\"]?){re.escape(old)}\2[ \t]*$", rf"\g<1>\g<2>{new}\g<2>", text)
    return re.sub(rf"(?m)^(# Update round ){re.escape(old)}:", rf"\g<1>{new}:", text)


def rename_theirs(old: str, taken: set[str], base: dict, ours: dict, theirs: dict) -> RoundRename:
    """Theirs of round ``old`` (added on both sides) under the next free id; ``taken``: every round id of
    both sides. ``base``, ``ours``, ``theirs``: the input files of the merge's three commits."""
    new = next_free(old, taken)
    out = RoundRename(old, new)
    prefix = f"{ROUNDS}{old}/"
    for rel in sorted(theirs):
        if rel.startswith(prefix):
            if rel in base:
                out.by_hand.append(f"{rel}: round {old} was there before the branches parted, and both changed it")
            out.files[f"{ROUNDS}{new}/{rel[len(prefix):]}"] = follow(theirs[rel].decode("utf-8"), old, new).encode("utf-8")
        elif ((rel.startswith((PAPERS, EXCLUSIONS)) or round_of(rel)) and theirs[rel] != base.get(rel)
              and theirs[rel] != ours.get(rel)):  # their records, and their other rounds' duplicates of its rows
            text = theirs[rel].decode("utf-8", "replace")
            moved = follow(text, old, new)
            if moved != text:
                out.files[rel] = moved.encode("utf-8")
        elif rel.startswith(RELEASES) and theirs[rel] != base.get(rel) and _covers(theirs[rel], old):
            out.by_hand.append(f"{rel}: the branch merged in released its round {old}, which is now {new} (ours keeps "
                               f"{old}): release again after the merge")
    return out


def released_by(tree: dict, base: dict, rid: str) -> bool:
    """Whether a release snapshot of ``tree`` that ``base`` does not hold as it is covers round ``rid``."""
    return any(rel.startswith(RELEASES) and data != base.get(rel) and _covers(data, rid) for rel, data in tree.items())


def _covers(data: bytes, rid: str) -> bool:
    """Whether a release snapshot's ``identification.rounds`` lists round ``rid``."""
    document, _problems = parse(data, RELEASES)  # as masrl reads every input file (and once per content)
    snapshot = document.value if document is not None else None
    found = snapshot.get("identification") if isinstance(snapshot, dict) else None
    rounds = found.get("rounds") if isinstance(found, dict) else None
    return isinstance(rounds, list) and any(str(r) == rid for r in rounds)
