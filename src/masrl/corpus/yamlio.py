"""Strict YAML for records: one typing rule, line numbers, and no silent traps.

PyYAML's event parser (the C one where available) reads the text; this module
builds the Python values from the events itself so that the known YAML traps
come out right for hand-edited records:

* a key repeated in one mapping is an error (PyYAML keeps the last one);
* plain scalars follow the YAML 1.2 core schema *without floats and
  timestamps*: ``true``/``false`` are booleans, ``null``/``~``/empty is None,
  ``[-+]?[0-9]+`` is an int, and everything else is a string.  So a value
  ``yes`` is the vocabulary string ``"yes"`` (YAML 1.1 would say True),
  ``arxiv: 2510.10`` stays ``"2510.10"`` (not the float 2510.1), and
  ``date_screened: 2026-04-26`` is always the string ``"2026-04-26"`` (one
  type for dates, never ``datetime.date``). No record field is a float;
* anchors, aliases, explicit tags other than ``!!str`` and documents after the
  first are refused;
* text that is not UTF-8, or whose top level is not a mapping, is reported.

:func:`dump_record` writes records back with the same rules (PyYAML's emitter
quotes ``"yes"``, ``"NA"`` and ``"2510.10"`` itself).
"""

from __future__ import annotations

import pickle
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..core.errors import Problem
from ..core.memo import MISSING, Memo, content_key

try:  # the C parser where available
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - pure-Python fallback
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_INT = re.compile(r"[-+]?[0-9]+\Z")
_NULL = {"", "~", "null", "Null", "NULL"}
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_STR_TAGS = {None, "!", "tag:yaml.org,2002:str"}
_COMMENT = re.compile(r"[ \t]+(#[^\r\n\x85\u2028\u2029]*)")

Path_ = tuple  # a path into the document: ("identifiers", "arxiv") or ("authors", 2)


@dataclass
class Document:
    """A parsed YAML document.

    Attributes:
        value: the top-level value (a ``dict`` when the file is well formed).
        lines: 1-based line of every node, keyed by its path (``()`` is the
            document; ``("year",)`` the value of ``year``; ``("authors", 0)``
            the first author).
        comments: the comment that follows an unquoted scalar on its line,
            keyed by the scalar's path (``{("title",): "#1 for agents"}``): YAML
            ends a plain value at `` #``, which may have cut the text.
    """

    value: Any
    lines: dict[tuple, int] = field(default_factory=dict)
    comments: dict[tuple, str] = field(default_factory=dict)

    def line(self, path: tuple) -> int | None:
        """Line of ``path`` or of its nearest ancestor that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get(())


def _scalar(event: yaml.ScalarEvent) -> Any:
    if event.tag not in _STR_TAGS:
        raise _Refused(f"explicit tag {event.tag!r} is not allowed; write the value plainly or quote it", event)
    if event.tag == "tag:yaml.org,2002:str" or event.style or not event.implicit[0]:
        return event.value
    text = event.value
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        if len(text.lstrip("+-")) > MAX_DIGITS:
            raise _Refused(f"an integer of {len(text.lstrip('+-')):,} digits: masrl reads integers of at most {MAX_DIGITS} "
                           "digits (a year, a count); quote the value if it is text", event)
        return int(text)
    return text


def plain_value(text: str) -> Any:
    """What ``text`` written plainly (unquoted) in a file reads as: None, a boolean, an integer
    (``01`` is 1) or the text itself, by the rules of :func:`parse`."""
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text) and len(text.lstrip("+-")) <= MAX_DIGITS:
        return int(text)
    return text


#: Digits of the longest integer a file may hold (Python itself refuses to read one of more than 4,300).
MAX_DIGITS = 100


class _Refused(Exception):
    def __init__(self, message: str, event: Any):
        super().__init__(message)
        self.line = event.start_mark.line + 1 if event.start_mark is not None else None


def _utf8(data: bytes, file: str) -> tuple[str | None, Problem | None]:
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return None, Problem(file, line, None, f"not valid UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); save the file as UTF-8")


#: The files parsed in this process, by their bytes and name: ``(document, problems)`` pickled, so
#: that each caller gets values of its own. A survey's loads (a build, ``diff``'s two sides, a
#: release's before and after) read mostly the same files.
PARSED = Memo(8192)


def parse(data: bytes, file: str) -> tuple[Document | None, list[Problem]]:
    """Parse one YAML file strictly (once per process for the same bytes and name: :data:`PARSED`).

    Args:
        data: the raw bytes of the file.
        file: the name used in problems (``corpus/papers/c3.yaml``).

    Returns:
        ``(document, problems)``. ``document`` is None when the file cannot be
        read at all (not UTF-8, YAML syntax error, anchors, a second document);
        duplicate keys are reported but the document is still returned (first
        occurrence kept) so that the rest of the file can be checked too.
    """
    key = content_key(data, file)
    if (held := PARSED.get(key)) is not MISSING:
        return pickle.loads(held)
    parsed = _parse(data, file)
    PARSED.put(key, pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))
    return parsed


#: The lines git writes around a conflict it leaves to a person (``<<<<<<< HEAD``, ``>>>>>>> branch``).
_CONFLICT = re.compile(r"^(?:<{7}|>{7})(?: |$)", re.M)


def _parse(data: bytes, file: str) -> tuple[Document | None, list[Problem]]:
    text, problem = _utf8(data, file)
    if problem:
        return None, [problem]
    if marker := _CONFLICT.search(text):  # even where they fall inside a quoted value, which would still parse
        return None, [Problem(file, text.count("\n", 0, marker.start()) + 1, None,
                              "git conflict marker: a merge left this file unresolved; keep what each side should keep, "
                              "remove the lines <<<<<<<, ======= and >>>>>>>, then `git add` it (or run `masrl resolve`)")]
    problems: list[Problem] = []
    lines: dict[tuple, int] = {}
    comments: dict[tuple, str] = {}
    # stack entries: [container, path, pending_key, key_lines]
    stack: list[list[Any]] = []
    root: Any = None
    documents = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise _Refused("a record file holds one YAML document; remove the second '---'", event)
                continue
            if isinstance(event, yaml.AliasEvent):
                raise _Refused(f"alias *{event.anchor} is not allowed; write the value out", event)
            if isinstance(event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if event.anchor is not None:
                    raise _Refused(f"anchor &{event.anchor} is not allowed; write the value out", event)
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                value, path, _, _ = stack.pop()
                if not stack:
                    root = value
                else:
                    _attach(stack, value, path, problems, file, event)
                continue
            if isinstance(event, yaml.ScalarEvent):
                line = event.start_mark.line + 1
                top = stack[-1] if stack else None
                if isinstance(top, list) and isinstance(top[0], dict) and top[2] is None:
                    # a mapping key
                    if not event.style and event.implicit[0] and _scalar(event) is None:
                        raise _Refused("empty mapping key", event)
                    key = event.value
                    top[2] = key
                    if key in top[0] or key in top[3]:
                        problems.append(
                            Problem(file, line, _dotted(top[1] + (key,)),
                                    f"key '{key}' appears twice in one mapping (lines {top[3][key]} and {line})")
                        )
                        top[3].setdefault(f"\0dup:{key}", line)
                    else:
                        top[3][key] = line
                        lines.setdefault(top[1] + (key,), line)
                    continue
                value = _scalar(event)
                if not event.style:
                    end = event.end_mark.index
                    after = _COMMENT.match(text, end, text.find("\n", end) % (len(text) + 1))
                    if after:
                        comments[_child_path(stack)] = after.group(1).rstrip()
                if not stack:
                    root = value
                    lines[()] = line
                else:
                    _attach(stack, value, None, problems, file, event, lines)
                continue
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                mapping = isinstance(event, yaml.MappingStartEvent)
                if event.tag not in (None, "tag:yaml.org,2002:map" if mapping else "tag:yaml.org,2002:seq"):
                    raise _Refused(f"explicit tag {event.tag!r} is not allowed", event)
                path = _child_path(stack)
                lines.setdefault(path, event.start_mark.line + 1)
                stack.append([{} if mapping else [], path, None, {}])
                continue
    except _Refused as err:
        return None, problems + [Problem(file, err.line, None, str(err))]
    except yaml.YAMLError as err:
        return None, problems + [_syntax_problem(err, text, file)]
    return Document(root, lines, comments), problems


_HINTS = {
    "mapping values are not allowed": "quote the value if it contains ': ' (title: \"GAIA: a benchmark\")",
    "found character '\\t'": "indent with spaces, not tabs",
    "tab character": "indent with spaces, not tabs",
    "found undefined alias": "aliases (*name) are not allowed; write the value out",
}


def _syntax_problem(err: yaml.YAMLError, text: str, file: str) -> Problem:
    """One line naming the line of a YAML syntax error, with a hint for common slips."""
    mark = getattr(err, "problem_mark", None)
    if mark is not None:
        line = mark.line + 1
    elif getattr(err, "position", None) is not None:  # reader errors (control characters) give a position
        line = text[: err.position].count("\n") + 1
    else:
        line = None
    reason = getattr(err, "problem", None) or getattr(err, "reason", None) or str(err)
    if getattr(err, "character", None) is not None and getattr(err, "reason", None):
        reason = f"{err.reason} (character U+{ord(err.character):04X})" if isinstance(err.character, str) else err.reason
    context = getattr(err, "context", None)
    message = " ".join(f"YAML syntax error: {reason}{f' ({context})' if context else ''}".split())
    hint = next((h for key, h in _HINTS.items() if key in message), None)
    lines = text.splitlines()
    if context == "while scanning a quoted scalar" and getattr(err, "context_mark", None) is not None:
        opened = err.context_mark.line + 1  # the scalar that never ends starts here: the line to fix
        message += (" at the end of the file" if line and line > len(lines) else f" at line {line}") if line != opened else ""
        line = opened
    else:  # a quote that closed on a later line: the error shows further down
        opened = _unclosed_quote(lines, line) if line else None
    if hint and "mapping values are not allowed" in message and line and line <= len(lines) \
            and (value := _KEY_VALUE.match(lines[line - 1])):
        quoted = value.group(2).replace("\\", "\\\\").replace('"', '\\"')
        quoted = quoted if len(quoted) <= 60 else quoted[:57] + "..."
        hint = f"quote the value if it contains ': ' ({value.group(1)}: \"{quoted}\")"  # the line's own key and value
    if hint is None and opened:
        hint = (f"the quoted value that starts on line {opened} does not end on that line: close its quote "
                f"({lines[opened - 1].strip()[:40]})")
    if hint is None and line and any("\t" in lines[i][: len(lines[i]) - len(lines[i].lstrip())]
                                     for i in (line - 2, line - 1) if 0 <= i < len(lines)):
        hint = "indent with spaces, not tabs"  # the C and the Python scanners word a tab differently
    return Problem(file, line, None, message + (f"; {hint}" if hint else ""))


def _unclosed_quote(lines: list[str], before: int) -> int | None:
    """The last line up to ``before`` (1-based) whose value opens a quote that the line does not
    close (``key: "text`` or ``- 'text``), or None: the usual cause of a syntax error further down,
    since YAML lets a quoted value run on to the next quote."""
    for number in range(min(before, len(lines)), 0, -1):
        match = _OPENING_QUOTE.match(lines[number - 1])
        if match is None:
            continue
        quote, rest = match.group(1), match.group(2)
        rest = _ESCAPE.sub("", rest) if quote == '"' else rest.replace("''", "")
        if quote not in rest:
            return number
    return None


_KEY_VALUE = re.compile(r"^\s*(?:-\s+)?([^\s#'\"][^:#]*?):\s+(\S.*?)\s*$")  # key: value (a list item's too)
_ESCAPE = re.compile(r"\\.")  # an escape of a double-quoted YAML value: a backslash and what it escapes
_OPENING_QUOTE = re.compile(r"""^\s*(?:-\s+|[^\s#'"][^:#]*:\s+)(["'])(.*)$""")


def _dotted(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _child_path(stack: list[list[Any]]) -> tuple:
    if not stack:
        return ()
    container, path, pending, _ = stack[-1]
    if isinstance(container, dict):
        return path + (pending,)
    return path + (len(container),)


def _attach(stack, value, path, problems, file, event, lines=None) -> None:
    container, cpath, pending, keylines = stack[-1]
    if isinstance(container, dict):
        if pending is None:
            raise _Refused("a mapping key must be a plain string, not a mapping or a list", event)
        if f"\0dup:{pending}" in keylines and pending in container:
            pass  # duplicate: keep the first occurrence, already reported
        else:
            container[pending] = value
        stack[-1][2] = None
    else:
        if lines is not None:
            lines[cpath + (len(container),)] = event.start_mark.line + 1
        container.append(value)


def dump_record(record: dict) -> bytes:
    """Serialise one record mapping as YAML bytes (UTF-8, ``\\n``, keys in the given order).

    Strings that another YAML reader would coerce (``yes``, ``NA``, ``2510.10``,
    ``2026-04-26``) are quoted by the emitter; long strings stay on one line.
    """
    text = yaml.dump(
        record,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=10_000,
    )
    return text.encode("utf-8")


def dump_by_parts(data: dict) -> bytes:
    """:func:`dump_record` of a large mapping (a release's snapshot: its vocabulary and every record), the same bytes,
    written part by part: each item of ``data``, and of each mapping of mappings in it (``retained``, ``excluded``),
    is written on its own and remembered by its content (:data:`_PARTS`), so that a snapshot of a pool most of whose
    records an earlier one held writes only the others. An item the parts would not write as the whole would (a key
    written in the long form ``? key``) has the whole written."""
    out = []
    for key, value in data.items():
        if isinstance(value, dict) and value and all(isinstance(v, dict) and v for v in value.values()):
            head = _dump_part(key, 0)
            if not head.endswith(b": 0\n") or head.count(b"\n") != 1:
                return dump_record(data)
            out.append(head[:-3] + b"\n")
            for inner, item in value.items():
                part = _dump_part(inner, item)
                if not part.startswith(_dump_part(inner, 0)[:-3] + b"\n"):
                    return dump_record(data)
                out.append(b"".join(b"  " + line if line.strip(b"\n") else line for line in part.splitlines(keepends=True)))
        else:
            out.append(_dump_part(key, value))
    return b"".join(out)


#: The parts :func:`dump_by_parts` wrote, by content.
_PARTS = Memo(4096)


def _dump_part(key, value) -> bytes:
    digest = content_key("part", key, value)
    found = _PARTS.get(digest)
    if found is MISSING:
        found = dump_record({key: value})
        _PARTS.put(digest, found)
    return found


class _Dumper(yaml.SafeDumper):
    """SafeDumper that indents list items under their key, never writes anchors
    or aliases (a value used twice is written out twice) and writes multi-line
    strings as literal blocks (``|``)."""

    def ignore_aliases(self, data) -> bool:  # noqa: D401
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False):  # noqa: D401
        return super().increase_indent(flow, False)


def _str(dumper: yaml.SafeDumper, value: str):
    """A string as a YAML scalar: a literal block for multi-line text; quoted when this module's
    reader (YAML 1.2 core: ``08`` and ``+08`` are integers) would read the plain scalar as
    anything but this string, which PyYAML's YAML 1.1 emitter does not always see."""
    style = "|" if "\n" in value and all(ord(c) >= 32 or c == "\n" for c in value) and not value.endswith(" ") else None
    if style is None and (value in _NULL or value in _BOOL or _INT.match(value)):
        style = "'"
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)
