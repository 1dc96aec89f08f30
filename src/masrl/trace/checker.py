"""The fast trace validator: the JSON Schema rules written out, plus graph semantics.

:class:`TraceChecker` receives a trace piece by piece (top-level values, then each
event, then each edge; :mod:`masrl.trace.load` streams them from the text, or
:func:`masrl.trace.validate.validate_trace` feeds them from a dict) and keeps only
compact columns (event times, type codes, agent codes, edge endpoints), which
:mod:`masrl.trace.metrics` reuses. Linear in events + edges.

Problems fall in two groups:

``schema_problems``
    exactly what ``trace.schema.json`` (JSON Schema 2020-12) decides: the tests run
    this checker and ``jsonschema.Draft202012Validator`` on thousands of generated
    traces and require the same accept/reject answer.
``other_problems``
    what no JSON Schema can say. Survey rules (facts file ``trace_schema``): none
    beyond the schema. masrl rules (documented in docs/traces.md):

    * numbers are finite (no NaN/Infinity literals, no float overflow such as 1e400);
    * free-form event properties nest at most :data:`~masrl.trace.load.MAX_DEPTH` levels;
    * every cost is >= 0 (the schema requires it of tokens, wall_clock_s, tool_calls
      and messages; this extends it to every key of ``costs``);
    * event ids are unique; every edge's src and dst are event ids;
    * time never decreases along an edge: ``t[src] <= t[dst]``;
    * spawn, causal and return edges form no cycle;
    * an agent acts (is the ``agent`` of an event) only while spawned: at or after a
      spawn of it and not after a later despawn of it (closed intervals; agents that
      are never the ``to`` of a spawn are roots: alive from the start, until despawned);
    * a return names its recipient in ``to``, and that recipient spawned the returning
      agent or sent it a message or delegation (an orchestrator_decision with ``to``)
      at or before the return's time. The returning agent is the return's ``from``,
      else its ``agent``; the sender of a spawn/message/decision is its ``from``,
      else its ``agent``.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right

from masrl.errors import Problem

from .load import MAX_DEPTH, NonFinite, key_path, one_line
from .schema import (
    COST_NONNEGATIVE,
    COST_REQUIRED,
    CREDIT_UNITS,
    DECISION_NAMES,
    DECISIONS,
    EDGE_REQUIRED,
    EDGE_TYPES,
    EVENT_REQUIRED,
    EVENT_TYPES,
    TOP_KEYS,
    TOP_REQUIRED,
    TOPOLOGIES,
)

INF = float("inf")
NAN = float("nan")
MAX_FLOAT = sys.float_info.max

TYPE_CODE = {name: k for k, name in enumerate(EVENT_TYPES)}
EDGE_CODE = {name: k for k, name in enumerate(EDGE_TYPES)}
OD, SPAWN, DESPAWN, MESSAGE, TOOL_CALL, TOOL_RESULT, RETURN, AGGREGATE, HUMAN, SAFETY, STOP = (
    TYPE_CODE[name]
    for name in (
        "orchestrator_decision", "spawn", "despawn", "message", "tool_call", "tool_result",
        "return", "aggregate", "human_intervention", "safety_event", "stop",
    )
)
NO_TYPE = 255
#: Edge types that must form no cycle (brief of issue 6).
ACYCLIC_EDGES = frozenset(EDGE_CODE[name] for name in ("spawn", "causal", "return"))
#: Event types whose ``to`` names an agent contacted by the sender (return rule, lifecycle).
LINK_TYPES = frozenset((OD, SPAWN, DESPAWN, MESSAGE, RETURN))
CONTACT_TYPES = frozenset((OD, SPAWN, MESSAGE))

_REQUIRED = frozenset(EVENT_REQUIRED)

_OPT_STR = frozenset(("role", "from", "to", "tool", "content_ref"))
_OPT_NUM = frozenset(("tokens", "cost", "duration_s"))
_DECISION_SET = frozenset(DECISIONS)
_DECISION_TYPES = frozenset((OD, STOP))
_TOPOLOGY_SET = frozenset(TOPOLOGIES)
_UNIT_SET = frozenset(CREDIT_UNITS)
_TOP_SET = frozenset(TOP_KEYS)
_STRING_TOP = ("schema_version", "trace_id", "task_id", "system")


def show(value) -> str:
    """A short JSON-like rendering of a value for messages ('abc', 12, true, null, an array)."""
    t = type(value)
    if t is str:
        text = value if len(value) <= 60 else value[:57] + "..."
        return "'" + text.replace("\n", "\\n") + "'"
    if t is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if t is int or t is float:
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if t is NonFinite:
        return value.text
    if t is list:
        return "an array"
    if t is dict:
        return "an object"
    return repr(value)


def _fmt_t(value: float) -> str:
    """Times in messages: integers without '.0' (t=3), others as repr (t=2.5)."""
    if value != value or value in (INF, -INF):
        return repr(value)
    return str(int(value)) if value == int(value) else repr(value)


def _is_num(v) -> bool:
    t = type(v)
    return t is int or t is float


def _nonfinite(v) -> str | None:
    """Why ``v`` is not a finite number (NaN literal, overflow), or None if it is fine."""
    t = type(v)
    if t is NonFinite:
        return f"{v.text} is not allowed; numbers must be finite"
    if t is float and not (v - v == 0.0):
        if v != v:
            return "NaN is not allowed; numbers must be finite"
        return "number overflows to infinity; numbers must be finite"
    if t is int and not -MAX_FLOAT <= v <= MAX_FLOAT:
        return "number is too large for a 64-bit float; numbers must be finite"
    return None


class TraceChecker:
    """Validate one trace and keep its columns.

    Feed with :meth:`top` (top-level values other than the arrays), :meth:`begin`,
    :meth:`events` / :meth:`edges` (chunks of array elements, in order) and
    :meth:`end` for each array, or :meth:`whole` for a document that is not an
    object; then call :meth:`finish`. Afterwards the columns are:

    ``t`` (array of float, NaN where invalid), ``types`` (bytearray of type codes,
    255 where invalid), ``agents`` (array of agent codes, -1 where invalid),
    ``agent_names`` (code -> name), ``ids`` (id -> first index), ``links``
    (``(event index, type code, sender code, to code)`` for orchestrator_decision,
    spawn, despawn, message and return events; to code -1 if absent, -2 if invalid),
    ``esrc``/``edst``/``eidx``/``etype`` (resolved edges: event indices, edge index,
    edge type code), ``decisions`` ({(type code, 'O1'): count}), ``sums``
    ({'tokens'|'cost'|'duration_s': total over events}) and the top-level values in
    ``top_values``.
    """

    def __init__(self, file: str):
        self.file = file
        self.schema_problems: list[Problem] = []
        self.other_problems: list[Problem] = []
        self.present: set[str] = set()
        self.top_values: dict = {}
        self.not_object = False
        self.events_ok = False
        self.events_done = False
        self.n = 0
        self.ids: dict[str, int] = {}
        self.id_list: list = []
        self.t = array("d")
        self.types = bytearray()
        self.agents = array("l")
        self.agent_code: dict[str, int] = {}
        self.agent_names: list[str] = []
        self.links: list[tuple[int, int, int, int]] = []
        self.decisions: dict[tuple[int, str], int] = {}
        self.sums = {"tokens": 0, "cost": 0, "duration_s": 0}
        self.esrc = array("l")
        self.edst = array("l")
        self.eidx = array("l")
        self.etype = bytearray()
        self._pending: list[tuple[int, str, str, int]] = []
        self._cycle_candidates: list[tuple[int, int, int, int]] = []
        self._backward = False

    # -- helpers -------------------------------------------------------------------
    def _schema(self, path: str, message: str) -> None:
        self.schema_problems.append(Problem(self.file, None, path, one_line(message)))

    def _other(self, path: str, message: str) -> None:
        self.other_problems.append(Problem(self.file, None, path, one_line(message)))

    def _code(self, name: str) -> int:
        code = self.agent_code.get(name)
        if code is None:
            code = self.agent_code[name] = len(self.agent_names)
            self.agent_names.append(name)
        return code

    def _free(self, value, path: str, label: str, depth: int) -> None:
        """Walk a free-form value (iteratively): finite numbers, nesting <= MAX_DEPTH."""
        stack = [(value, path, depth)]
        while stack:
            node, where, level = stack.pop()
            t = type(node)
            if t is dict or t is list:
                if level > MAX_DEPTH:
                    self._other(where, f"{label}nesting deeper than {MAX_DEPTH} levels is not allowed")
                    continue
                if t is dict:
                    stack.extend((v, key_path(where, k), level + 1) for k, v in node.items())
                else:
                    stack.extend((v, f"{where}[{k}]", level + 1) for k, v in enumerate(node))
            else:
                why = _nonfinite(node)
                if why:
                    self._other(where, label + why)

    # -- top level -----------------------------------------------------------------
    def whole(self, value) -> None:
        """The document is not a JSON object."""
        self.not_object = True
        self._schema("$", f"a trace must be a JSON object, got {show(value)}")

    def begin(self, key: str) -> None:
        """A top-level array (``events`` or ``edges``) starts streaming."""
        self.present.add(key)
        if key == "events":
            self.events_ok = True

    def end(self, key: str, count: int) -> None:
        if key == "events":
            self.events_done = True
            self.n = count
            if count == 0:
                self._schema("$.events", "must contain at least one event")
            self._index_ids()
            if self._pending:
                pending, self._pending = self._pending, []
                for j, src, dst, code in pending:
                    self._resolve(j, src, dst, code)

    def _index_ids(self) -> None:
        """``ids``: event id -> index of its first use; reports duplicate ids (built in C when unique)."""
        id_list = self.id_list
        ids = dict(zip(id_list, range(len(id_list))))
        ids.pop(None, None)
        if len(ids) != len(id_list) - id_list.count(None):
            ids = {}
            for i, eid in enumerate(id_list):
                if eid is None:
                    continue
                first = ids.setdefault(eid, i)
                if first != i:
                    self._other(f"$.events[{i}].id", f"event {eid}: duplicate event id (first used by $.events[{first}])")
        self.ids = ids

    def top(self, key: str, value) -> None:
        """One top-level key that is not a streamed array."""
        self.present.add(key)
        path = key_path("$", key)
        if key not in _TOP_SET:
            self._schema(path, f"unknown top-level key '{key}'; allowed: {', '.join(TOP_KEYS)}")
            return
        self.top_values[key] = value
        if key in _STRING_TOP:
            if type(value) is not str:
                self._schema(path, f"must be a string, got {show(value)}")
        elif key == "topology":
            if not (type(value) is str and value in _TOPOLOGY_SET):
                self._schema(path, f"{show(value)} is not a topology; allowed: {', '.join(TOPOLOGIES)}")
        elif key == "events":
            self._schema(path, f"must be a non-empty array of events, got {show(value)}")
        elif key == "edges":
            self._schema(path, f"must be an array of edges, got {show(value)}")
        elif key in ("rewards", "metrics"):
            self._numbers(path, value, nonnegative=())
        elif key == "costs":
            self._numbers(path, value, nonnegative=COST_NONNEGATIVE)
            if type(value) is dict:
                for req in COST_REQUIRED:
                    if req not in value:
                        self._schema(path, f"missing required key '{req}'")
        elif key == "labels":
            if type(value) is not dict:
                self._schema(path, f"must be an object of labels (strings, numbers or booleans), got {show(value)}")
                return
            for name, label in value.items():
                t = type(label)
                if t is NonFinite or (t is float and not label - label == 0.0):
                    self._other(key_path(path, name), _nonfinite(label))
                elif t not in (str, int, float, bool):
                    self._schema(key_path(path, name), f"must be a string, number or boolean, got {show(label)}")
        elif key == "reward_credit_units":
            if type(value) is not dict:
                self._schema(path, f"must be an object mapping reward channels to credit units, got {show(value)}")
                return
            for channel, unit in value.items():
                if not (type(unit) is str and unit in _UNIT_SET):
                    self._schema(
                        key_path(path, channel), f"{show(unit)} is not a credit unit; allowed: {', '.join(CREDIT_UNITS)}"
                    )

    def _numbers(self, path: str, value, nonnegative) -> None:
        if type(value) is not dict:
            self._schema(path, f"must be an object of numbers, got {show(value)}")
            return
        costs = path == "$.costs"
        for k, v in value.items():
            where = key_path(path, k)
            why = _nonfinite(v)
            if why:
                self._other(where, why)
            elif not _is_num(v):
                self._schema(where, f"must be a number{' >= 0' if costs else ''}, got {show(v)}")
            elif v < 0 and costs:
                # tokens, wall_clock_s, tool_calls, messages: schema; any other cost: masrl rule
                (self._schema if k in nonnegative else self._other)(where, f"must be a number >= 0, got {show(v)}")

    # -- fast paths: a chunk of events / edges at a time -----------------------------
    def events(self, start: int, items: list) -> None:
        """Check events ``start, start+1, ...``; the common case inline, anything unusual via :meth:`event`.

        The inline path only accepts what :meth:`event` would accept without a
        problem and records exactly what it would record.
        """
        id_append = self.id_list.append
        t_append = self.t.append
        type_append = self.types.append
        agent_append = self.agents.append
        codes_get = self.agent_code.get
        link_append = self.links.append
        type_code = TYPE_CODE.get
        sums = self.sums
        decisions = self.decisions
        required = _REQUIRED
        opt_str = _OPT_STR
        opt_num = _OPT_NUM
        slow = self.event
        i = start - 1
        for ev in items:
            i += 1
            if type(ev) is not dict:
                slow(i, ev)
                continue
            try:
                eid = ev["id"]
                t = ev["t"]
                typ = ev["type"]
                agent = ev["agent"]
            except KeyError:
                slow(i, ev)
                continue
            tt = type(t)
            if not (
                type(eid) is str and eid and type(agent) is str and agent and type(typ) is str
                and (tt is float or tt is int) and 0 <= t <= MAX_FLOAT
            ):
                slow(i, ev)
                continue
            tc = type_code(typ)
            if tc is None:
                slow(i, ev)
                continue
            to = frm = dec = None
            if len(ev) != 4:
                ok = True
                extra = None
                for k, v in ev.items():
                    if k in required:
                        continue
                    tv = type(v)
                    if k in opt_str:
                        if tv is not str:
                            ok = False
                            break
                        if k == "to":
                            to = v
                        elif k == "from":
                            frm = v
                    elif k in opt_num:
                        if not ((tv is int or tv is float) and 0 <= v <= MAX_FLOAT):
                            ok = False
                            break
                        if extra is None:
                            extra = []
                        extra.append((k, v))
                    elif k == "decision":
                        if not (tv is str and v in _DECISION_SET and tc in _DECISION_TYPES and (tc == OD or v == "O5")):
                            ok = False
                            break
                        dec = v
                    elif k == "trusted":
                        if tv is not bool:
                            ok = False
                            break
                    elif tv is dict or tv is list or tv is NonFinite or (tv is float and not v - v == 0.0):
                        ok = False
                        break
                if not ok:
                    slow(i, ev)
                    continue
                if extra is not None:
                    for k, v in extra:
                        sums[k] += v
                if dec is not None:
                    key = (tc, dec)
                    decisions[key] = decisions.get(key, 0) + 1
            id_append(eid)
            t_append(t)
            type_append(tc)
            ac = codes_get(agent)
            if ac is None:
                ac = self._code(agent)
            agent_append(ac)
            if tc in LINK_TYPES:
                if frm is None:
                    sender = ac
                else:
                    sender = codes_get(frm)
                    if sender is None:
                        sender = self._code(frm)
                if to is None:
                    to_code = -1
                else:
                    to_code = codes_get(to)
                    if to_code is None:
                        to_code = self._code(to)
                link_append((i, tc, sender, to_code))

    def edges(self, start: int, items: list) -> None:
        """Check edges ``start, start+1, ...``; the common case inline, anything unusual via :meth:`edge`."""
        if not self.events_done:
            for j, ed in enumerate(items, start):
                self.edge(j, ed)
            return
        ids_get = self.ids.get
        ts = self.t
        src_append = self.esrc.append
        dst_append = self.edst.append
        idx_append = self.eidx.append
        type_append = self.etype.append
        edge_code = EDGE_CODE.get
        slow = self.edge
        j = start - 1
        for ed in items:
            j += 1
            if type(ed) is not dict or len(ed) != 3:
                slow(j, ed)
                continue
            try:
                src = ed["src"]
                dst = ed["dst"]
                typ = ed["type"]
            except KeyError:
                slow(j, ed)
                continue
            # Only strings are keys of ``ids`` and ``EDGE_CODE``: a hit proves the type.
            try:
                s = ids_get(src)
                d = ids_get(dst)
                code = edge_code(typ)
            except TypeError:  # an unhashable value (array, object)
                slow(j, ed)
                continue
            if s is not None and d is not None and code is not None and ts[s] < ts[d]:
                src_append(s)
                dst_append(d)
                idx_append(j)
                type_append(code)
                continue
            slow(j, ed)

    # -- events --------------------------------------------------------------------
    def event(self, i: int, ev) -> None:
        """Check event ``i`` (any JSON value) and append its columns."""
        t_ = NAN
        tc = NO_TYPE
        ac = -1
        if type(ev) is not dict:
            self._schema(f"$.events[{i}]", f"an event must be a JSON object, got {show(ev)}")
            self.id_list.append(None)
            self.t.append(t_)
            self.types.append(tc)
            self.agents.append(ac)
            return
        try:
            eid = ev["id"]
            t = ev["t"]
            typ = ev["type"]
            agent = ev["agent"]
        except KeyError:
            eid = ev.get("id")
            t = ev.get("t")
            typ = ev.get("type")
            agent = ev.get("agent")
        if type(typ) is str:
            tc = TYPE_CODE.get(typ, NO_TYPE)
        tt = type(t)
        if (
            type(eid) is str and eid and type(agent) is str and agent and tc != NO_TYPE
            and (tt is int or tt is float) and 0 <= t <= MAX_FLOAT
        ):
            t_ = t
            label = f"event {eid}: "
            id_ok = True
        else:
            id_ok, t_, agent = self._event_core(i, ev, eid, t, typ, agent, tc)
            label = f"event {eid}: " if id_ok else f"event at index {i}: "
        to = frm = None
        if len(ev) != 4 or not id_ok:
            to = frm = None
            for k, v in ev.items():
                if k in _REQUIRED:
                    continue
                if k in _OPT_STR:
                    if type(v) is str:
                        if k == "to":
                            to = v
                        elif k == "from":
                            frm = v
                    else:
                        if k == "to":
                            to = False
                        self._schema(f"$.events[{i}].{k}", f"{label}{k} must be a string, got {show(v)}")
                elif k in _OPT_NUM:
                    tv = type(v)
                    if (tv is int or tv is float) and 0 <= v <= MAX_FLOAT:
                        self.sums[k] += v
                    else:
                        why = _nonfinite(v)
                        if why:
                            self._other(f"$.events[{i}].{k}", label + why)
                        else:
                            self._schema(f"$.events[{i}].{k}", f"{label}{k} must be a number >= 0, got {show(v)}")
                elif k == "decision":
                    self._decision(i, v, typ, tc, label)
                elif k == "trusted":
                    if type(v) is not bool:
                        self._schema(f"$.events[{i}].trusted", f"{label}trusted must be a boolean, got {show(v)}")
                else:
                    tv = type(v)
                    if tv is dict or tv is list:
                        self._free(v, key_path(f"$.events[{i}]", k), label, 4)
                    elif tv is float or tv is NonFinite:
                        why = _nonfinite(v)
                        if why:
                            self._other(key_path(f"$.events[{i}]", k), label + why)
        self.id_list.append(eid if id_ok else None)
        if agent is not None:
            ac = self.agent_code.get(agent)
            if ac is None:
                ac = self._code(agent)
        self.t.append(t_)
        self.types.append(tc)
        self.agents.append(ac)
        if tc in LINK_TYPES:
            codes = self.agent_code
            if frm is None:
                sender = ac
            else:
                sender = codes.get(frm)
                if sender is None:
                    sender = self._code(frm)
            if to is None:
                to_code = -1
            elif to is False:
                to_code = -2
            else:
                to_code = codes.get(to)
                if to_code is None:
                    to_code = self._code(to)
            self.links.append((i, tc, sender, to_code))

    def _event_core(self, i, ev, eid, t, typ, agent, tc):
        """Slow path: report problems with the required keys; returns (id ok, t, agent)."""
        where = f"$.events[{i}]"
        id_ok = type(eid) is str and bool(eid)
        label = f"event {eid}: " if id_ok else f"event at index {i}: "
        for req in EVENT_REQUIRED:
            if req not in ev:
                self._schema(where, f"{label}missing required key '{req}'")
        if "id" in ev and not id_ok:
            self._schema(f"{where}.id", f"{label}id must be a non-empty string, got {show(eid)}")
        t_ = NAN
        if "t" in ev:
            why = _nonfinite(t)
            if why:
                self._other(f"{where}.t", label + why)
            elif _is_num(t) and t >= 0:
                t_ = t
            else:
                self._schema(f"{where}.t", f"{label}t must be a number >= 0, got {show(t)}")
        if "type" in ev and tc == NO_TYPE:
            self._schema(f"{where}.type", f"{label}{show(typ)} is not an event type; allowed: {', '.join(EVENT_TYPES)}")
        if "agent" in ev and not (type(agent) is str and agent):
            self._schema(f"{where}.agent", f"{label}agent must be a non-empty string, got {show(agent)}")
        return id_ok, t_, agent if type(agent) is str and agent else None

    def _decision(self, i: int, v, typ, tc: int, label: str) -> None:
        where = f"$.events[{i}].decision"
        if not (type(v) is str and v in _DECISION_SET):
            allowed = ", ".join(f"{d} ({DECISION_NAMES[d]})" for d in DECISIONS)
            self._schema(where, f"{label}{show(v)} is not a sub-decision; allowed: {allowed}")
            return
        if tc == NO_TYPE:
            return  # the type itself is reported (or missing)
        if tc not in _DECISION_TYPES:
            self._schema(where, f"{label}decision is only allowed on orchestrator_decision and stop events, not on {typ}")
        elif tc == STOP and v != "O5":
            self._schema(where, f"{label}a stop event's decision must be O5 (when to stop), got '{v}'")
        else:
            key = (tc, v)
            self.decisions[key] = self.decisions.get(key, 0) + 1

    # -- edges ---------------------------------------------------------------------
    def edge(self, j: int, ed) -> None:
        """Check edge ``j`` (any JSON value); resolve it now if all events are known."""
        if type(ed) is dict and len(ed) == 3:
            try:
                src = ed["src"]
                dst = ed["dst"]
                typ = ed["type"]
            except KeyError:
                src = None
            if type(src) is str and src and type(dst) is str and dst and type(typ) is str:
                code = EDGE_CODE.get(typ)
                if code is not None:
                    if not self.events_done:
                        self._pending.append((j, src, dst, code))
                        return
                    ids = self.ids
                    s = ids.get(src)
                    d = ids.get(dst)
                    if s is not None and d is not None:
                        ts = self.t
                        if ts[s] < ts[d]:  # the common case, inlined from _resolve
                            self.esrc.append(s)
                            self.edst.append(d)
                            self.eidx.append(j)
                            self.etype.append(code)
                            return
                    self._resolve(j, src, dst, code)
                    return
        self._edge_slow(j, ed)

    def _edge_slow(self, j: int, ed) -> None:
        where = f"$.edges[{j}]"
        if type(ed) is not dict:
            self._schema(where, f"an edge must be a JSON object, got {show(ed)}")
            return
        src, dst, typ = ed.get("src"), ed.get("dst"), ed.get("type")
        if type(src) is str and type(dst) is str and type(typ) is str:
            label = f"edge {src}->{dst} ({typ}): "
        else:
            label = f"edge at index {j}: "
        ok = True
        for req in EDGE_REQUIRED:
            if req not in ed:
                self._schema(where, f"{label}missing required key '{req}'")
                ok = False
        for end, value in (("src", src), ("dst", dst)):
            if end in ed and not (type(value) is str and value):
                self._schema(f"{where}.{end}", f"{label}{end} must be a non-empty string, got {show(value)}")
                ok = False
        code = EDGE_CODE.get(typ) if type(typ) is str else None
        if "type" in ed and code is None:
            self._schema(f"{where}.type", f"{label}{show(typ)} is not an edge type; allowed: {', '.join(EDGE_TYPES)}")
            ok = False
        for k in ed:
            if k not in ("src", "dst", "type"):
                self._schema(key_path(where, k), f"{label}unknown key '{k}'; an edge has only src, dst and type")
        if ok:
            if self.events_done:
                self._resolve(j, src, dst, code)
            else:
                self._pending.append((j, src, dst, code))

    def _resolve(self, j: int, src: str, dst: str, code: int) -> None:
        ids = self.ids
        s = ids.get(src)
        d = ids.get(dst)
        if s is None or d is None:
            if self.events_ok:
                label = f"edge {src}->{dst} ({EDGE_TYPES[code]}): "
                if s is None:
                    self._other(f"$.edges[{j}].src", f"{label}src {show(src)} is not an event id")
                if d is None:
                    self._other(f"$.edges[{j}].dst", f"{label}dst {show(dst)} is not an event id")
            return
        ts = self.t
        a = ts[s]
        b = ts[d]
        if not a < b:
            if a > b:
                self._backward = True
                self._other(
                    f"$.edges[{j}]",
                    f"edge {src}->{dst} ({EDGE_TYPES[code]}): time goes backwards along the edge: "
                    f"t={_fmt_t(a)} at {src} > t={_fmt_t(b)} at {dst}",
                )
            if code in ACYCLIC_EDGES:
                self._cycle_candidates.append((j, s, d, code))
        self.esrc.append(s)
        self.edst.append(d)
        self.eidx.append(j)
        self.etype.append(code)

    # -- whole-trace semantics ---------------------------------------------------------
    def finish(self) -> list[Problem]:
        """Run the checks that need the whole trace; returns all problems (unsorted)."""
        if not self.not_object:
            for req in TOP_REQUIRED:
                if req not in self.present:
                    self._schema("$", f"missing required key '{req}'")
        if self._pending:  # edges listed but events never streamed
            if self.events_ok:
                raise AssertionError("pending edges after events ended")  # pragma: no cover
            self._pending = []
        if self.events_ok:
            self._check_cycles()
            self._check_lifecycle()
            self._check_returns()
        return self.schema_problems + self.other_problems

    def _label(self, k: int) -> str:
        eid = self.id_list[k]
        return f"event {eid}" if eid is not None else f"event at index {k}"

    def _check_cycles(self) -> None:
        """Kahn's algorithm over spawn/causal/return edges.

        When no edge goes back in time, a cycle can only join events of equal ``t``,
        so only the equal-time edges are examined; otherwise all of them.
        """
        if self._backward:
            edges = [
                (self.eidx[k], self.esrc[k], self.edst[k], self.etype[k])
                for k in range(len(self.eidx))
                if self.etype[k] in ACYCLIC_EDGES
            ]
        else:
            edges = self._cycle_candidates
        if not edges:
            return
        edge_type = {j: code for j, _s, _d, code in edges}
        succ: dict[int, list[tuple[int, int]]] = {}
        indeg: dict[int, int] = {}
        for j, s, d, _code in edges:
            succ.setdefault(s, []).append((j, d))
            indeg[d] = indeg.get(d, 0) + 1
            indeg.setdefault(s, 0)
        queue = [v for v, k in indeg.items() if k == 0]
        for v in queue:
            for _, d in succ.get(v, ()):
                indeg[d] -= 1
                if indeg[d] == 0:
                    queue.append(d)
        left = {v for v, k in indeg.items() if k > 0}
        if not left:
            return
        pred: dict[int, tuple[int, int]] = {}  # node -> (edge index, predecessor) inside the cycle part
        for j, s, d, _code in sorted(edges):
            if s in left and d in left and d not in pred:
                pred[d] = (j, s)
        done: set[int] = set()
        for start in sorted(left):
            if start in done:
                continue
            order: dict[int, int] = {}
            walk: list[int] = []
            v = start
            while v not in order and v not in done:
                order[v] = len(walk)
                walk.append(v)
                v = pred[v][1]
            done.update(walk)
            if v not in order:
                continue
            cycle = walk[order[v]:]  # each node's predecessor is the next one: reversed order
            cycle.reverse()  # now each node's successor is the next one
            links = [pred[cycle[(k + 1) % len(cycle)]][0] for k in range(len(cycle))]
            k_last = max(range(len(links)), key=links.__getitem__)
            j = links[k_last]
            names = [self.id_list[cycle[(k_last + 1 + k) % len(cycle)]] for k in range(len(cycle))]
            names.append(names[0])
            src, dst = self.id_list[cycle[k_last]], self.id_list[cycle[(k_last + 1) % len(cycle)]]
            typ = EDGE_TYPES[edge_type[j]]
            self._other(
                f"$.edges[{j}]",
                f"edge {src}->{dst} ({typ}): closes a cycle of spawn/causal/return edges: {' -> '.join(names)}",
            )

    def _lifecycles(self):
        """Live spans of the agents that are spawned or despawned.

        Returns ``(once, lives)``: ``once`` maps an agent spawned exactly once and never
        despawned to ``(spawn t, spawn index)`` (the common case, checked with one
        comparison); ``lives`` maps every other such agent to its sorted spans
        ``[(start t, end t, spawn index or -1, despawn index or -1)]`` (a root, never
        spawned, starts at -inf; an open span ends at +inf).
        """
        once: dict[int, tuple[float, int]] = {}
        entries: dict[int, list[tuple[float, int, int]]] = {}
        ts = self.t
        agents = self.agents
        for idx, tc, _sender, to in self.links:
            if tc == SPAWN:
                if to < 0:
                    continue
                if to in entries:
                    entries[to].append((ts[idx], idx, 0))
                elif to in once:
                    entries[to] = [(*once.pop(to), 0), (ts[idx], idx, 0)]
                else:
                    once[to] = (ts[idx], idx)
            elif tc == DESPAWN:
                target = to if to >= 0 else (agents[idx] if to == -1 else -1)
                if target < 0:
                    continue
                if target in once:
                    entries[target] = [(*once.pop(target), 0)]
                entries.setdefault(target, []).append((ts[idx], idx, 1))
        lives = {}
        for code, items in entries.items():
            items.sort()
            alive = not any(kind == 0 for _t, _i, kind in items)  # a root starts alive
            start, first = -INF, -1
            spans = []
            for tval, idx, kind in items:
                if tval != tval:
                    continue
                if kind == 0 and not alive:
                    alive, start, first = True, tval, idx
                elif kind == 1 and alive:
                    spans.append((start, tval, first, idx))
                    alive = False
            if alive:
                spans.append((start, INF, first, -1))
            lives[code] = spans
        return once, lives

    def _check_lifecycle(self) -> None:
        once, lives = self._lifecycles()
        if not once and not lives:
            return
        simple = {code: value[0] for code, value in once.items()}
        starts = {code: [span[0] for span in spans] for code, spans in lives.items()}
        ts = self.t
        for i, code in enumerate(self.agents):
            lo = simple.get(code)
            if lo is not None:
                tval = ts[i]
                if tval >= lo or tval != tval:
                    continue
                spans = [(lo, INF, once[code][1], -1)]
                k = -1
            elif code in lives:
                tval = ts[i]
                if tval != tval:
                    continue
                spans = lives[code]
                k = bisect_right(starts[code], tval) - 1
                if k >= 0 and tval <= spans[k][1]:
                    continue
            else:
                continue
            name = self.agent_names[code]
            where = f"$.events[{i}].t"
            if k < 0 and spans:
                first = spans[0][2]
                self._other(
                    where,
                    f"{self._label(i)}: agent '{name}' acts at t={_fmt_t(tval)} before it is spawned "
                    f"(first spawn: {self._label(first)} at t={_fmt_t(ts[first])})",
                )
            elif k < 0:
                self._other(where, f"{self._label(i)}: agent '{name}' acts at t={_fmt_t(tval)} but is never alive")
            else:
                gone = spans[k][3]
                self._other(
                    where,
                    f"{self._label(i)}: agent '{name}' acts at t={_fmt_t(tval)} after it was despawned "
                    f"({self._label(gone)} at t={_fmt_t(ts[gone])})",
                )

    def _check_returns(self) -> None:
        contact: dict[tuple[int, int], float] = {}
        returns = []
        ts = self.t
        for link in self.links:
            idx, tc, sender, to = link
            if tc == RETURN:
                returns.append(link)
            elif tc in CONTACT_TYPES and to >= 0:
                key = (sender, to)
                tval = ts[idx]
                if tval < contact.get(key, INF):
                    contact[key] = tval
        names = self.agent_names
        for idx, _tc, sender, to in returns:
            tval = ts[idx]
            if to == -2 or sender < 0 or tval != tval:
                continue  # the schema check reports the bad 'to', 'agent' or 't'

            if to == -1:
                self._other(f"$.events[{idx}]", f"{self._label(idx)}: a return must name the agent it returns to in 'to'")
                continue
            first = contact.get((to, sender))
            if first is None or not first <= tval:
                self._other(
                    f"$.events[{idx}].to",
                    f"{self._label(idx)}: return from '{names[sender]}' goes to '{names[to]}', which did not spawn "
                    f"'{names[sender]}' or send it a message or delegation at or before t={_fmt_t(tval)}",
                )
