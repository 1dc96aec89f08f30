"""Reference pages of masrl's file formats, generated from the JSON Schemas in masrl's code.

Every key of a format is found by walking its schema (:func:`rows`); what the key holds (type,
allowed values, whether it is required) is read from the schema, and what it means from the
schema's own ``description`` or, failing that, from this package's ``descriptions/<name>.txt``
(keyed by the key's path, ``<name>`` standing for any name). :func:`missing` and :func:`stale` say
which keys have no description and which descriptions name no key: the docs build refuses both,
so a key added to a schema cannot go undocumented and a removed one leaves no text behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
_PLACEHOLDER = re.compile(r"<[^<>]+>")


@dataclass(frozen=True)
class Row:
    """One key of a format: ``path`` (dotted, ``*`` for any name, ``[]`` for the items of a
    list), the object it belongs to (``parent``), its own name, the schema of its value and
    whether the parent requires it."""

    path: str
    parent: str
    name: str
    schema: dict
    required: bool
    same_as: str = ""


def _resolve(node: Any, root: dict) -> Any:
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
        target: Any = root
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _join(parent: str, name: str) -> str:
    return f"{parent}.{name}" if parent else name


def _object_of(node: Any, root: dict) -> dict | None:
    """The object schema a value holds, looking through lists (``x[]``)."""
    node = _resolve(node, root)
    if isinstance(node, dict) and ("properties" in node or isinstance(node.get("additionalProperties"), dict)):
        return node
    return None


def _children(node: Any, path: str, root: dict):
    """``(path, name, schema, required)`` of each key of the object ``node`` (or of the objects
    its list holds)."""
    node = _resolve(node, root)
    if not isinstance(node, dict):
        return
    if node.get("type") == "array" or "items" in node:
        if isinstance(node.get("items"), dict):
            yield from _children(node["items"], f"{path}[]", root)
        return
    required = set(node.get("required") or [])
    for name, child in (node.get("properties") or {}).items():
        yield _join(path, name), path, name, child, name in required
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and (_object_of(extra, root) is not None or _has_items_object(extra, root)):
        yield _join(path, "*"), path, "*", extra, False


def _nested(node: Any, root: dict) -> bool:
    """Whether ``node`` holds keys of its own (an object, or a list or mapping of objects)."""
    return any(True for _ in _children(node, "", root))


def rows(schema: dict) -> list[Row]:
    """Every key of ``schema``, parents before children, in the schema's order. A part of the
    schema that several keys share (the columns of a table, wherever a table is declared) is
    listed under the shortest of their paths; the others say ``same_as`` that one."""
    first: dict[int, str] = {}

    def survey(node: Any, path: str) -> None:
        for child_path, _, _, child, _ in _children(node, path, schema):
            if _nested(child, schema):
                known = first.get(id(child))
                if known is None or (child_path.count(".") + child_path.count("[")) < (known.count(".") + known.count("[")):
                    first[id(child)] = child_path
                if child_path.count(".") < 40:  # a schema that refers to itself ends here
                    survey(child, child_path)

    survey(schema, "")
    out: list[Row] = []

    def walk(node: Any, path: str) -> None:
        for child_path, parent, name, child, required in _children(node, path, schema):
            canonical = first.get(id(child), child_path) if _nested(child, schema) else child_path
            out.append(Row(child_path, parent, name, _resolve(child, schema), required,
                           "" if canonical == child_path else canonical))
            if canonical == child_path:
                walk(child, child_path)

    walk(schema, "")
    return out


def _has_items_object(node: Any, root: dict) -> bool:
    node = _resolve(node, root)
    return isinstance(node, dict) and _object_of(node.get("items"), root) is not None


# --- what a value holds ------------------------------------------------------------------------

#: Patterns said in words.
_PATTERN_WORDS = {
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}$": "a date, YYYY-MM-DD",
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$": "a UTC time, YYYY-MM-DDTHH:MM:SSZ",
    "^[0-9a-f]{64}$": "a SHA-256 digest (64 hexadecimal digits)",
}

def _code(value: Any) -> str:
    text = value if isinstance(value, str) else yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()
    text = str(text).replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def _bounds(node: dict) -> str:
    parts = []
    if "minimum" in node:
        parts.append(f"≥ {node['minimum']}")
    if "maximum" in node:
        parts.append(f"≤ {node['maximum']}")
    return " ".join(parts)


def value_text(node: Any, root: dict | None = None) -> str:
    """What a value of schema ``node`` may be, in words (``non-empty text``, ``one of `a`, `b```,
    ``list of ...``, ``mapping of name → ...``)."""
    root = root or {}
    node = _resolve(node, root)
    if not isinstance(node, dict) or not node:
        return "any value"
    if "const" in node:
        return f"exactly {_code(node['const'])}"
    if "enum" in node:
        return "one of " + ", ".join(_code(v) for v in node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node and not node.get("type"):
            return " or ".join(value_text(option, root) for option in node[key])
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(value_text({**node, "type": k}, root) for k in kind)
    if kind == "string":
        if node.get("pattern") in _PATTERN_WORDS:
            text = _PATTERN_WORDS[node["pattern"]]
        elif "pattern" in node and len(node["pattern"]) > 60:
            text = "text in the form the JSON Schema gives (`reports/schema/`)"
        elif "pattern" in node:
            text = f"text matching {_code(node['pattern'])}"
        elif node.get("format") == "date":
            text = "a date, YYYY-MM-DD"
        else:
            text = "non-empty text" if node.get("minLength", 0) >= 1 else "text"
        return text
    if kind in ("integer", "number"):
        word = "an integer" if kind == "integer" else "a number"
        bounds = _bounds(node)
        return f"{word} {bounds}".strip()
    if kind == "boolean":
        return "`true` or `false`"
    if kind == "null":
        return "`null`"
    if kind == "array" or "items" in node:
        size = []
        if node.get("minItems"):
            size.append(f"at least {node['minItems']}")
        if "maxItems" in node:
            size.append(f"at most {node['maxItems']}")
        items = node.get("items")
        inner = "objects (below)" if _object_of(items, root) is not None else value_text(items, root) if items else "values"
        text = f"list of {inner}"
        if size:
            text += f" ({', '.join(size)})"
        if node.get("uniqueItems"):
            text += ", no repeats"
        return text
    if kind == "object" or "properties" in node or "additionalProperties" in node:
        extra = node.get("additionalProperties")
        if node.get("properties"):
            return "mapping (below)"
        if isinstance(extra, dict):
            inner = "objects (below)" if _object_of(extra, root) is not None else value_text(extra, root)
            return f"mapping of names to {inner}"
        return "mapping"
    return "any value"


# --- descriptions ------------------------------------------------------------------------------

def _normal(path: str) -> str:
    return _PLACEHOLDER.sub("*", path)


def parse_descriptions(text: str) -> dict[str, str]:
    """``{path: text}`` of a descriptions file: a key's path on a line of its own, its text
    indented below it; ``#`` lines are comments."""
    out: dict[str, list[str]] = {}
    key = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if line[0].isspace():
            if key is None:
                raise ValueError(f"line {number}: text before any key")
            out[key].append(line.strip())
        else:
            key = line.strip()
            if key in out:
                raise ValueError(f"line {number}: {key} described twice")
            out[key] = []
    return {k: " ".join(v) for k, v in out.items()}


@lru_cache(maxsize=None)
def descriptions(name: str) -> dict[str, tuple[str, str]]:
    """``descriptions/<name>.txt`` as ``{normalised path: (path as written, text)}``."""
    file = HERE / "descriptions" / f"{name}.txt"
    data = parse_descriptions(file.read_text(encoding="utf-8"))
    return {_normal(path): (path, text) for path, text in data.items()}


def _shown(path: str, written: dict[str, tuple[str, str]]) -> str:
    """``path`` as the page shows it: each ``*`` named as the descriptions name it."""
    parts = path.split(".")
    shown = []
    for i in range(len(parts)):
        prefix = ".".join(parts[: i + 1])
        entry = written.get(prefix)
        last = entry[0].split(".")[-1] if entry else parts[i]
        shown.append(last if parts[i].startswith("*") or entry else parts[i])
    text = ".".join(shown)
    return text.replace("*", "<name>")


def description(row: Row, name: str) -> str:
    """What the key of ``row`` means: its entry in ``descriptions/<name>.txt``, else the schema's
    own ``description``; a key that shares its part of the schema with another (``same_as``)
    says so after it."""
    own = row.schema.get("description") if isinstance(row.schema, dict) else None
    entry = descriptions(name).get(row.path)
    text = entry[1] if entry else str(own) if own else ""
    if text and row.same_as:
        text += f" Its keys are those of `{_shown(row.same_as, descriptions(name))}`."
    return text


def missing(schema: dict, name: str) -> list[str]:
    """The keys of ``schema`` that no description explains."""
    return [r.path for r in rows(schema) if not description(r, name)]


def stale(schema: dict, name: str) -> list[str]:
    """The paths of ``descriptions/<name>.txt`` that are no key of ``schema``."""
    paths = {r.path for r in rows(schema)}
    return [written for path, (written, _) in descriptions(name).items() if path not in paths and not path.startswith("_")]


# --- the page ----------------------------------------------------------------------------------

def _group_of(path: str, groups: dict) -> str | None:
    """The group (object path) of the keys the value at ``path`` holds: itself, or the items of
    its list (``path[]``, ``path[][]``)."""
    for suffix in ("", "[]", "[][]"):
        if path + suffix in groups:
            return path + suffix
    return None


def target(anchor: str, path: str) -> str:
    """The page anchor of the table of the object at ``path``."""
    words = path.lower().replace("*", "-name-").replace("[]", "-items-")
    return f"{anchor}-" + (re.sub(r"[^a-z0-9]+", "-", words).strip("-") or "top")


def markdown(schema: dict, name: str, level: int = 2, anchor: str = "") -> str:
    """Markdown of every key of ``schema``: one table per object (its heading the object's path,
    with the target ``anchor-<path>``), with each key's value, whether it is required and what
    it means; a value that holds keys of its own links to their table."""
    written = descriptions(name)
    anchor = anchor or name
    groups: dict[str, list[Row]] = {}
    for row in rows(schema):
        groups.setdefault(row.parent, []).append(row)
    out = []
    for parent, members in groups.items():
        heading = "Top level" if not parent else f"`{_shown(parent, written)}`"
        out.append(f"({target(anchor, parent)})=\n{'#' * level} {heading}\n")
        if parent:
            text = written.get(parent, ("", ""))[1]
            if text:
                out.append(text + "\n")
        out.append("| key | value | required | meaning |\n| --- | --- | --- | --- |")
        for row in members:
            key = "`<name>`" if row.name == "*" else f"`{row.name}`"
            if row.name == "*":
                entry = written.get(row.path)
                if entry:
                    key = f"`{entry[0].split('.')[-1]}`"
            value = value_text(row.schema, schema)
            inner = _group_of(row.same_as or row.path, groups)
            if inner is not None:
                value = value.replace("(below)", f"([keys](#{target(anchor, inner)}))")
            out.append(f"| {key} | {value} | {'yes' if row.required else ''} | "
                       f"{description(row, name).replace('|', chr(92) + '|')} |")
        out.append("")
    return "\n".join(out)
