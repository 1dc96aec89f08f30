"""Older taxonomy formats, read as the current one (in memory, deterministically).

The taxonomy's ``format_version`` says which declarations it holds. Format 1 had the
controlled fields, reward families, crosstabs and gap declarations only: masrl then built
the same tables, figures, README list, site and report sentences for every survey.
:func:`migrate` turns a format-1 mapping into a format-2 one by adding exactly those
declarations, which are kept as data in ``format1.yaml`` next to this module (the one package
file this stage reads). A frozen release snapshot holds its vocabulary in the format of its day,
so its reports stay what that format wrote; ``masrl validate`` refuses an old format in the
working tree's ``corpus/taxonomy.yaml`` and says what it lacks (:func:`missing_declarations`).
"""

from __future__ import annotations

import copy
from functools import lru_cache
from importlib import resources

from ..core.memo import MISSING, Memo, content_key
from .yamlio import parse

#: The format this masrl reads and writes.
FORMAT = 2


def format_of(data: object) -> int | None:
    """The ``format_version`` of a taxonomy mapping: 1 when absent (format 1 had no such key),
    None when it is not an integer (``masrl validate`` reports it)."""
    if not isinstance(data, dict):
        return None
    value = data.get("format_version", 1)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@lru_cache(maxsize=1)
def _format1() -> dict:
    # read as the corpus's own files are read (masrl's YAML: no floats, ``2.6`` is a string), so that
    # a migrated declaration equals the same declaration written in a current taxonomy
    data = resources.files(__package__).joinpath("format1.yaml").read_bytes()
    document, problems = parse(data, "masrl/corpus/format1.yaml")
    if document is None or problems:
        raise RuntimeError(f"masrl's own format1.yaml does not read: {problems}")
    return document.value


def missing_declarations(data: dict) -> list[str]:
    """The top-level declarations of the current format that a format-1 mapping ``data`` lacks
    (and that :func:`migrate` would add), in the order of ``format1.yaml``."""
    return ["format_version"] + [key for key in _format1()["add"] if key not in data]


def implying_values(data: dict) -> list[str]:
    """``field.value`` of every value of a format-1 mapping ``data`` that holds a key format 1 read as
    the value's implied value of another field (now ``implies``)."""
    keys = set(_format1()["implying_keys"])
    fields = data.get("fields") if isinstance(data.get("fields"), dict) else {}
    out = []
    for name, field in fields.items():
        values = field.get("values") if isinstance(field, dict) else None
        for code, value in (values.items() if isinstance(values, dict) else []):
            if isinstance(value, dict) and keys & set(value):
                out.append(f"{name}.{code}")
    return out


def moved_keys() -> list[str]:
    """The format-1 keys that the current format keeps elsewhere (a family table's ``families``)."""
    return list(_format1()["moved"])


#: Format-1 taxonomies migrated in this process, by content (a release frozen in format 1 is read
#: by every command, several times: once per :class:`~masrl.corpus.taxonomy.Taxonomy` made of it).
_MIGRATED = Memo(16)


def migrate(data: dict) -> dict:
    """``data`` (a format-1 taxonomy mapping) as a format-2 mapping; a new mapping, ``data``
    is not changed, the same one for the same content within a process (read it, never change
    it, as a current-format mapping, which is returned as it is; so is one of an unknown format).

    What is added (``format1.yaml``): attributes of fields by name, ``implies`` from the value
    keys format 1 read that way, and every top-level declaration the file lacks (one level deep
    for mappings such as ``survey`` and ``gap_analysis``); a family table takes its families
    from the format-1 top-level key its ``families`` names.
    """
    if format_of(data) != 1:
        return data
    key = content_key(data)
    done = _MIGRATED.get(key)
    if done is MISSING:
        done = _migrate(data)
        _MIGRATED.put(key, done)
    return done


def _migrate(data: dict) -> dict:
    spec = _format1()
    out = copy.deepcopy(data)
    old = {key: out.pop(key) for key in spec["moved"] if key in out}
    fields = out.get("fields") if isinstance(out.get("fields"), dict) else {}
    for name, attrs in spec["field_attributes"].items():
        if isinstance(fields.get(name), dict):
            for key, value in attrs.items():
                fields[name].setdefault(key, value)
    for field in fields.values():
        values = field.get("values") if isinstance(field, dict) else None
        for value in (values.values() if isinstance(values, dict) else []):
            if not isinstance(value, dict):
                continue
            implied = {key: value.pop(key) for key in spec["implying_keys"] if key in value}
            if implied:
                value["implies"] = implied
    for key, value in copy.deepcopy(spec["add"]).items():
        if key not in out:
            out[key] = value
        elif isinstance(out[key], dict) and isinstance(value, dict):
            for sub, item in value.items():
                out[key].setdefault(sub, item)
    for table in out.get("tables") or []:
        if isinstance(table, dict) and isinstance(table.get("families"), str):
            table["families"] = copy.deepcopy(old.get(table["families"])) or {}
    return {"format_version": FORMAT, **out}
