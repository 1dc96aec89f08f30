"""Suggestions as text for a terminal and as JSON (pure: data in, text out; same data, same text)."""

from __future__ import annotations

import json
import shlex

from ...core.text import printable
from .fields import RecordSuggestions
from .propose import Suggestion


def _value(value) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]" if value else "[] (none)"
    return str(value)


def _argument(value) -> str:
    return ",".join(value) if isinstance(value, tuple) else str(value)


def _confidence(item) -> str:
    s = item.score
    if not s.n:
        return "low confidence: not measured (no tagged record holds this field)"
    return (f"low confidence: leave-one-out top-1 accuracy {s.accuracy:.3f} does not beat the majority "
            f"baseline {s.baseline:.3f}") if s.low_confidence else \
        f"leave-one-out top-1 accuracy {s.accuracy:.3f}, majority baseline {s.baseline:.3f}"


def as_text(report: RecordSuggestions) -> str:
    """The suggestions of one record for a terminal: per field its values best first with their
    score and evidence (neighbour key, similarity, title, shared words; the taxonomy's definition of
    the value where it voted, with the words it shares), the rules that narrowed them, the suggested values they assume, and whether the field is low confidence; last, the
    fields to tag by hand (``suggest: false``) and the commands that confirm the values drafted (a
    field holding a draft says so, and which suggestion it is) and apply the best values."""
    learned = (f"from the {report.learned_from} tagged records; scores are each value's share of the vote of the "
               "nearest records and of the taxonomy's definitions; nothing is written without --apply") if report.learned_from else \
        ("no retained record is tagged yet, so there is nothing to learn from and nothing is suggested: tag this "
         "record by hand (the allowed values are in corpus/taxonomy.yaml)")
    lines = [f"Suggestions for {report.key} ({report.file}): {printable(report.title)}", learned, ""]
    for item in report.fields:
        head = f"{item.field} ({item.label}{', a set' if item.multi else ''})"
        given = item.suggestions[0].given if item.suggestions else {}
        if given:
            head += " — with " + ", ".join(f"{k} {_value(tuple(v) if isinstance(v, list) else v)}" for k, v in given.items())
        lines.append(head)
        if item.field in report.drafted:
            draft = report.drafted[item.field]
            rank = next((k for k, s in enumerate(item.suggestions, 1) if s.value == draft), None)
            where = f"suggestion {rank} below" if rank else "not among the suggestions below"
            lines.append(f"  drafted, not confirmed: {_value(draft)} ({where})")
        lines.append(f"  {_confidence(item)}")
        lines.append(f"  chosen by leave-one-out: {item.setting.describe()}")
        if item.suggestions and item.suggestions[0].rules:
            lines += [f"  rule: {r}" for r in item.suggestions[0].rules]
        if not item.suggestions:
            lines.append("  no suggestion: no tagged record holds a value allowed here")
        for rank, s in enumerate(item.suggestions, 1):
            lines.append(f"  {rank}. {_value(s.value)}  score {s.score:.3f}")
            for n in s.evidence:
                lines.append(f"       {n.key} ({n.similarity:.3f}) {printable(n.title)} — {_shares(n.shared)}")
            for d in s.definitions:
                lines.append(f"       the taxonomy's {d.kind} ({d.similarity:.3f}) {printable(_one_line(d.text))} — {_shares(d.shared)}")
            if not s.evidence and not s.definitions:
                lines.append("       evidence: the rule above allows only this value")
        lines.append("")
    if report.by_hand:
        lines.append(f"to tag by hand (the taxonomy says suggest: false: no other record's tags can tell them): "
                     f"{', '.join(report.by_hand)}")
    best = [(i.field, i.suggestions[0].value) for i in report.fields if i.suggestions]
    if report.drafted:
        args = " ".join(f"--apply {shlex.quote(f'{f}={_argument(v)}')}" for f, v in report.drafted.items())
        lines.append(f"to confirm the drafted values as they are: masrl suggest {shlex.quote(report.key)} {args}")
    if best and best != list(report.drafted.items()):  # the drafts are the best values: one command says it
        args = " ".join(f"--apply {shlex.quote(f'{f}={_argument(v)}')}" for f, v in best)
        lines.append(f"to apply the best values: masrl suggest {shlex.quote(report.key)} {args}")
        if not report.drafted:
            lines.append(f"to write them as a draft (marked not confirmed): masrl suggest {shlex.quote(report.key)} --draft")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    """A definition's label and definition on one line: ``label: definition``."""
    return ": ".join(part for part in text.split("\n") if part)


def _suggestion(s: Suggestion, low: bool, drafted=None) -> dict:
    out = {"value": list(s.value) if isinstance(s.value, tuple) else s.value, "score": s.score,
           "evidence": [{"key": n.key, "title": n.title, "similarity": n.similarity, "shared_words": list(n.shared)}
                        for n in s.evidence],
           "low_confidence": low}
    if s.definitions:
        out["definitions"] = [{"kind": d.kind, "text": _one_line(d.text), "similarity": d.similarity,
                               "shared_words": list(d.shared)} for d in s.definitions]
    if drafted is not None and s.value == drafted:
        out["drafted"] = True
    if s.rules:
        out["rules"] = list(s.rules)
    if s.given:
        out["with"] = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in s.given.items()}
    return out


def _shares(words) -> str:
    """What a neighbour or definition shares with the record: ``shares: reward, agent``, or that it shares no word."""
    return f"shares: {printable(', '.join(words))}" if words else "no word in common (it counts a little)"


def as_json(report: RecordSuggestions) -> str:
    """``{field: [{"value", "score", "evidence": [{"key", "title", "similarity", "shared_words"}],
    "low_confidence", "definitions"?: [{"kind", "text", "similarity", "shared_words"}], "rules"?, "with"?,
    "drafted"?}, ...]}`` with the best value first, fields in the order they were decided; a set
    field's value is a list; ``definitions`` are the taxonomy's words for the value (of a set's
    members) that voted for it: its label and definition (``kind`` ``"definition"``) or its label
    alone (``"label"``), as the field's setting says; ``"drafted": true`` marks the value the record holds as
    a draft no person has confirmed. Indented, one trailing newline."""
    data = {item.field: [_suggestion(s, item.low_confidence, report.drafted.get(item.field)) for s in item.suggestions]
            for item in report.fields}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
