"""Per-event checks of :class:`~masrl.trace.checker.TraceChecker` (a mixin).

:meth:`EventChecks.events` handles the common case of a chunk of events inline and
sends anything unusual to :meth:`EventChecks.event`, which reports every problem of
one event with its JSON path; both append the same columns.
"""

from __future__ import annotations

from .codes import (
    LINK_TYPES,
    MAX_EXACT,
    MAX_FLOAT,
    NAN,
    NO_TYPE,
    OD,
    STOP,
    TYPE_CODE,
    inexact_time,
    is_num,
    nonfinite,
    show,
)
from .load import NonFinite, key_path
from .schema import DECISION_NAMES, DECISIONS, EVENT_REQUIRED, EVENT_TYPES

_REQUIRED = frozenset(EVENT_REQUIRED)
_OPT_STR = frozenset(("role", "from", "to", "tool", "content_ref"))
_OPT_NUM = frozenset(("tokens", "cost", "duration_s"))
_DECISION_SET = frozenset(DECISIONS)
_DECISION_TYPES = frozenset((OD, STOP))


class EventChecks:
    """The event half of the checker (uses its ``_schema``, ``_other``, ``_code``, ``_free``)."""

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
        numbers = self.numbers
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
                and (tt is float or tt is int) and 0 <= t <= MAX_FLOAT and (tt is float or t <= MAX_EXACT)
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
                        numbers[k].append(v)
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
            and (tt is int or tt is float) and 0 <= t <= MAX_FLOAT and (tt is float or t <= MAX_EXACT)
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
                        self.numbers[k].append(v)
                    else:
                        why = nonfinite(v)
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
                        why = nonfinite(v)
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
            why = nonfinite(t) or inexact_time(t)
            if why:
                self._other(f"{where}.t", label + why)
            elif is_num(t) and t >= 0:
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
