"""Linking and repairing a span tree before events are emitted (rules in spantree's docstring).

Duplicate ids, self-parents and parent cycles drop spans (the tokens of a self-parent or a
cycle are counted in ``costs.tokens`` alone; a duplicate is taken for a copy of the first); unended spans end with
their subtree; orphans go to the agent span that contains them in time; clock skew
is repaired by shifting subtrees and clamping ends. Every repair appends a note.
"""

from __future__ import annotations

from .span import AGENT, Span, ms_text, subtree


class SpanTree:
    """Links, repairs and orders the spans (every walk iterative)."""

    def __init__(self, spans: list[Span], notes: list[str]):
        self.notes = notes
        by_id: dict[str, Span] = {}
        for span in spans:
            if span.span_id in by_id:
                kept = f" (its {span.tokens} tokens are not counted)" if span.tokens else ""
                notes.append(f"unmapped {span.label}: duplicate span id; the first one is kept{kept}")
                continue
            by_id[span.span_id] = span
        self.by_id = by_id
        _unset_starts(list(by_id.values()), notes)
        # ties in time are broken by the spans' times and ids, never by where the export put them (a batch
        # exporter writes children before parents): a zero-length span starting with a sibling comes first
        for rank, span in enumerate(sorted(by_id.values(), key=_canonical)):
            span.order = rank
        roots, orphans, dropped = [], [], []
        for span in by_id.values():
            if span.end is not None and span.end < span.start:
                notes.append(f"{span.label}: ends {ms_text(span.start - span.end)} before it starts; its end is set to its start")
                span.end = span.start
            if span.parent_id == span.span_id:
                dropped.append((span, "it is its own parent"))
                span.kind = "dropped"
                continue
            parent = by_id.get(span.parent_id) if span.parent_id else None
            if parent is not None:
                span.parent = parent
                parent.children.append(span)
            elif span.parent_id:
                orphans.append(span)
            else:
                roots.append(span)
        reached = set()
        for top in roots + orphans:
            reached.update(id(s) for s in subtree(top))
        for span in by_id.values():
            if id(span) not in reached and span.kind != "dropped":
                dropped.append((span, "its parent chain is a cycle"))
                span.kind = "dropped"
        #: Tokens of the spans that produce no event (self-parents, cycles): counted in costs.tokens alone.
        self.dropped_tokens = 0
        for span, why in dropped:
            tokens = _unlinked_tokens(span)
            self.dropped_tokens += tokens
            if tokens:
                why += f"; its {tokens} tokens are counted in costs.tokens only"
            elif span.tokens:
                why += f"; its {span.tokens} tokens are taken as a roll-up of the usage below it, which is counted instead"
            notes.append(f"unmapped {span.label}: {why}")
        self._end_unended(roots + orphans)
        self.roots = roots
        self._attach_orphans(orphans)
        for root in self.roots:
            self._repair_times(root)
        live = [s for top in self.roots for s in subtree(top)]
        self.t0 = min((s.start for s in live), default=0)
        self.t_end = max((s.end for s in live), default=self.t0)
        self.roots.sort(key=lambda s: (s.start, s.order))
        for span in live:
            span.children.sort(key=lambda s: (s.start, s.order))

    def _end_unended(self, tops: list[Span]) -> None:
        for top in tops:
            for span in reversed(list(subtree(top))):  # children before parents
                if span.end is None:
                    latest = max([span.start] + [max(c.start, c.end) for c in span.children])
                    what = "the latest time in its subtree" if span.children else "its start"
                    self.notes.append(f"{span.label}: never ended; its end is set to {what} (+{ms_text(latest - span.start)})")
                    span.end = latest

    def _root_of(self, span: Span) -> Span:
        while span.parent is not None:
            span = span.parent
        return span

    def _attach_orphans(self, orphans: list[Span]) -> None:
        agents = [
            s for top in self.roots + orphans for s in subtree(top) if s.kind == AGENT and not s.create
        ]
        for orphan in orphans:
            best = None
            for cand in agents:
                if cand.start <= orphan.start and orphan.end <= cand.end and self._root_of(cand) is not orphan:
                    key = (cand.end - cand.start, -cand.start, cand.order)
                    if best is None or key < best[0]:
                        best = (key, cand)
            if best is None:
                self.notes.append(
                    f"{orphan.label}: parent {orphan.parent_id} is not in the input and no agent span contains it "
                    "in time; treated as a root"
                )
                self.roots.append(orphan)
                continue
            agent = best[1]
            orphan.parent = agent
            agent.children.append(orphan)
            self.notes.append(
                f"{orphan.label}: parent {orphan.parent_id} is not in the input; attached to agent "
                f"'{agent.agent}' ({agent.label}), whose span contains it in time"
            )

    def _repair_times(self, root: Span) -> None:
        stack = [root]
        while stack:
            parent = stack.pop()
            for child in parent.children:
                if child.start < parent.start:
                    delta = parent.start - child.start
                    moved = list(subtree(child))
                    for s in moved:
                        s.start += delta
                        s.end += delta
                    others = f" and its {len(moved) - 1} descendant spans" if len(moved) > 1 else ""
                    self.notes.append(
                        f"{child.label}: starts {ms_text(delta)} before its parent {parent.label} (clock skew); "
                        f"it{others} shifted by +{ms_text(delta)}"
                    )
                if child.start > parent.end:
                    self.notes.append(
                        f"{child.label}: starts {ms_text(child.start - parent.end)} after its parent {parent.label} "
                        "ended; its start and end are clamped to the parent's end"
                    )
                    child.start = child.end = parent.end
                elif child.end > parent.end:
                    self.notes.append(
                        f"{child.label}: ends {ms_text(child.end - parent.end)} after its parent {parent.label}; "
                        "its end is clamped to the parent's end"
                    )
                    child.end = parent.end
                stack.append(child)


def _unlinked_tokens(span: Span) -> int:
    """The usage of a span outside the tree (its parent chain a cycle), unless a span below it
    carries usage too (then its own is their roll-up, as for a span of the tree): its children
    are walked with a guard, since they may lead back to it."""
    if span.tokens is None:
        return 0
    seen, stack = {id(span)}, list(span.children)
    while stack:
        below = stack.pop()
        if id(below) in seen:
            continue
        if below.tokens is not None:
            return 0
        seen.add(id(below))
        stack.extend(below.children)
    return span.tokens


def _canonical(span: Span) -> tuple:
    """A span's place among spans that start together: the shorter first (one that never ended last), then by id."""
    return (span.start, span.end is None, span.end if span.end is not None else 0, span.span_id)


#: A year in nanoseconds: a trace with a span starting later than this after 1970 is timed by the clock, not from 0.
_YEAR_NS = 365 * 24 * 3600 * 10**9


def _unset_starts(spans: list[Span], notes: list[str]) -> None:
    """A start of 0 in a trace whose other spans start at clock times is no time (OTLP's unset value, a 1970 start):
    such a span starts with its first child, else at its end (a span of no length), else with the trace's first
    span; with a note."""
    clocked = [s.start for s in spans if s.start >= _YEAR_NS]
    if not clocked:
        return  # a trace timed from 0: 0 is its first instant
    for span in spans:
        if span.start != 0:
            continue
        children = [s.start for s in spans if s.parent_id == span.span_id and s.start >= _YEAR_NS]
        if children:
            span.start, what = min(children), "its first child's start"
        elif span.end is not None and span.end >= _YEAR_NS:
            span.start, what = span.end, "its end"
        else:
            span.start, what = min(clocked), "the trace's first start"
        notes.append(f"{span.label}: starts at 0 (1970, an unset time) among spans timed by the clock; its start is set "
                     f"to {what}")
