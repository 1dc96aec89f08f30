"""The exact trace validator: the JSON Schema rules written out, plus graph semantics.

The per-event checks are in :mod:`masrl.trace.event_checks`, the per-edge checks in
:mod:`masrl.trace.edge_checks`, the graph rules in :mod:`masrl.trace.rules`; this
module holds the columns, the top-level checks and the order in which they run. The
typed fast path (:mod:`masrl.trace.typed`) fills the same columns when it accepts.

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
    * the rewards' sum, and their sum per credit unit, fit a double (so do the sums
      of the events' ``tokens``, ``cost`` and ``duration_s``);
    * event ids are unique; every edge's src and dst are event ids;
    * time never decreases along an edge: ``t[src] <= t[dst]``;
    * spawn, causal and return edges form no cycle;
    * no agent spawns itself (a spawn's ``to`` differs from its sender, ``from``
      else ``agent``);
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

from array import array

from ..core.errors import Problem
from . import rules
from .codes import INF, is_num, nonfinite, number_sum, show
from .edge_checks import EdgeChecks
from .event_checks import EventChecks
from .load import MAX_DEPTH, NonFinite, key_path, one_line
from .schema import (
    COST_NONNEGATIVE,
    COST_REQUIRED,
    CREDIT_UNITS,
    TOP_KEYS,
    TOP_REQUIRED,
    TOPOLOGIES,
)

_TOPOLOGY_SET = frozenset(TOPOLOGIES)
_UNIT_SET = frozenset(CREDIT_UNITS)
_TOP_SET = frozenset(TOP_KEYS)
_STRING_TOP = ("schema_version", "trace_id", "task_id", "system")

class TraceChecker(EventChecks, EdgeChecks):
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
        self.numbers: dict[str, list] = {key: [] for key in self.sums}  # per-event values, summed at finish
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
                why = nonfinite(node)
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
        elif key in ("labels", "annotations"):
            if type(value) is not dict:
                self._schema(path, f"must be an object of {key} (strings, numbers or booleans), got {show(value)}")
                return
            for name, label in value.items():
                t = type(label)
                if t is NonFinite or (t is float and not label - label == 0.0):
                    self._other(key_path(path, name), nonfinite(label))
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
            why = nonfinite(v)
            if why:
                self._other(where, why)
            elif not is_num(v):
                self._schema(where, f"must be a number{' >= 0' if costs else ''}, got {show(v)}")
            elif v < 0 and costs:
                # tokens, wall_clock_s, tool_calls, messages: schema; any other cost: masrl rule
                (self._schema if k in nonnegative else self._other)(where, f"must be a number >= 0, got {show(v)}")

    # -- fast paths: a chunk of events / edges at a time -----------------------------
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
        rules.check_reward_sums(self)
        if self.events_ok:
            rules.check_cycles(self)
            rules.check_self_spawns(self)
            rules.check_lifecycle(self)
            rules.check_returns(self)
        for key, values in self.numbers.items():
            try:
                self.sums[key] = number_sum(values)
            except OverflowError:  # every value finite, their sum not
                self._other("$.events", f"the sum of the events' {key} overflows a double ({show(INF)}); "
                                        "the per-event values are too large to measure")
        return self.schema_problems + self.other_problems

    def _label(self, k: int) -> str:
        return rules.label(self, k)

