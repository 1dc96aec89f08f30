"""One span of any source, as the span-based converters hand it to the tree builder.

A converter reads its format into :class:`Span` objects and sets ``kind`` from the
format's own vocabulary: :data:`AGENT`, :data:`TOOL`, :data:`MODEL`, :data:`HANDOFF`,
:data:`GUARDRAIL`, or ``""`` for a span with no event of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

AGENT, TOOL, MODEL, HANDOFF, GUARDRAIL = "AGENT", "TOOL", "MODEL", "HANDOFF", "GUARDRAIL"


@dataclass(eq=False)
class Span:
    """One span of any source, in nanoseconds since an epoch of the source's choice.

    ``start`` is required; ``end`` is ``None`` when the span never ended. ``tokens``
    is the span's own usage (input + output), ``None`` if it carries none.
    """

    span_id: str
    parent_id: str
    name: str
    start: int
    end: int | None
    kind: str
    order: int
    app: str = "application"
    op: str = ""  # why a span without a kind has no event, for notes ("type SPAN has no event type")
    agent: str = ""  # AGENT: the agent's identity
    role: str | None = None
    create: bool = False  # AGENT: creates the agent, does not run it
    tool: str = ""
    model: str | None = None
    tokens: int | None = None
    handoff_from: str | None = None
    handoff_to: str | None = None
    guardrail: str | None = None
    triggered: bool | None = None
    error: str | None = None  # the source's error of a span that failed ("" when it gives no text); None: no failure
    children: list = field(default_factory=list)
    parent: "Span | None" = None
    usage_below: bool = False
    agents_below: bool = False
    owner: str = ""
    owner_span: "Span | None" = None
    folded_tokens: int = 0
    merged: bool = False
    entry: bool = False  # AGENT: a root agent of the run (no agent span above it)
    first: dict | None = None
    last: dict | None = None

    @property
    def label(self) -> str:
        return f"span '{self.name}' ({self.span_id})"


def status_error(status, message=None, events=None) -> str | None:
    """The error of a span whose status says it failed: OpenTelemetry's ERROR in any of its spellings (``{"code": 2,
    "message": ...}``, ``{"status_code": "ERROR", "description": ...}``, ``"STATUS_CODE_ERROR"``) with the status's text,
    else ``message``, else the message of the span's ``exception`` event among ``events`` (where OpenTelemetry's
    ``record_exception`` and MLflow put it); "" when none gives one. None for a span that did not fail."""
    text = message
    if isinstance(status, dict):
        text = status.get("message") or status.get("description") or message
        status = status.get("code", status.get("status_code"))
    if not (isinstance(text, str) and text):
        text = _exception_message(events)
    failed = status == 2 if isinstance(status, int) and not isinstance(status, bool) else (
        isinstance(status, str) and status.strip().upper() in ("2", "ERROR", "STATUS_CODE_ERROR"))
    return (text if isinstance(text, str) else "") if failed else None


def _exception_message(events) -> str | None:
    """``exception.message`` of the first ``exception`` event of a span's events (attributes as a mapping, or as OTLP's
    ``[{key, value: {stringValue}}]``)."""
    for event in events if isinstance(events, list) else ():
        if not (isinstance(event, dict) and event.get("name") == "exception"):
            continue
        attributes = event.get("attributes")
        if isinstance(attributes, list):  # OTLP JSON
            attributes = {a.get("key"): (a.get("value") or {}).get("stringValue") for a in attributes
                          if isinstance(a, dict) and isinstance(a.get("value"), dict)}
        message = attributes.get("exception.message") if isinstance(attributes, dict) else None
        if isinstance(message, str) and message:
            return message
    return None


def ms_text(nanos: int) -> str:
    """A duration in nanoseconds as milliseconds to the microsecond (``1.5 ms``); below one microsecond, in
    nanoseconds (``40 ns``), never a ``0 ms`` that hides a real difference."""
    if 0 < abs(nanos) < 1000:
        return f"{nanos} ns"
    return f"{nanos / 1e6:.3f}".rstrip("0").rstrip(".") + " ms"


def subtree(span: Span):
    stack = [span]
    while stack:
        s = stack.pop()
        yield s
        stack.extend(s.children)


def own_tokens(span: Span) -> int:
    """The span's usage, unless a descendant carries usage too (then that is counted)."""
    return 0 if span.tokens is None or span.usage_below else span.tokens
