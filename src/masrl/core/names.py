"""Names that become file and folder names: record keys, release names, audit ids.

A name must be usable as a file name on every system a clone of the survey may be checked
out on: at most :data:`MAX_LENGTH` characters (a file name of most file systems holds 255
bytes; the writer adds a temporary prefix and suffix, and ``.yaml``), and not a name Windows
reserves for a device (``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM0``-``COM9``, ``LPT0``-``LPT9``,
also with an extension and in any case: ``con.yaml``, ``Aux``; Microsoft, "Naming Files, Paths,
and Namespaces"), which no Windows checkout can hold.
"""

from __future__ import annotations

import re

#: The longest name masrl gives a file or a folder (characters; names are ASCII).
MAX_LENGTH = 64

_DEVICE = re.compile(r"(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?", re.IGNORECASE)


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a file or folder on every system, or None.

    >>> file_name_problem("c3") is None
    True
    >>> file_name_problem("nul")
    "'nul' is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without an extension); choose another"
    """
    if len(name) > MAX_LENGTH:
        return f"is {len(name)} characters long; at most {MAX_LENGTH} (it names a file)"
    if _DEVICE.fullmatch(name):
        return (f"{name!r} is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with or without an "
                "extension); choose another")
    return None


def record_id_order(record_id: object) -> tuple:
    """The order of exclusion-log record ids: by number (``E999`` before ``E1000``; as text, ``E1000``
    would come first once the log passes 999), any other id after them, as text."""
    text = str(record_id)
    found = re.fullmatch(r"E([0-9]+)", text)
    return (0, int(found.group(1)), text) if found else (1, 0, text)
