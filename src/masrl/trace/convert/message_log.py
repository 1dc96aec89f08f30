"""Multi-agent message logs (Who&When style) -> an orchestration trace.

Input: one log, a JSON object whose ``history`` is the list of messages in order, each
``{"role", "name" (optional), "content"}``; or several such logs one per line (JSON
Lines: choose one with ``trace_id``, matched against ``question_ID``). Who&When
(ag2ai/Agents_Failure_Attribution, MIT) writes two kinds:

* **hand-crafted** (Magentic-One): the speaker is in the role, and the orchestrator's
  acts are written into it: ``Orchestrator (thought)``, ``Orchestrator (-> WebSurfer)``,
  ``Orchestrator (termination condition)``; ``human`` opens the log with the task;
* **algorithm-generated** (AG2 group chats): the speaker is ``name`` and the role is
  the chat role (``user``/``assistant``).

Each message ``i`` becomes one event ``m<i>`` at ``t = i`` (an ordinal clock, as in the
survey's example: a log has no times) with ``step: i`` (the index that ``mistake_step``
counts), ``role`` (the role as written) and ``content_ref`` (``sha256:`` of the content:
no raw text is copied). Who acts: ``name``, else the role before its parenthesis.

=====================================  ===============================================
role                                   event
=====================================  ===============================================
``X (-> Y)``                           ``orchestrator_decision``, decision O2 (whom to
                                       delegate to), ``from`` X, ``to`` Y; X is the
                                       orchestrator
``X (thought)``                        ``orchestrator_decision`` (untagged); X is the
                                       orchestrator
``X (termination condition)``          ``stop``, decision O5 (when to stop)
``human`` (no name)                    ``human_intervention`` of ``human``
a message of Y after the               ``return`` from Y to the orchestrator (its answer)
orchestrator's last delegation to Y
any other message                      ``message`` (``to`` the orchestrator, if the log
                                       has one; a group chat's message goes to all)
=====================================  ===============================================

Edges: each message depends on the one before it (``causal``); the step right after a
delegation, or an answer to one, is linked by a ``message`` edge from the delegation.
Nobody is spawned (the agents of these systems exist from the start): fan-out and
depth are 0. ``topology`` is ``centralized`` when an orchestrator delegates, else
``unknown``. ``costs``: no tokens or times are logged (0), ``messages`` counts the
message events.

The log's labels become the trace's ``annotations``: ``outcome`` (``success`` or
``failure``, from ``is_correct``, or ``is_corrected`` as the hand-crafted logs spell
it), ``mistake_agent``, ``mistake_step`` (a number), ``mistake_event`` (the event id of
that step), ``mistake_reason``, ``mistake_type``, ``level`` and any other text, number or
yes/no value at the top level, except the raw content (``question``, ``ground_truth``,
``system_prompt``), which is named in a note and not copied. ``trace_id`` and
``task_id`` are ``question_ID``. A label of another type than the log's format gives it
(``is_correct`` as the text ``"false"``, ``mistake_step`` as 1.5) is kept as given where an
annotation can hold it, else left out, and a note says which.
"""

from __future__ import annotations

import hashlib
import re

from .common import Conversion, ConvertError, escaped_names, label_value, read_json_values
from ...core.text import ascii_digits
from ..codes import show

_ROLE = re.compile(r"^\s*(?P<who>[^()]*?)\s*\((?P<act>[^()]*)\)\s*$")
RAW_CONTENT = ("question", "ground_truth", "system_prompt")
NOT_ANNOTATIONS = ("history", "question_ID", "is_correct", "is_corrected", "mistake_step", *RAW_CONTENT)


def _logs(values: list) -> list | None:
    if values and all(isinstance(v, dict) and isinstance(v.get("history"), list) for v in values):
        return values
    return None


def _is_mast(values: list) -> bool:
    first = values[0] if values else None
    if isinstance(first, list) and first:
        first = first[0]
    return isinstance(first, dict) and "mast_annotation" in first and isinstance(first.get("trace"), dict)


def detect(values: list) -> bool:
    """True for objects with a ``history`` list whose first messages have a ``role`` or ``content``."""
    logs = _logs(values)
    if not logs:
        return False
    history = logs[0]["history"]
    return any(isinstance(m, dict) and ("role" in m or "content" in m) for m in history[:5])


def _text(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _speaker(message: dict) -> tuple[str | None, str | None]:
    """(who speaks, the act in the role's parenthesis or None)."""
    role = _text(message.get("role")) or ""
    match = _ROLE.match(role)
    who, act = (match.group("who").strip(), match.group("act").strip()) if match else (role, None)
    return _text(message.get("name")) or who or None, act


def _choose(logs: list, file: str, trace_id: str | None) -> dict:
    ids = [log.get("question_ID") for log in logs]
    if trace_id is not None:
        for log, qid in zip(logs, ids):
            if str(qid) == trace_id:
                return log
        raise ConvertError(f"{file}: no log has question_ID {trace_id}; found: "
                           + ", ".join(str(i) for i in ids if i is not None) or "none")
    if len(logs) > 1:
        raise ConvertError(f"{file}: holds {len(logs)} logs; choose one with --trace-id QUESTION_ID")
    return logs[0]


def convert(data: bytes, file: str, trace_id: str | None = None) -> Conversion:
    """Convert one message log into a trace (rules in the module docstring).

    Raises:
        ConvertError: not JSON, not a message log, several logs and no ``trace_id``, or
            a history without a readable message.
    """
    values = read_json_values(data, file)
    logs = _logs(values)
    if logs is None and _is_mast(values):
        raise ConvertError(
            f"{file}: a MAST (MAD) record: its 'trace.trajectory' is the raw text log of its framework (ChatDev, "
            "MetaGPT, AG2, ...), each in its own layout, not a list of messages; masrl reads message logs with a "
            "'history' array ({\"role\", \"name\", \"content\"})"
        )
    if logs is None or not detect(values):
        raise ConvertError(
            f"{file}: not a message log: expected an object with a 'history' array of messages "
            "({\"role\", \"name\", \"content\"}), as Who&When writes"
        )
    log = _choose(logs, file, trace_id)
    notes: list[str] = []
    events: list[dict] = []
    edges: list[dict] = []
    unread: list[str] = []
    orchestrators: list[str] = []
    for message in log["history"]:
        if isinstance(message, dict):
            who, act = _speaker(message)
            if who and act is not None and (act.startswith("->") or act == "thought") and who not in orchestrators:
                orchestrators.append(who)
    orchestrator = orchestrators[0] if orchestrators else None
    if len(orchestrators) > 1:
        notes.append(f"several speakers delegate or think as an orchestrator ({', '.join(orchestrators)}); "
                     f"answers are returned to the one who delegated")
    pending: dict[str, dict] = {}  # agent -> the orchestrator's delegation to it not yet answered
    odd_acts: dict[str, int] = {}
    previous = None
    for step, message in enumerate(log["history"]):
        if not isinstance(message, dict):
            unread.append(f"step {step}: not an object")
            continue
        who, act = _speaker(message)
        if who is None:
            unread.append(f"step {step}: no role or name")
            continue
        content = message.get("content")
        event = {"id": f"m{step}", "t": step, "type": "message", "agent": who, "step": step}
        role = _text(message.get("role"))
        if role is not None:
            event["role"] = role
        if isinstance(content, str):
            event["content_ref"] = "sha256:" + hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
        else:
            unread.append(f"step {step}: content is {type(content).__name__}, not text (no content_ref)")
        link = None
        if act is not None and act.startswith("->") and _text(act[2:]):
            target = _text(act[2:])
            event.update(type="orchestrator_decision", decision="O2", to=target, **{"from": who})
            pending[target] = event
        elif act == "thought":
            event["type"] = "orchestrator_decision"
        elif act is not None and act.startswith("termination"):
            event.update(type="stop", decision="O5")
        elif who == "human" and message.get("name") is None:
            event["type"] = "human_intervention"
        elif who in pending:
            delegation = pending.pop(who)
            event.update(type="return", to=delegation["from"], **{"from": who})
            link = delegation
        else:
            if act is not None:
                odd_acts[act] = odd_acts.get(act, 0) + 1
            if orchestrator is not None and who != orchestrator:
                event["to"] = orchestrator
        events.append(event)
        if previous is not None:
            typ = "message" if link is previous else "causal"
            edges.append({"src": previous["id"], "dst": event["id"], "type": typ})
        if link is not None and link is not previous:
            edges.append({"src": link["id"], "dst": event["id"], "type": "message"})
        previous = event
    if not events:
        raise ConvertError(f"{file}: no message could be read: " + ("; ".join(unread) or "the history is empty"))
    qid = log.get("question_ID")
    tid = str(qid) if isinstance(qid, (str, int)) and not isinstance(qid, bool) and str(qid) else "message-log"
    annotations = _annotations(log, events, notes)
    trace = {
        "trace_id": tid,
        "task_id": tid,
        "system": "message-log" + (f": orchestrator {orchestrator}" if orchestrator else ": group chat"),
        "topology": "centralized" if orchestrator else "unknown",
        "events": events,
        "edges": edges,
        "rewards": {},
        "costs": {"tokens": 0, "wall_clock_s": 0, "tool_calls": 0,
                  "messages": sum(e["type"] == "message" for e in events)},
    }
    if annotations:
        trace["annotations"] = annotations
    kinds = {}
    for e in events:
        kinds[e["type"]] = kinds.get(e["type"], 0) + 1
    summary = (f"converted {len(events)} of {len(log['history'])} messages into {len(events)} events and "
               f"{len(edges)} edges: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    notes[:0] = [summary, "the log has no times or token counts: t is the step index (an ordinal clock), "
                          "costs.tokens and costs.wall_clock_s are 0"]
    if orchestrator is None:
        notes.append("no role names a delegation ('X (-> Y)'): the speakers' order is kept, but who chose each "
                     "speaker is not in the log (a group chat)")
    for act, count in sorted(odd_acts.items()):
        notes.append(f"{count} message(s) with the role act '({act})', which names no delegation, thought or "
                     "termination: read as messages")
    if unread:
        shown = "; ".join(unread[:5]) + (f"; and {len(unread) - 5} more" if len(unread) > 5 else "")
        notes.append(f"{len(unread)} message(s) not fully read: {shown}")
    escaped_names(trace, notes)
    return Conversion(trace, notes, len(log["history"]) - len(events), len(log["history"]), "message log")


def _annotations(log: dict, events: list[dict], notes: list[str]) -> dict:
    out: dict = {}
    correct = next((log[k] for k in ("is_correct", "is_corrected") if isinstance(log.get(k), bool)), None)
    for key in ("is_correct", "is_corrected"):
        value = log.get(key)
        if key not in log or isinstance(value, bool):
            continue
        said = value.strip().lower() if isinstance(value, str) else None
        if said in ("true", "false") and correct is None:
            correct = said == "true"
            notes.append(f"{key} {show(value)} is text, not true or false: read as {said}")
        elif label_value(value):
            out[key] = value
            notes.append(f"{key} {show(value)} is not true or false: kept as the annotation '{key}'")
        else:
            notes.append(f"{key} {show(value)} is not true or false: not kept")
    if correct is not None:
        out["outcome"] = "success" if correct else "failure"
    step = log.get("mistake_step")
    if isinstance(step, str) and step.strip().isascii() and step.strip().isdigit() and len(step.strip()) <= 18:
        step = int(step.strip())  # ASCII digits only ('²' is a digit to str.isdigit, not to int)
    if isinstance(step, int) and not isinstance(step, bool):
        out["mistake_step"] = step
        by_step = {e["step"]: e for e in events}
        if step in by_step:
            out["mistake_event"] = by_step[step]["id"]
            agent = log.get("mistake_agent")
            if isinstance(agent, str) and agent != by_step[step]["agent"]:
                notes.append(f"mistake_agent '{agent}' is not who speaks at mistake_step {step} "
                             f"('{by_step[step]['agent']}'); both are kept as the log gives them")
        else:
            notes.append(f"mistake_step {step} names no message of the log (0 to {len(log['history']) - 1})")
    elif label_value(step):
        out["mistake_step"] = step
        notes.append(f"mistake_step {show(step)} is not a step number; kept as the log gives it")
    elif "mistake_step" in log:
        notes.append(f"mistake_step {show(step)} is not a step number, text or a number: not kept")
    for key, value in log.items():
        if key in NOT_ANNOTATIONS or not isinstance(key, str):
            continue
        if label_value(value):
            out[key] = value
        else:
            notes.append(f"the log's '{key}' is not text, yes/no or a number within ±2**53; not kept")
    if isinstance(out.get("level"), str) and ascii_digits(out["level"]) and len(out["level"]) <= 18:
        out["level"] = int(out["level"])
    raw = [k for k in RAW_CONTENT if k in log]
    if raw:
        notes.append(f"not copied (raw content; the events keep hashes of the messages only): {', '.join(raw)}")
    return out
