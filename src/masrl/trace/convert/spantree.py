"""A tree of timed spans -> an orchestration trace (shared by every span-based converter).

Each converter reads its format into :class:`Span` objects (OpenTelemetry spans,
Langfuse observations, OpenAI Agents SDK spans) with a ``kind`` decided by the
format's own vocabulary; :func:`build_trace` then repairs the tree and emits the
events and edges. The rules (this project's, table in docs/traces.md):

Repairs, each listed in the notes:

* a duplicate span id, a span that is its own parent or whose parent chain is a cycle
  produces no event; the tokens of the last two are counted in ``costs.tokens`` alone (a
  duplicate is taken for a copy of the first span of its id, and the note names its tokens);
* a span that never ended (no end, or an end of 0) ends at the latest time in its
  subtree (its own start if it has no children);
* an end before the start is set to the start;
* a span whose parent is not in the input (an *orphan*) is attached to the shortest
  agent span that contains it in time (so its tools and tokens belong to that agent);
  if none does it is a root, acting for the application;
* clock skew: a child that starts before its parent is shifted, with its whole
  subtree, to start with the parent (the offset is named); a child that still ends
  after its parent (async SDKs end children a little late) is clamped to the
  parent's end.

Mapping by kind (``AGENT``, ``TOOL``, ``MODEL``, ``HANDOFF``, ``GUARDRAIL``, or ``""``
for a span with no event of its own):

* The application (a service name, a Langfuse trace name, an Agents SDK workflow) is
  not an agent: it starts the run and takes no part in it. An AGENT span with no agent
  span above it is a *root agent* of the run: no spawn (nobody spawned it), its
  children act for it, and its end is a ``stop`` event of that agent (its part of the
  run ends; its tokens go there). A root AGENT span named after the application that
  runs other agent spans is the application's own wrapper (a Langfuse trace of the
  OpenAI Agents SDK exports its workflow as an AGENT observation): no event, and the
  agents inside it are the root agents; named after the application but running no
  agent, it is the run's agent. A create-only agent span (OTel ``create_agent``) with
  no agent above it has no event (the application creates an agent; no agent spawns).
* AGENT span of agent A called by agent C -> ``spawn`` (agent C, to A) at its start and
  ``return`` (agent A, from A, to C) at its end. A create-only agent span -> one ``spawn``.
  An AGENT span directly inside an AGENT span of the same agent (a client span on
  the caller's side and an internal span on the agent's side of one invocation) is
  merged into it: one spawn and one return (or one stop). Any other AGENT span whose
  caller would be its own agent (a create or invocation of A somewhere below A) is no
  spawn either (an agent that spawned itself would count as fan-out and depth); it is
  noted, and its children act for A.
* TOOL -> ``tool_call`` (the owning agent) at its start, ``tool_result`` (agent and
  tool: the tool's name, as in the survey's example) at its end.
* MODEL inside an agent that starts other agents or hands off -> ``orchestrator_decision``
  at its end; inside a leaf agent -> no event, its tokens go to the agent's ``return``
  or ``stop`` (counted as folded). Outside any agent -> no event (the application is
  not an agent, and a model call that decides nothing is no orchestration decision);
  its tokens are counted in ``costs.tokens`` only, and the note says so.
* HANDOFF -> ``orchestrator_decision`` with ``decision: O2`` (whom to delegate to),
  ``from`` and ``to`` the two agents, at its start, by the owning agent (outside any
  agent: by its ``from`` agent).
* GUARDRAIL -> ``safety_event`` at its end (``guardrail``: name, ``triggered``).
* ``""`` -> no event; its children attach to the nearest mapped ancestor.

Tokens: a span's own tokens count only if no descendant carries tokens (totals
rolled up into parents are not counted twice). Tokens of a span without an event
(a transparent span, a merged span) go to the return (or stop) of the agent that owns it, or
to ``costs.tokens`` alone outside any agent; the note names the amount. Nothing is
dropped silently.
"""

from __future__ import annotations

import heapq

from .common import Conversion, ConvertError, escaped_names
from .repair import SpanTree
from .span import AGENT, GUARDRAIL, HANDOFF, MODEL, TOOL, Span, own_tokens, subtree

__all__ = ["AGENT", "GUARDRAIL", "HANDOFF", "MODEL", "TOOL", "Span", "build_trace"]

def build_trace(
    spans: list[Span],
    notes: list[str],
    *,
    trace_id: str,
    task_id: str,
    system: str,
    labels: dict | None = None,
    read_total: int | None = None,
) -> Conversion:
    """Repair the span tree and emit the trace (rules in the module docstring).

    Args:
        spans: the spans of one trace, in input order (``order`` breaks time ties).
        notes: notes of the reader so far (unreadable spans start with ``unmapped``);
            this function appends its own.
        trace_id, task_id, system: copied to the trace.
        labels: run/step/policy labels found in the input (``labels`` of the trace).
        read_total: spans read including the unreadable ones (default: computed).

    Raises:
        ConvertError: no span produced an event.
    """
    total = read_total if read_total is not None else len(spans) + sum(n.startswith("unmapped") for n in notes)
    tree = SpanTree(spans, notes)
    builder = _Builder(tree)
    builder.run()
    if not builder.events:
        raise ConvertError(
            "no span could be mapped to an event (an orchestration trace needs an agent, tool, handoff or "
            "guardrail span, or a model call that starts one): " + "; ".join(notes)
        )
    failed = [span for span in spans if span.error is not None]
    if failed:
        shown = "; ".join(f"{span.label}" + (f": {span.error[:200]!r}" if span.error else "") for span in failed[:3])
        notes.append(f"{len(failed)} span(s) ended in an error, which a trace of this schema has no field for; their events "
                     f"are kept as the spans ran: {shown}" + (f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""))
    unmapped = sum(1 for n in notes if n.startswith("unmapped"))
    events = sorted(builder.events, key=lambda e: (e["t"], builder.rank[e["id"]]))
    t0, t_end = tree.t0, tree.t_end
    trace = {
        "trace_id": trace_id,
        "task_id": task_id,
        "system": system,
        "topology": "unknown",
        "events": events,
        "edges": builder.edges,
        "rewards": {},
        "costs": {
            "tokens": builder.tokens,
            "wall_clock_s": round((t_end - t0) / 1e9, 9),
            "tool_calls": builder.tool_calls,
            "messages": 0,
        },
    }
    if labels:
        trace["labels"] = labels
    summary = (
        f"converted {total - unmapped} of {total} spans into {len(events)} events and "
        f"{len(builder.edges)} edges; {unmapped} unmapped; {builder.tokens} tokens counted"
    )
    if builder.folded:
        summary += (
            f"; {builder.folded} model-call spans of leaf agents folded into their agent's return or stop "
            f"({builder.folded_tokens} tokens)"
        )
    escaped_names(trace, notes)
    notes[:0] = [summary]
    return Conversion(trace, notes, unmapped, total)


def _root_agents(roots: list[Span]) -> dict[str, Span]:
    """Agent name -> the earliest AGENT span of it with no agent span above (a root agent of the
    run, which nobody spawns), as :meth:`_Builder._classify` will find them."""
    out: dict[str, Span] = {}
    for root in roots:
        stack = [root]
        while stack:
            span = stack.pop()
            if span.kind == AGENT and not span.merged and not span.create:
                if span.agent not in out or (span.start, span.order) < (out[span.agent].start, out[span.agent].order):
                    out[span.agent] = span
                continue  # agent spans below it are called by it
            stack.extend(span.children)
    return out


def _runs_agents(span: Span) -> bool:
    """Whether an agent span of another agent than ``span``'s lies below it."""
    return any(s.kind == AGENT and s.agent != span.agent for s in subtree(span) if s is not span)


class _Builder:
    """Classifies the spans and emits events and edges."""

    def __init__(self, tree: SpanTree):
        self.tree = tree
        self.notes = tree.notes
        self.t0 = tree.t0
        self.events: list[dict] = []
        self.edges: list[dict] = []
        self.rank: dict[str, int] = {}
        self.tokens = tree.dropped_tokens
        self.tool_calls = 0
        self.folded = 0
        self.folded_tokens = 0

    def run(self) -> None:
        roots = self.tree.roots
        self._merge_invocations(roots)
        for root in roots:
            for span in reversed(list(subtree(root))):
                span.usage_below = any(c.tokens is not None or c.usage_below for c in span.children)
                span.agents_below = any(
                    (c.kind == AGENT and not c.merged) or c.kind == HANDOFF or c.agents_below for c in span.children
                )
        self.root_agents = _root_agents(roots)
        ordered: list[Span] = []
        for root in roots:
            ordered.extend(self._classify(root))
        for span in ordered:
            if span.tokens and span.usage_below and span.kind != "dropped":
                below = sum(own_tokens(s) for s in subtree(span) if s is not span and s.kind != "dropped")
                more = (f"; they are {span.tokens - below} more than the {below} counted below it (spans not exported?), "
                        "which are not counted") if span.tokens > below else ""
                self.notes.append(
                    f"{span.label}: its {span.tokens} tokens are taken as a roll-up of its descendants' usage, "
                    f"which is counted instead{more}"
                )
        self.agent_names = {s.agent for s in ordered if s.kind == AGENT} | {s.app for s in ordered}
        self.agent_names |= {n for s in ordered if s.kind == HANDOFF for n in (s.handoff_from, s.handoff_to) if n}
        clashes = sorted({s.tool for s in ordered if s.kind == TOOL and s.tool in self.agent_names})
        if clashes:
            self.notes.append(
                "tool name(s) " + ", ".join(f"'{n}'" for n in clashes) + " are also agent names; their tool_result "
                "events act as 'tool:NAME' so that the tool is not taken for the agent"
            )
        for span in ordered:
            if span.kind in (AGENT, TOOL, MODEL, HANDOFF, GUARDRAIL) and not span.merged:
                self._emit(span)
        for span in ordered:  # a root agent enters the top-level order by its first child's first event
            if span.entry and span.last is not None:
                kids = self._mapped_children(span)
                span.first = kids[0].first if kids and kids[0].first["t"] <= span.last["t"] else span.last
        self._note_late_starts([s for s in ordered if s.entry and s.last is not None and not s.merged])
        for span in ordered:
            if span.first is not None and span.first is not span.last and span.kind in (AGENT, TOOL) and not span.entry:
                self._wire(span)
        top = []
        for root in roots:
            top.extend([root] if root.first is not None else self._mapped_children(root))
        self._chain(sorted(top, key=lambda s: (s.start, s.order)), None)
        for span in ordered:
            if span.entry and not span.merged:
                self._wire_entry(span)
        for span in ordered:  # tokens of leaf agents and transparent spans, on the return (or the spawn)
            if span.kind == AGENT and not span.merged and span.folded_tokens:
                last = span.last
                last["tokens"] = last.get("tokens", 0) + span.folded_tokens
                self.tokens += span.folded_tokens

    def _note_late_starts(self, entries: list[Span]) -> None:
        """Name the root agents (of a run with several) that began before their first event: the trace
        schema has no event for an agent's start, so in the trace such an agent is alive from its first
        event, and agents that overlapped in the run may not overlap there (peak concurrent agents)."""
        if len(entries) < 2:
            return
        late = [f"'{s.agent}' ({(s.start - self.tree.t0) / 1e9:g} s, first event {s.first['t']:g} s)" for s in entries
                if (s.start - self.tree.t0) / 1e9 < s.first["t"]]
        if late:
            self.notes.append(
                "root agent(s) " + ", ".join(late) + " began before their first event; nobody spawned them and the "
                "trace schema has no event for an agent's start, so in the trace each is alive from its first event "
                "(peak_concurrent_agents counts the overlap of those intervals)"
            )

    def _merge_invocations(self, roots: list[Span]) -> None:
        for root in roots:
            stack = [(root, None)]  # (span, nearest agent span above it with only transparent spans between)
            while stack:
                span, above = stack.pop()
                span.merged = False
                if span.kind == AGENT and not span.create:
                    if above is None and span.agent == span.app and span.parent is None and _runs_agents(span):
                        span.merged = True
                        self.notes.append(
                            f"{span.label}: agent '{span.agent}' is the application itself, which runs the agents "
                            "inside it; no event (an application is not an agent)"
                        )
                        below = None
                    elif above is not None and above.agent == span.agent:
                        span.merged = True
                        self.notes.append(
                            f"{span.label}: the same invocation of agent '{span.agent}' as {above.label} "
                            "(caller and agent side); merged into one spawn and one return"
                        )
                        below = above
                    else:
                        below = span
                elif span.kind:
                    below = None
                else:
                    below = above
                stack.extend((c, below) for c in span.children)

    def _classify(self, root: Span) -> list[Span]:
        """Decide owners (pre-order); returns the spans in that order."""
        stack = [(root, root.app, None)]
        order: list[Span] = []
        while stack:
            span, owner, owner_span = stack.pop()
            span.owner, span.owner_span = owner, owner_span
            child_owner, child_span = owner, owner_span
            kind = span.kind
            if kind == AGENT and not span.merged and owner_span is None:
                if span.create:
                    span.kind = kind = ""
                    span.op = (f"creates agent '{span.agent}' outside any agent span (the application, which is not "
                               "an agent, creates it; nobody spawns it)")
                else:
                    span.entry = True  # a root agent of the run: no spawn, its end is a stop
            elif kind == AGENT and not span.merged and span.agent == owner:  # e.g. a span of agent A below A's own
                span.merged = True
                self.notes.append(f"{span.label}: agent '{span.agent}' inside agent '{owner}' itself; no spawn or "
                                  "return (it would spawn itself)")
            elif kind == AGENT and not span.merged and span.agent in self.root_agents \
                    and self.root_agents[span.agent].start <= span.start:  # called after it began as a root agent
                span.merged = True
                self.notes.append(f"{span.label}: agent '{span.agent}' is a root agent of the run (nobody spawned it; "
                                  f"{self.root_agents[span.agent].label} began earlier); no spawn or return; what it "
                                  "does here is its own")
                owner, owner_span = span.agent, self.root_agents[span.agent]
                span.owner, span.owner_span = owner, owner_span
                child_owner, child_span = owner, owner_span
            if kind == AGENT and not span.merged:
                child_owner, child_span = span.agent, span
            elif kind == MODEL and owner_span is not None and not owner_span.agents_below:
                tokens = own_tokens(span)
                owner_span.folded_tokens += tokens
                self.folded += 1
                self.folded_tokens += tokens
                span.kind = "folded"
            elif kind == MODEL and owner_span is None:
                tokens = own_tokens(span)
                self.tokens += tokens
                span.kind = "folded"
                self.notes.append(
                    f"{span.label}: a model call outside any agent span: no event (the application is not an agent, "
                    "and the call decides nothing to orchestrate)"
                    + (f"; its {tokens} tokens are counted in costs.tokens only" if tokens else "")
                )
            elif kind == "" or (kind == AGENT and span.merged):
                tokens = own_tokens(span)
                where = (
                    f"counted on agent '{owner_span.agent}' (its return event)" if owner_span is not None
                    else "counted in costs.tokens only (no agent contains it)"
                )
                if kind == "":
                    text = f"unmapped {span.label}: {span.op or 'no event type'}; its children are kept"
                    self.notes.append(text + (f"; its {tokens} tokens are {where}" if tokens else ""))
                elif tokens:
                    self.notes.append(f"{span.label}: its {tokens} tokens are {where}")
                if tokens:
                    if owner_span is not None:
                        owner_span.folded_tokens += tokens
                    else:
                        self.tokens += tokens
            order.append(span)
            stack.extend((c, child_owner, child_span) for c in reversed(span.children))
        return order

    # -- events ----------------------------------------------------------------------
    def _event(self, id: str, nanos: int, type: str, agent: str, **fields) -> dict:
        event = {"id": id, "t": round((nanos - self.t0) / 1e9, 9), "type": type, "agent": agent}
        event.update({k: v for k, v in fields.items() if v is not None})
        self.rank[id] = len(self.events)
        self.events.append(event)
        return event

    def _emit(self, span: Span) -> None:
        sid = span.span_id
        tokens = own_tokens(span) or None
        self.tokens += tokens or 0
        if span.kind == AGENT and span.entry:
            span.last = self._event(f"{sid}:end", span.end, "stop", span.agent, role=span.role, tokens=tokens)
            return
        if span.kind == AGENT:
            if span.create:
                span.first = span.last = self._event(sid, span.start, "spawn", span.owner, to=span.agent, role=span.role, tokens=tokens)
                return
            span.first = self._event(f"{sid}:start", span.start, "spawn", span.owner, to=span.agent, role=span.role)
            span.last = self._event(
                f"{sid}:end", span.end, "return", span.agent, role=span.role, tokens=tokens,
                **{"from": span.agent, "to": span.owner},
            )
        elif span.kind == TOOL:
            self.tool_calls += 1
            span.first = self._event(f"{sid}:start", span.start, "tool_call", span.owner, tool=span.tool, tokens=tokens)
            actor = f"tool:{span.tool}" if span.tool in self.agent_names else span.tool
            span.last = self._event(f"{sid}:end", span.end, "tool_result", actor, tool=span.tool)
        elif span.kind == MODEL:
            span.first = span.last = self._event(sid, span.end, "orchestrator_decision", span.owner, tokens=tokens, model=span.model)
        elif span.kind == HANDOFF:
            actor = span.handoff_from if span.owner_span is None and span.handoff_from else span.owner
            span.first = span.last = self._event(
                sid, span.start, "orchestrator_decision", actor, decision="O2", tokens=tokens,
                **{"from": span.handoff_from, "to": span.handoff_to},
            )
        else:  # GUARDRAIL
            span.first = span.last = self._event(
                sid, span.end, "safety_event", span.owner, guardrail=span.guardrail, triggered=span.triggered, tokens=tokens,
            )

    # -- edges -----------------------------------------------------------------------
    def _link(self, src: dict, dst: dict) -> None:
        if dst["type"] == "spawn":
            typ = "spawn"
        elif dst["type"] == "tool_call":
            typ = "tool_dependency"
        elif dst["type"] == "tool_result" and src["type"] == "tool_call":
            typ = "return"
        else:
            typ = "causal"
        self.edges.append({"src": src["id"], "dst": dst["id"], "type": typ})

    @staticmethod
    def _mapped_children(span: Span) -> list[Span]:
        """Descendants that produce events, looking through spans that produce none."""
        out, stack = [], list(span.children)
        while stack:
            s = stack.pop()
            if s.first is not None:
                out.append(s)
            else:
                stack.extend(s.children)
        return sorted(out, key=lambda s: (s.start, s.order))

    def _chain(self, kids: list[Span], head) -> list:
        """Link sibling spans in start order; returns the end events nothing follows.

        A child depends on every earlier sibling's end that came no later than its
        start and that no other sibling consumed yet (a join); if there is none, it
        depends on what the previous child depended on (a fork), initially ``head``.
        """
        pending: list = []  # heap of (end, order, end event)
        fork = [head] if head is not None else []
        for kid in kids:
            ready = []
            while pending and pending[0][0] <= kid.start:
                ready.append(heapq.heappop(pending)[2])
            preds = ready or fork
            for pred in preds:
                if pred["t"] <= kid.first["t"]:
                    self._link(pred, kid.first)
            fork = preds
            end = kid.start if kid.kind == HANDOFF or (kid.kind == AGENT and kid.create) else kid.end
            heapq.heappush(pending, (end, kid.order, kid.last))
        return [event for _end, _order, event in sorted(pending, key=lambda x: (x[0], x[1]))]

    def _wire_entry(self, span: Span) -> None:
        """Edges inside a root agent's span: its children in start order, their last ends into its stop."""
        for end in self._chain(self._mapped_children(span), None):
            if end is not span.last and end["t"] <= span.last["t"]:
                self._link(end, span.last)

    def _wire(self, span: Span) -> None:
        """Edges inside an agent or tool span."""
        kids = self._mapped_children(span)
        if not kids:
            self._link(span.first, span.last)
            return
        for end in self._chain(kids, span.first):
            if end is not span.last and end["t"] <= span.last["t"]:
                self._link(end, span.last)
