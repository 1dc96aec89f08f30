"""JSON text -> trace values, with the checks :mod:`json` does not make.

Rules (this project's, for every trace file; the survey's schema says nothing about
the JSON text itself):

* the file must be UTF-8 (a leading byte-order mark is ignored, RFC 8259 §8.1);
* ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON numbers: :mod:`json` accepts
  them, this loader turns each into a :class:`NonFinite` marker that the checker
  reports with its JSON path (numbers that overflow a float, such as ``1e400``, are
  reported by the checker where they are used);
* a key repeated in one JSON object is an error (``json`` silently keeps the last);
* nesting deeper than the parser can recurse is reported, never a ``RecursionError``
  (the checker also limits nesting in free-form event properties to
  :data:`MAX_DEPTH` levels).

Duplicate keys are found by the parsers themselves, never from the text: blocks of
the ``events`` and ``edges`` arrays are parsed by jiter with ``catch_duplicate_keys``
(it raises on the first repeated key of any object), everything else by the
standard library's scanner with an ``object_pairs_hook`` that sees every key/value
pair. When jiter refuses a block (a duplicate, a NaN literal, a syntax error, a
string it will not decode), that stretch is parsed again element by element with the
hooked scanner, which names every duplicate with its JSON path and turns NaN and
Infinity into :class:`NonFinite` markers, so the messages are the same whichever
parser saw the text first.

Performance: the ``events`` and ``edges`` arrays are parsed in blocks of about
:data:`BLOCK_BYTES` and handed to a sink, so a million-event file never exists as
one big tree unless the caller asks to keep it. Valid traces rarely come here: the
typed path (:mod:`masrl.trace.typed`) accepts them first.
"""

from __future__ import annotations

import json
import re
from json.decoder import JSONDecodeError, scanstring
from json.scanner import make_scanner

from jiter import from_json

from ..core.errors import Problem

#: Deepest nesting accepted in free-form values (the checker enforces it).
MAX_DEPTH = 64

STREAMED_KEYS = ("events", "edges")
#: Elements handed to the sink at a time (element-by-element stretches).
CHUNK = 4096
#: Characters of an array parsed in one ``json`` call (a block).
BLOCK_BYTES = 1 << 19

_BLOCK_END = re.compile(r"\}[ \t\n\r]*,[ \t\n\r]*").search
_ONLY_DICT = {dict}

_WS = re.compile(r"[ \t\n\r]*").match


_CONTROL = {c: f"\\u{c:04x}" for c in (*range(0x20), 0x7F, 0x85, 0x2028, 0x2029)}
_CONTROL.update({0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"})


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped (``\\n``, ``\\u0001``),
    so that a message quoting user data stays on one line; a word longer than 120 characters
    (a megabyte-long id) is shortened to its first 60 and its length."""
    text = text.translate(_CONTROL)
    if len(text) > 120:
        text = _LONG_WORD.sub(lambda m: f"{m.group()[:60]}...({len(m.group())} characters)", text)
    return text


_LONG_WORD = re.compile(r"[^\s'\"]{121,}")


class NonFinite:
    """Marker for a ``NaN``/``Infinity``/``-Infinity`` literal found in the JSON text."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"NonFinite({self.text!r})"


class _PairsHook:
    """``object_pairs_hook`` that keeps the last value (like json) and records duplicates."""

    def __init__(self):
        self.found: list[tuple[dict, list[str]]] = []

    def __call__(self, pairs):
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set = set()
            dups: list[str] = []
            for key, _ in pairs:
                if key in seen and key not in dups:
                    dups.append(key)
                seen.add(key)
            self.found.append((d, dups))
        return d


def _hook_scanner() -> tuple:
    hook = _PairsHook()
    return make_scanner(json.JSONDecoder(parse_constant=NonFinite, object_pairs_hook=hook)), hook


class TraceSyntaxError(Exception):
    """The text is not JSON (or cannot be parsed); carries the one :class:`Problem`."""

    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem


def decode(data: bytes, file: str) -> str:
    """UTF-8 bytes -> text (BOM dropped). Raises :class:`TraceSyntaxError` if not UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise TraceSyntaxError(
            Problem(file, line, None, f"not UTF-8 text: byte 0x{data[err.start]:02x} at offset {err.start} is invalid")
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def _syntax(file: str, err: JSONDecodeError) -> TraceSyntaxError:
    return TraceSyntaxError(Problem(file, err.lineno, None, f"not valid JSON: {err.msg} (line {err.lineno}, column {err.colno})"))


def _path_of(root, target) -> str:
    """JSON path suffix of the container ``target`` inside ``root`` (by identity), iteratively."""
    stack = [(root, "")]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        if type(node) is dict:
            for key, value in node.items():
                if type(value) in (dict, list):
                    stack.append((value, f"{path}.{key}" if _SIMPLE_KEY(key) else f"{path}[{json.dumps(key)}]"))
        elif type(node) is list:
            for k, value in enumerate(node):
                if type(value) in (dict, list):
                    stack.append((value, f"{path}[{k}]"))
    return ""


_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z").match


def key_path(parent: str, key: str) -> str:
    """``$.events[3]`` + ``t`` -> ``$.events[3].t`` (bracket-quoted when not an identifier)."""
    return f"{parent}.{key}" if _SIMPLE_KEY(key) else f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


class Loader:
    """Parse one trace text and feed a sink; collect the loader's own problems.

    The sink (a :class:`~masrl.trace.checker.TraceChecker`) has ``top(key, value)``,
    ``begin(key)``, ``events(first index, values)``, ``edges(first index, values)``,
    ``end(key, count)`` and ``whole(value)`` (for a document that is not an object).
    """

    def __init__(self, text: str, file: str, sink, keep: bool = False):
        self.text = text
        self.file = file
        self.sink = sink
        self.keep = keep
        self.problems: list[Problem] = []
        self.tree = None

    # -- helpers -----------------------------------------------------------------
    def _scan_hooked(self, i: int, path: str):
        scan, hook = _hook_scanner()
        value, end = self._guard(scan, i, path)
        for d, dups in hook.found:
            where = path + _path_of(value, d)
            for key in dups:
                self.problems.append(
                    Problem(self.file, None, where, one_line(f"duplicate key '{key}' in one JSON object (only its last value is used)"))
                )
        return value, end

    def _guard(self, scan, i: int, path: str):
        try:
            return scan(self.text, i)
        except StopIteration as stop:
            raise _syntax(self.file, JSONDecodeError("Expecting value", self.text, stop.value)) from None
        except JSONDecodeError as err:
            raise _syntax(self.file, err) from None
        except RecursionError:
            line = self.text.count("\n", 0, i) + 1
            raise TraceSyntaxError(
                Problem(self.file, line, path, f"JSON nesting is too deep (more than {MAX_DEPTH} levels is not allowed)")
            ) from None
        except ValueError as err:  # e.g. an integer literal longer than Python's digit limit
            line = self.text.count("\n", 0, i) + 1
            why = ("an integer with more than 4300 digits (no count or time is that large)" if "digits" in str(err)
                   else str(err))
            raise TraceSyntaxError(Problem(self.file, line, path, f"cannot read a value: {why}")) from None

    def _expect(self, msg: str, i: int):
        raise _syntax(self.file, JSONDecodeError(msg, self.text, i))

    # -- the document -------------------------------------------------------------
    def run(self):
        """Parse and feed everything; returns the tree if ``keep`` (else ``None``)."""
        text = self.text
        n = len(text)
        i = _WS(text, 0).end()
        if i >= n or text[i] != "{":
            value, end = self._scan_hooked(i, "$")
            end = _WS(text, end).end()
            if end != n:
                self._expect("Extra data", end)
            self.sink.whole(value)
            return value if self.keep else None
        tree = {} if self.keep else None
        seen: set[str] = set()
        i = _WS(text, i + 1).end()
        if i < n and text[i] == "}":
            i += 1
        else:
            while True:
                if i >= n or text[i] != '"':
                    self._expect("Expecting property name enclosed in double quotes", i)
                try:
                    key, i = scanstring(text, i + 1, True)
                except JSONDecodeError as err:
                    raise _syntax(self.file, err) from None
                i = _WS(text, i).end()
                if i >= n or text[i] != ":":
                    self._expect("Expecting ':' delimiter", i)
                i = _WS(text, i + 1).end()
                path = key_path("$", key)
                if key in seen:
                    self.problems.append(
                        Problem(self.file, None, path, one_line(f"duplicate key '{key}' in one JSON object (only its first value is checked)"))
                    )
                    _, i = self._scan_hooked(i, path)
                elif key in STREAMED_KEYS and i < n and text[i] == "[":
                    seen.add(key)
                    items, i = self._array(i, key, path)
                    if tree is not None:
                        tree[key] = items
                else:
                    seen.add(key)
                    value, i = self._scan_hooked(i, path)
                    self.sink.top(key, value)
                    if tree is not None:
                        tree[key] = value
                i = _WS(text, i).end()
                c = text[i] if i < n else ""
                if c == ",":
                    i = _WS(text, i + 1).end()
                    continue
                if c == "}":
                    i += 1
                    break
                self._expect("Expecting ',' delimiter", i)
        end = _WS(text, i).end()
        if end != n:
            self._expect("Extra data", end)
        return tree

    def _array(self, i: int, key: str, path: str):
        """Stream one top-level array; returns (kept items or None, end index).

        Blocks of about :data:`BLOCK_BYTES` are parsed with one ``json`` call each:
        a block is cut right after a ``}`` followed by a ``,``; if the cut is not
        between two elements (it is inside a string or a nested value) the block is
        not valid JSON and that stretch is parsed element by element instead.
        """
        text = self.text
        n = len(text)
        sink = self.sink
        feed = sink.events if key == "events" else sink.edges
        sink.begin(key)
        items = [] if self.keep else None
        chunk: list = []  # single elements not yet fed
        base = 0  # index of chunk[0]
        index = 0  # elements seen
        ws = _WS
        i = ws(text, i + 1).end()
        if i < n and text[i] == "]":
            sink.end(key, 0)
            return items, i + 1
        single_until = -1  # parse element by element while i < single_until
        while True:
            if i >= single_until:
                block = self._block(i)
                if type(block) is tuple:
                    values, i = block
                    if chunk:
                        feed(base, chunk)
                        if items is not None:
                            items.extend(chunk)
                        chunk = []
                    feed(index, values)
                    if items is not None:
                        items.extend(values)
                    index += len(values)
                    base = index
                    continue
                single_until = block  # where the failed cut was (or the end of the text)
            value, i = self._scan_hooked(i, f"{path}[{index}]")
            chunk.append(value)
            index += 1
            if index - base == CHUNK:
                feed(base, chunk)
                if items is not None:
                    items.extend(chunk)
                chunk = []
                base = index
            c = text[i] if i < n else ""
            if c == ",":
                i = ws(text, i + 1).end()
                continue
            if c == "]":
                i += 1
                break
            i = ws(text, i).end()
            c = text[i] if i < n else ""
            if c == ",":
                i = ws(text, i + 1).end()
                continue
            if c == "]":
                i += 1
                break
            self._expect("Expecting ',' delimiter", i)
        if chunk:
            feed(base, chunk)
            if items is not None:
                items.extend(chunk)
        sink.end(key, index)
        return items, i

    def _block(self, i: int):
        """Parse the elements from ``i`` to a cut about BLOCK_BYTES later in one jiter call.

        Returns ``(values, start of the next element)``, or the position up to which
        the caller should go element by element: no usable cut, the cut was not an
        element boundary, or jiter refused the block (a duplicate key, NaN, a
        syntax error), which the element-by-element parse then reports exactly.
        """
        text = self.text
        target = i + BLOCK_BYTES
        if target >= len(text):
            return len(text)
        m = _BLOCK_END(text, target)
        if m is None:
            return len(text)
        cut = m.start() + 1
        try:
            values = from_json(("[" + text[i:cut] + "]").encode("utf-8", "surrogatepass"),
                               catch_duplicate_keys=True, allow_inf_nan=False)
        except (ValueError, RecursionError):
            return cut + 1
        if set(map(type, values)) != _ONLY_DICT:
            return cut + 1
        return values, m.end()


def load(data: bytes, file: str, sink, keep: bool = False):
    """Decode and parse ``data`` into ``sink``; returns ``(tree or None, loader problems)``.

    Raises:
        TraceSyntaxError: the bytes are not UTF-8 or not JSON (one problem;
            nothing after the syntax error can be checked).
    """
    loader = Loader(decode(data, file), file, sink, keep)
    tree = loader.run()
    return tree, loader.problems
